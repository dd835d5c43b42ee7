/**
 * Build step: bundles the entry points a process or a thread starts from, each into one file.
 * Node then loads one module instead of some seventy of ours (its ESM resolver stats and reads each) and
 * a dozen CommonJS files of commander and json-rules-engine (each read, scanned for its exports and
 * wrapped): the pre-session dry run on 10,000 lines went from about 292 to 241 ms.
 * - dist/pipeline/cli/main.cjs, the executable (`bin`), and main.js, the same as an ES module: only a
 *   switch between the two below, left external to it. CommonJS because an ES module entry costs Node's
 *   ES module loader on every tool call of an agent.
 * - dist/pipeline/cli/hook-main.cjs, the hook (on every tool call): no commander, run with V8's code
 *   cache (io/code-cache.ts); the parts for session start and reminders in bundles of their own
 *   (hook-session-start.cjs, hook-reminder.cjs), loaded only by those payloads. CommonJS, because only a
 *   script can be given cached code on Node 20.
 * - dist/pipeline/cli/cli-main.cjs, every other command, run with the code cache too (warmed here by a dry
 *   run over the shipped sample telemetry, so a pre-session dry run deserialises what it would compile).
 * - dist/pipeline/ingest/range-worker.js, the ingest worker thread.
 * The bundles run from a code cache are written without comments and indentation (`minifyWhitespace`;
 * names are kept and the source maps point into dist/): a comment with one non-ASCII character (`…`)
 * makes V8 hold the whole source as a two-byte string, read and compared at twice the cost. The build
 * fails when such a bundle is not ASCII (write the character as `\u2026` in a string or RegExp source).
 * Modules loaded on demand are still evaluated on first use only. The packages loaded on demand and
 * large (the Anthropic SDK, simple-git, yaml, and @huggingface/transformers with onnxruntime, tens of MB, needed
 * only with `similarity: embeddings`) stay external. The library (dist/pipeline/index.js) and
 * every other module stay as tsc wrote them. Usage: `node dist/scripts/bundle-entries.js` (run by
 * `npm run build`, after tsc).
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { packageRoot } from '../pipeline/io/paths.js';

const CLI_ENTRY = 'dist/pipeline/cli/main.js';
/** The `bin` of package.json: the same switch, as CommonJS. */
const CLI_BIN = 'dist/pipeline/cli/main.cjs';
/** The hook's entry (its code cache is warmed by warmHookCache). */
const HOOK_MAIN = 'dist/pipeline/cli/hook-main.cjs';
/** Every command but the hook: a CommonJS bundle of tsc's cli-main.js (which stays as tsc wrote it). */
const CLI_MAIN = 'dist/pipeline/cli/cli-main.cjs';
/** Loaded on demand only (an API key, a commit, a settings file), and large: left to Node to load (yaml is bundled into cli-main.cjs). */
const EXTERNAL = ['@anthropic-ai/sdk', 'simple-git', 'yaml', '@huggingface/transformers', '@ericcornelissen/bash-parser'];
/** The executable's two halves: bundled on their own, loaded by main.js by their path. */
const HALVES = /^\.\/(hook-main|cli-main)\.js$/;
/** The hook's parts for session start and reminders: bundles of their own, required by hook-main.cjs on demand. */
const HOOK_PARTS = /^\.\/(hook-session-start|hook-reminder)\.js$/;
/** Never loaded by the hook (ingest's detectors, embeddings), but reachable from its modules: left to Node. */
const HOOK_EXTERNAL = [...EXTERNAL, '@secretlint/secretlint-rule-preset-recommend'];

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS code calls require (for Node's own modules too): give the ES module one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: true,
  logLevel: 'warning',
} as const;

/**
 * The CommonJS builds: `import.meta.url` of our modules (createRequire, packageRoot) is the bundle's own
 * file, made when first read (a getter): the hook reads it on no call, and making it compiled Node's URL code.
 */
const commonJs = {
  ...common,
  format: 'cjs',
  banner: { js: "const __importMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
  define: { 'import.meta.url': '__importMeta.url' },
} as const;

const at = (entry: string) => resolve(packageRoot(), entry);

// Each written over its own input (esbuild reads every input first), so the source map keeps its name.
await build({ ...common, entryPoints: [at(CLI_ENTRY)], outfile: at(CLI_ENTRY), allowOverwrite: true, banner: {}, plugins: [halvesExternal()] });
await build({ ...commonJs, entryPoints: [at(CLI_ENTRY)], outfile: at(CLI_BIN), plugins: [halvesExternal()] });
// Dynamic imports become require calls: a script run from a code cache has no loader for import().
// yaml is bundled here (io/yaml-lib.ts requires it where it can): a repository with a settings file reads it on every run.
await build({ ...commonJs, entryPoints: [at('dist/pipeline/cli/cli-main.js')], outfile: at(CLI_MAIN), external: EXTERNAL.filter((name) => name !== 'yaml'), minifyWhitespace: true, supported: { 'dynamic-import': false } });
await build({ ...common, entryPoints: [at('dist/pipeline/ingest/range-worker.js')], outfile: at('dist/pipeline/ingest/range-worker.js'), allowOverwrite: true });
// The ES module build of the hook before this one (split in chunks) would lie around unused.
rmSync(at('dist/pipeline/cli/hook-chunks'), { recursive: true, force: true });
for (const part of ['hook-main', 'hook-session-start', 'hook-reminder']) {
  const out = at(`dist/pipeline/cli/${part}.cjs`);
  // A cache of an earlier build is refused by its source hash anyway; removed so the warm-up below writes the new one.
  rmSync(`${out}.cache`, { force: true });
  // Dynamic imports become require calls: a script run from a code cache has no loader for import().
  await build({ ...commonJs, entryPoints: [at(`dist/pipeline/cli/${part}.js`)], outfile: out, external: HOOK_EXTERNAL, minifyWhitespace: true, supported: { 'dynamic-import': false }, plugins: [hookPartsExternal()] });
}
for (const part of ['cli-main', 'hook-main', 'hook-session-start', 'hook-reminder']) assertAscii(at(`dist/pipeline/cli/${part}.cjs`));
rmSync(at(`${CLI_MAIN}.cache`), { force: true });
// The CLI's first: the hook's warm-up runs a night with it, which must not write the CLI's cache.
warmCliCache();
warmHookCache();

/** `import('./hook-session-start.js')` in hook-command.ts becomes `require('./hook-session-start.cjs')` (see `supported` above). */
function hookPartsExternal() {
  return {
    name: 'hook-parts-external',
    setup(b: { onResolve(options: { filter: RegExp }, fn: (args: { path: string }) => { path: string; external: boolean }): void }) {
      b.onResolve({ filter: HOOK_PARTS }, (args) => ({ path: args.path.replace(/\.js$/, '.cjs'), external: true }));
    },
  };
}

/**
 * Writes the hook bundles' code caches (hook-main.cjs, hook-session-start.cjs, hook-reminder.cjs) from
 * one process that runs every kind of payload (io/code-cache.ts saves what a process compiled) in a
 * throwaway folder where a night has run on the shipped sample: a session start, a call's start and end,
 * a failure a rule covers (the reminder) and one no rule covers. A cache warmed by one payload left the
 * others compiling their functions on every tool call. Best effort: without it the first hook call writes
 * the cache.
 */
function warmHookCache(): void {
  const dir = mkdtempSync(join(tmpdir(), 'sleep-cycle-warm-'));
  try {
    mkdirSync(join(dir, 'logs'));
    mkdirSync(join(dir, 'config'));
    copyFileSync(at('logs/telemetry.jsonl'), join(dir, 'logs', 'telemetry.jsonl'));
    for (const file of ['config/sleep-cycle.yaml', 'config/safety-rules.yaml']) copyFileSync(at(file), join(dir, file));
    spawnSync(process.execPath, [at(CLI_BIN), 'run', '--offline', '--json', '--root', dir], { stdio: ['ignore', 'ignore', 'ignore'] });
    const payload = (event: string, extra: Record<string, unknown>) => JSON.stringify({ session_id: 'warm', transcript_path: '/dev/null', cwd: dir, hook_event_name: event, ...extra });
    const payloads = [
      payload('SessionStart', { source: 'startup' }),
      payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_warm1' }),
      payload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_warm1', tool_response: { stdout: 'ok' } }),
      payload('PreToolUse', { tool_name: 'Read', tool_input: { file_path: join(dir, 'nope') }, tool_use_id: 'toolu_warm2' }),
      payload('PostToolUseFailure', { tool_name: 'Read', tool_input: { file_path: join(dir, 'nope') }, tool_use_id: 'toolu_warm2', error: 'File does not exist.' }),
      payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, tool_use_id: 'toolu_warm3', error: 'Exit code 1\nnpm ERR! missing script: lint' }),
    ];
    // The same loader the bin uses, so the caches are written exactly as a hook call would write them.
    const script = `import { createRequire } from 'node:module';
import { createBundleLoader } from ${JSON.stringify(pathToFileURL(at('dist/pipeline/io/code-cache.js')).href)};
const loader = createBundleLoader(createRequire(${JSON.stringify(pathToFileURL(at(HOOK_MAIN)).href)}));
await loader.load(${JSON.stringify(at(HOOK_MAIN))}).warmHook(${JSON.stringify(dir)}, ${JSON.stringify(payloads)});
loader.saveCaches();`;
    spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'ignore'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes cli-main.cjs's code cache by running the built CLI once as the pre-session hook does: a dry run,
 * offline, over the shipped sample telemetry (every stage, the settings file and policy `init` writes, the
 * report) in a throwaway folder. Best effort: without it the first command run writes the cache.
 */
function warmCliCache(): void {
  const dir = mkdtempSync(join(tmpdir(), 'sleep-cycle-warm-'));
  try {
    mkdirSync(join(dir, 'logs'));
    mkdirSync(join(dir, 'config'));
    copyFileSync(at('logs/telemetry.jsonl'), join(dir, 'logs', 'telemetry.jsonl'));
    for (const file of ['config/sleep-cycle.yaml', 'config/safety-rules.yaml']) copyFileSync(at(file), join(dir, file));
    spawnSync(process.execPath, [at(CLI_BIN), 'run', '--dry-run', '--offline', '--json', '--root', dir], { stdio: ['ignore', 'ignore', 'ignore'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bundle run from a code cache must stay ASCII: see the note at the top. */
function assertAscii(file: string): void {
  const bytes = readFileSync(file);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0) {
    const line = bytes.subarray(0, at).toString('latin1').split('\n').length;
    throw new Error(`${file}:${line} holds a non-ASCII character: V8 would keep the whole bundle as a two-byte string. Write it as a \\u escape.`);
  }
}

function halvesExternal() {
  return {
    name: 'halves-external',
    setup(b: { onResolve(options: { filter: RegExp }, fn: (args: { path: string }) => { path: string; external: boolean }): void }) {
      b.onResolve({ filter: HALVES }, (args) => ({ path: args.path, external: true }));
    },
  };
}

// The `bin` npm links: executable, starting with its shebang (tsc writes files 644, and esbuild writing over
// them keeps that), so `./node_modules/.bin/sleep-cycle` and `npx --no-install` run it wherever npm did not chmod it.
for (const entry of [CLI_ENTRY, CLI_BIN]) {
  const cli = resolve(packageRoot(), entry);
  if (!readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')) throw new Error(`${entry} lost its #!/usr/bin/env node line: keep it first in pipeline/cli/main.ts.`);
  chmodSync(cli, 0o755);
}
