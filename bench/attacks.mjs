#!/usr/bin/env node
// `npm run attacks [-- --json]`: runs the attack corpus (test/fixtures/attacks/) through the whole
// pipeline and prints the counts table of issue 14 (family | attacks | five outcome columns), or with
// --json one JSON document: the table, every attack's columns and findings, and the commit measured.
// The corpus runs as its vitest file (the harness is TypeScript), on the built CLI: build first
// (`npm run build`). Progress and the test output go to stderr; the table alone to stdout.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const json = process.argv.includes('--json');
const dir = mkdtempSync(join(tmpdir(), 'sleep-cycle-attacks-'));
const out = join(dir, 'results.json');

const vitest = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/e2e/attack-corpus.test.ts'], {
  cwd: root,
  env: { ...process.env, ATTACKS_OUT: out },
  stdio: ['ignore', 2, 2],
});

let results;
try {
  results = JSON.parse(readFileSync(out, 'utf8'));
} catch {
  process.stderr.write(`attacks: the corpus did not produce results (vitest exit ${vitest.status}); is dist/ built (npm run build)?\n`);
  process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();

const COLUMNS = ['unsafe', 'secret', 'crash', 'outside', 'code'];
const TITLES = ['unsafe text in MEMORY.md / skills', 'secret in state, report, commit or LLM request', 'crash, hang or DoS', 'wrote outside the repo', 'ran code'];

if (json) {
  process.stdout.write(`${JSON.stringify({ commit, table: results.table, attacks: results.results }, null, 2)}\n`);
} else {
  const rows = results.table.map((row) => `| ${row.title} | ${row.attacks} | ${COLUMNS.map((c) => row.columns[c]).join(' | ')} |`);
  const total = results.results.length;
  const totals = COLUMNS.map((c) => results.results.filter((r) => r.columns.includes(c)).length);
  process.stdout.write(
    [`measured at ${commit}`, '', `| family | attacks | ${TITLES.join(' | ')} |`, `|---|---:|${COLUMNS.map(() => '---:').join('|')}|`, ...rows, `| **total** | ${total} | ${totals.join(' | ')} |`, ''].join('\n'),
  );
}
// The table is the measurement; whether the corpus test passed (every unlisted attack blocked) is said apart.
if (vitest.status !== 0) process.stderr.write('attacks: the corpus test failed: an attack not in test/fixtures/attacks/known-leaks.ts leaks, or one listed is blocked now (see above).\n');
