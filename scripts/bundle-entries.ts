/**
 * Build step: bundles the two entry points a process or a thread starts from, the CLI
 * (dist/pipeline/cli/main.js) and the ingest worker (dist/pipeline/ingest/range-worker.js), each into one
 * file in place. Node then loads one module instead of some seventy of ours (its ESM resolver stats and
 * reads each) and a dozen CommonJS files of commander and json-rules-engine (each read, scanned for its
 * exports and wrapped): the pre-session dry run on 10,000 lines went from about 292 to 241 ms. Modules
 * loaded on demand are still evaluated on first use only. The packages loaded on demand and large
 * (the Anthropic SDK, simple-git, yaml, the shell parser) stay external. The library (dist/pipeline/index.js) and every
 * other module stay as tsc wrote them. Usage: `node dist/scripts/bundle-entries.js` (run by
 * `npm run build`, after tsc).
 */
import { chmodSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { packageRoot } from '../pipeline/io/paths.js';

const CLI_ENTRY = 'dist/pipeline/cli/main.js';
const ENTRIES = [CLI_ENTRY, 'dist/pipeline/ingest/range-worker.js'];
/** Loaded on demand only (an API key, a commit, a settings file), and large: left to Node to load. */
const EXTERNAL = ['@anthropic-ai/sdk', 'simple-git', 'yaml', '@ericcornelissen/bash-parser'];

for (const entry of ENTRIES) {
  const path = resolve(packageRoot(), entry);
  // Written over its own input (esbuild reads every input first), so the source map keeps its name.
  await build({
    entryPoints: [path],
    outfile: path,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS code calls require (for Node's own modules too): give the ES module one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    sourcemap: true,
    logLevel: 'warning',
  });
}

// The `bin` npm links: executable, starting with its shebang (tsc writes files 644, and esbuild writing over
// them keeps that), so `./node_modules/.bin/sleep-cycle` and `npx --no-install` run it wherever npm did not chmod it.
const cli = resolve(packageRoot(), CLI_ENTRY);
if (!readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')) throw new Error(`${CLI_ENTRY} lost its #!/usr/bin/env node line: keep it first in pipeline/cli/main.ts.`);
chmodSync(cli, 0o755);
