import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temp directories for tests. Each one is removed after its test file (temp-sandbox.ts calls
 * removeTempDirs in an afterAll), or earlier with removeTempDir. Not per test: a concurrent test's
 * directory must outlive the tests that finish before it, and fixtures built once serve the whole file.
 */
const made = new Set<string>();

/** A new empty directory under os.tmpdir() (the test file's sandbox), removed after the file. */
export function tempDir(prefix = 'sleep-cycle-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes a directory now (a big or short-lived one need not wait for the end of the file). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

export function removeTempDirs(): void {
  for (const dir of [...made]) removeTempDir(dir);
}

/**
 * The environment for a child process the tests start with an explicit env: TMPDIR is passed on, so a
 * temp directory the child makes lands in the sandbox too, where the leftover check sees it.
 */
export function childEnv(cwd: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, TMPDIR: tmpdir() };
}
