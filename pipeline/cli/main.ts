#!/usr/bin/env node
import { hookArgs } from './hook-args.js';

/**
 * The executable, and only a switch: `hook` runs on every tool call of an agent, so it has its own
 * small bundle (hook-main.js: no commander, no yaml, simple-git or json-rules-engine); every other
 * command line goes to the command table (cli-main.js). Each is loaded only when it runs.
 */
const argv = process.argv.slice(2);
const hook = hookArgs(argv);
// The only place that sets the exit code.
process.exitCode = hook !== null ? await (await import('./hook-main.js')).runHookMain(hook) : await (await import('./cli-main.js')).runCliMain(argv);
