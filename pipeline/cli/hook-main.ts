import { systemClock } from '../io/clock.js';
import { nodeFs } from '../io/fs.js';
import { readProcessStdin } from '../io/stdin.js';
import { writeProcessStdout } from '../io/stdout.js';
import type { HookArgs } from './hook-args.js';
import { hookCommand } from './hook-command.js';

/**
 * The hook's own entry (bundled apart, see scripts/bundle-entries.ts): the hook command with the real
 * effects, without the command table. It exits 0 whatever happens, as `runCli` does for `hook`:
 * Claude Code blocks the tool call when a hook exits 2.
 */
export async function runHookMain(args: HookArgs): Promise<number> {
  const deps = realDeps();
  try {
    await hookCommand(args.agent, { ...(args.root !== undefined ? { root: args.root } : {}), json: args.json }, deps);
  } catch {
    // hookCommand already turns every failure into a rejects line; this is the last guard.
  }
  return 0;
}

/**
 * Build time only (scripts/bundle-entries.ts): the payloads in turn, in one process, in `root`, output
 * dropped. The code cache this process then writes holds what every kind of payload compiles (a start,
 * an end, a failure with and without a rule), so no per-call hook compiles its own path lazily.
 */
export async function warmHook(root: string, payloads: readonly string[]): Promise<void> {
  for (const payload of payloads) {
    await hookCommand('claude-code', { root }, { ...realDeps(), stdout: () => {}, stderr: () => {}, readStdin: async () => payload }).catch(() => 0);
  }
}

function realDeps() {
  return {
    fs: nodeFs,
    clock: systemClock,
    env: process.env,
    cwd: process.cwd(),
    // Plain writes: process.stdout loads Node's stream modules, for one short document.
    stdout: writeProcessStdout,
    stderr: (text: string) => void process.stderr.write(text),
    readStdin: readProcessStdin,
  };
}
