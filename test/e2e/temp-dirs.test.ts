import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The leftover check of the test setup (test/helpers/temp-sandbox.ts and temp-root.ts), run the way a
 * developer meets it: vitest, with our global setup and setup file, on three small test files.
 */
const VITEST = join(PACKAGE_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const helper = (name: string) => JSON.stringify(join(PACKAGE_ROOT, 'test', 'helpers', name));

const PROBES: Record<string, string> = {
  // A temp directory made by hand and forgotten.
  'leaky.probe.ts': `import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
test('forgets a temp directory', () => { mkdtempSync(join(tmpdir(), 'forgotten-')); });
`,
  // A child process, started with childEnv(), that makes one and does not remove it.
  'child.probe.ts': `import { spawnSync } from 'node:child_process';
import { childEnv } from ${helper('temp.ts')};
test('a child forgets a temp directory', () => {
  const made = spawnSync(process.execPath, ['-e', "require('fs').mkdtempSync(require('path').join(require('os').tmpdir(), 'child-made-'))"], { env: childEnv(process.cwd()) });
  expect(made.status).toBe(0);
});
`,
  // The helpers: made, used, removed after the file.
  'clean.probe.ts': `import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from ${helper('temp.ts')};
test('uses tempDir', () => {
  const dir = tempDir('kept-until-the-end-');
  writeFileSync(join(dir, 'a.txt'), 'a');
  expect(existsSync(dir)).toBe(true);
});
`,
};

describe('temp directories left by a test file', () => {
  it('fail that file, naming what was left, and are removed; the helpers leave nothing', () => {
    const project = tempDir('sleep-cycle-probe-');
    for (const [name, text] of Object.entries(PROBES)) writeFileSync(join(project, name), text);
    writeFileSync(
      join(project, 'vitest.config.mjs'),
      `export default { test: { include: ['*.probe.ts'], globals: true, globalSetup: [${helper('temp-root.ts')}], setupFiles: [${helper('temp-sandbox.ts')}] } };\n`,
    );
    // The inner run's temp root goes here, so what it leaves (or removes) can be seen.
    const tmp = join(project, 'tmp');
    mkdirSync(tmp);
    const report = join(project, 'report.json');
    const run = spawnSync(process.execPath, [VITEST, 'run', '--root', project, '--config', join(project, 'vitest.config.mjs'), '--reporter=json', `--outputFile=${report}`], {
      cwd: project,
      env: { ...process.env, TMPDIR: tmp },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(1);
    const results = JSON.parse(readFileSync(report, 'utf8')) as { testResults: { name: string; status: string; message: string }[] };
    const byFile = Object.fromEntries(results.testResults.map((r) => [r.name.split('/').pop(), r]));
    expect(byFile['clean.probe.ts']!.status).toBe('passed');
    expect(byFile['leaky.probe.ts']!.status).toBe('failed');
    expect(byFile['leaky.probe.ts']!.message).toMatch(/this test file left 1 entry in its temp directory: forgotten-\w+\. Make temp directories with tempDir\(\)/);
    expect(byFile['child.probe.ts']!.status).toBe('failed');
    expect(byFile['child.probe.ts']!.message).toMatch(/left 1 entry in its temp directory: child-made-\w+\./);
    // Nothing is left behind, not even by the files that failed.
    expect(readdirSync(tmp)).toEqual([]);
  });
});
