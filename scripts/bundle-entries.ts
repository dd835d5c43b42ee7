/**
 * Build step: bundles the entry points a process or a thread starts from, each into one file in place.
 * Node then loads one module instead of some seventy of ours (its ESM resolver stats and reads each) and
 * a dozen CommonJS files of commander and json-rules-engine (each read, scanned for its exports and
 * wrapped): the pre-session dry run on 10,000 lines went from about 292 to 241 ms.
 * - dist/pipeline/cli/main.js, the executable: only a switch between the two below, left external to it.
 * - dist/pipeline/cli/hook-main.js, the hook (on every tool call of an agent): no commander, and the
 *   parts for session start and reminders in chunks of their own, loaded only by those payloads.
 * - dist/pipeline/cli/cli-main.js, every other command.
 * - dist/pipeline/ingest/range-worker.js, the ingest worker thread.
 * Modules loaded on demand are still evaluated on first use only. The packages loaded on demand and
 * large (the Anthropic SDK, simple-git, yaml, and @huggingface/transformers with onnxruntime, tens of MB, needed
 * only with `similarity: embeddings`) stay external. The library (dist/pipeline/index.js) and
 * every other module stay as tsc wrote them. Usage: `node dist/scripts/bundle-entries.js` (run by
 * `npm run build`, after tsc).
 */
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { packageRoot } from '../pipeline/io/paths.js';

const CLI_ENTRY = 'dist/pipeline/cli/main.js';
/** Loaded on demand only (an API key, a commit, a settings file), and large: left to Node to load. */
const EXTERNAL = ['@anthropic-ai/sdk', 'simple-git', 'yaml', '@huggingface/transformers', '@ericcornelissen/bash-parser'];
/** The executable's two halves: bundled on their own, loaded by main.js by their path. */
const HALVES = /^\.\/(hook-main|cli-main)\.js$/;

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

const at = (entry: string) => resolve(packageRoot(), entry);

// Each written over its own input (esbuild reads every input first), so the source map keeps its name.
await build({ ...common, entryPoints: [at(CLI_ENTRY)], outfile: at(CLI_ENTRY), allowOverwrite: true, banner: {}, plugins: [halvesExternal()] });
await build({ ...common, entryPoints: [at('dist/pipeline/cli/cli-main.js')], outfile: at('dist/pipeline/cli/cli-main.js'), allowOverwrite: true });
await build({ ...common, entryPoints: [at('dist/pipeline/ingest/range-worker.js')], outfile: at('dist/pipeline/ingest/range-worker.js'), allowOverwrite: true });
// Chunks of an earlier build would pile up beside the new ones (their names carry a hash).
rmSync(at('dist/pipeline/cli/hook-chunks'), { recursive: true, force: true });
// Split: what SessionStart and a failure's reminder load (the ledger, templates, memory file) is parsed only by those payloads.
await build({
  ...common, entryPoints: [at('dist/pipeline/cli/hook-main.js')], outdir: at('dist/pipeline/cli'), allowOverwrite: true, splitting: true,
  entryNames: '[name]', chunkNames: 'hook-chunks/[name]-[hash]',
});

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
const cli = resolve(packageRoot(), CLI_ENTRY);
if (!readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')) throw new Error(`${CLI_ENTRY} lost its #!/usr/bin/env node line: keep it first in pipeline/cli/main.ts.`);
chmodSync(cli, 0o755);
