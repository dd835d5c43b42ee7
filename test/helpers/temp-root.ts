import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's temp root: each test file's sandbox is made inside it (temp-sandbox.ts). */
    tempRoot: string;
  }
}

/**
 * Global setup (vitest.config.ts `globalSetup`): one temp root per run, so a run never sees another
 * run's directories (or another checkout's, on a shared machine). A file removes its own sandbox;
 * anything still here at teardown was left by a file that did not finish its afterAll (a crashed
 * worker) or by a process that outlived its test: the run fails. Vitest only prints an error thrown
 * from a teardown and still exits 0, hence the exit code.
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'sleep-cycle-vitest-'));
  project.provide('tempRoot', root);
  return () => {
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length === 0) return;
    console.error(`sleep-cycle tests: ${left.length} entr${left.length === 1 ? 'y was' : 'ies were'} left in the run's temp root ${root} (${left.slice(0, 10).join(', ')}): a test file did not finish its afterAll, or a process outlived its test.`);
    process.exitCode = 1;
  };
}
