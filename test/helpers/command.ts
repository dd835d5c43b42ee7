import type { CliDeps } from '../../pipeline/cli/context-from-options.js';
import { defaultDeps } from '../../pipeline/cli/context-from-options.js';
import { printFailure } from '../../pipeline/cli/output.js';
import { fixedClock, type Clock } from '../../pipeline/io/clock.js';

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestDepsOptions {
  now?: string | Clock;
  env?: Record<string, string>;
  stdin?: string;
}

/** CliDeps for one in-process command (plus `readStdin` for the hook), capturing stdout and stderr. */
export function testDeps(dir: string, options: TestDepsOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const clock = typeof options.now === 'object' ? options.now : fixedClock(options.now ?? '2026-11-21T03:00:00Z');
  const deps: CliDeps & { readStdin: () => Promise<string> } = {
    ...defaultDeps(),
    cwd: dir,
    clock,
    env: options.env ?? {},
    isTTY: false,
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: async () => options.stdin ?? '',
  };
  return { deps, out, err };
}

/**
 * Runs a command function the way runCli does (a thrown error becomes the envelope and exit code) and
 * returns what it printed.
 */
export async function runCommandInProcess(
  dir: string,
  command: (deps: CliDeps & { readStdin: () => Promise<string> }) => Promise<number>,
  options: TestDepsOptions & { json?: boolean } = {},
): Promise<CommandRun> {
  const { deps, out, err } = testDeps(dir, options);
  let code: number;
  try {
    code = await command(deps);
  } catch (error) {
    code = printFailure(deps, Boolean(options.json), error);
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}
