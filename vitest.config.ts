import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const E2E = 'test/e2e/**/*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files spend most of their time waiting for git and child processes (the e2e files other
    // than the crash test: 154 s with one worker, 45 s with three, and 70 vs 55 CPU-s), so more files
    // run at once than there are cores. Vitest's default (cores - 1) gives a 2-core
    // machine a single worker, and every file waited behind the next.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // One temp root per run and one sandbox per test file, checked for leftovers (test/helpers/temp-*.ts).
    globalSetup: ['test/helpers/temp-root.ts'],
    setupFiles: ['test/helpers/temp-sandbox.ts'],
    // `npm run test:unit` / `npm run test:e2e` pick one (--project); `npm test` runs both, which together
    // are every test file: unit is whatever is not e2e.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts', 'pipeline/**/*.test.ts'], exclude: [...configDefaults.exclude, E2E] } },
      { extends: true, test: { name: 'e2e', include: [E2E] } },
    ],
  },
});
