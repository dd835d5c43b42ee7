import { defaultDeps } from './context-from-options.js';
import { runCli } from './program.js';

/** Every command line but the hook's fast path (see main.ts): the command table, with the real effects. */
export function runCliMain(argv: string[]): Promise<number> {
  return runCli(argv, defaultDeps());
}
