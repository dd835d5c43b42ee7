#!/usr/bin/env node
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
  const loader = createBundleLoader(nativeRequire());
  const { runHookMain } = loader.load<typeof import('./hook-main.js')>(join(here(), 'hook-main.cjs'));
  const code = await runHookMain(args);
  loader.saveCaches();
  return code;
}

async function runCli(args: string[]): Promise<number> {
  const loader = createBundleLoader(nativeRequire());
  const { runCliMain } = loader.load<typeof import('./cli-main.js')>(join(here(), 'cli-main.cjs'));
  const code = await runCliMain(args);
  loader.saveCaches();
  return code;
}

/**
 * The `bin` (main.cjs) has CommonJS's `__filename` and `__dirname`; main.js, an ES module, makes them
 * from its URL. Not through `import.meta.url` in the bin: parsing the URL compiled Node's URL code on
 * every tool call of an agent.
 */
function nativeRequire(): NodeJS.Require {
  return createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
}

function here(): string {
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
}
