#!/usr/bin/env node
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createBundleLoader } from '../io/code-cache.js';
import { hookArgs, type HookArgs } from './hook-args.js';

/**
 * The executable, and only a switch: `hook` runs on every tool call of an agent, so it has its own
 * small CommonJS bundle (hook-main.cjs: no commander, no yaml, simple-git or json-rules-engine); every
 * other command line goes to the command table (cli-main.cjs). Each is loaded only when it runs, and
 * both run with V8's code cache (io/code-cache.ts): the pre-session dry run compiles every function it
 * calls, a whole bundle of them, on each start otherwise. Built twice (scripts/bundle-entries.ts):
 * main.cjs, the `bin` (a CommonJS entry skips Node's ES module loader, a tenth of the hook's own cost),
 * and main.js, the same switch as an ES module for those who run that path.
 */
const argv = process.argv.slice(2);
const hook = hookArgs(argv);
// The only place that sets the exit code. No top-level await: the CommonJS build has none.
void (hook !== null ? runHook(hook) : runCli(argv)).then((code) => {
  process.exitCode = code;
});

async function runHook(args: HookArgs): Promise<number> {
  const loader = createBundleLoader(createRequire(import.meta.url));
  const { runHookMain } = loader.load<typeof import('./hook-main.js')>(fileURLToPath(new URL('./hook-main.cjs', import.meta.url)));
  const code = await runHookMain(args);
  loader.saveCaches();
  return code;
}

async function runCli(args: string[]): Promise<number> {
  const loader = createBundleLoader(createRequire(import.meta.url));
  const { runCliMain } = loader.load<typeof import('./cli-main.js')>(fileURLToPath(new URL('./cli-main.cjs', import.meta.url)));
  const code = await runCliMain(args);
  loader.saveCaches();
  return code;
}
