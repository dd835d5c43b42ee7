/**
 * Build step: bundles the two entry points a process or a thread starts from, the CLI
 * (dist/pipeline/cli/main.js) and the ingest worker (dist/pipeline/io/range-worker.js), each into one
 * file in place. Node then resolves and loads one module instead of some seventy (its ESM resolver
 * stats and reads each): about 15 ms of every command, the pre-session dry run included, and of the
 * worker's start. Packages stay external, and modules loaded on demand stay so (evaluated on first use).
 * The library (dist/pipeline/index.js) and every other module stay as tsc wrote them.
 * Usage: `node dist/scripts/bundle-entries.js` (run by `npm run build`, after tsc).
 */
import { renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { packageRoot } from '../pipeline/io/paths.js';

const ENTRIES = ['dist/pipeline/cli/main.js', 'dist/pipeline/io/range-worker.js'];

for (const entry of ENTRIES) {
  const path = resolve(packageRoot(), entry);
  const temp = `${path}.bundle.tmp`;
  await build({
    entryPoints: [path],
    outfile: temp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  renameSync(temp, path);
  renameSync(`${temp}.map`, `${path}.map`);
}
