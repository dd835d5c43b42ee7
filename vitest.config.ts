import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'pipeline/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One temp root per run and one sandbox per test file, checked for leftovers (test/helpers/temp-*.ts).
    globalSetup: ['test/helpers/temp-root.ts'],
    setupFiles: ['test/helpers/temp-sandbox.ts'],
  },
});
