import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import { removeTempDirs } from './temp.js';

/**
 * Setup file (vitest.config.ts `setupFiles`): each test file gets its own temp sandbox, made the process's
 * TMPDIR, so everything it or its child processes put in os.tmpdir() is found, and attributed to the file,
 * even while other files run in parallel. After the file, the helpers' directories are removed; whatever
 * is left was made outside them and fails the file, with the names, and is removed too.
 */
const root = inject('tempRoot') ?? tmpdir();
const sandbox = mkdtempSync(join(root, 'file-'));
const previous = process.env.TMPDIR;
process.env.TMPDIR = sandbox;

afterAll(() => {
  removeTempDirs();
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  const left = readdirSync(sandbox).sort();
  rmSync(sandbox, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(
      `this test file left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in its temp directory: ${left.slice(0, 10).join(', ')}` +
        `${left.length > 10 ? ', …' : ''}. Make temp directories with tempDir() from test/helpers/temp.ts (removed after the file), ` +
        'or remove them in afterEach/afterAll; pass childEnv() to a child process that makes its own.',
    );
  }
});
