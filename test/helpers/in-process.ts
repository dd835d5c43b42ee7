import { defaultDeps } from '../../pipeline/cli/context-from-options.js';
import { runCli } from '../../pipeline/cli/program.js';
import { fixedClock } from '../../pipeline/io/clock.js';

/** Runs the CLI in this process with a fixed clock; returns the exit code and the parsed --json envelope. */
export async function cli(dir: string, args: string[], now = '2026-11-21T03:00:00Z', env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const deps = { ...defaultDeps(), cwd: dir, clock: fixedClock(now), env, isTTY: false, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  const code = await runCli([...args, '--json'], deps);
  return { code, json: JSON.parse(out.join('')), stderr: err.join('') };
}

/**
 * The CLI in this process as a user at a terminal (or not) meets it: exit code, stdout and stderr as
 * printed, no --json added. `stdin` is what the command reads when it reads standard input.
 */
export async function sc(dir: string, args: string[], options: { isTTY?: boolean; now?: string; stdin?: string } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const deps = {
    ...defaultDeps(), cwd: dir, clock: fixedClock(options.now ?? '2026-11-21T03:00:00Z'), env: {}, isTTY: options.isTTY ?? false,
    stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text), readStdin: async () => options.stdin ?? '',
  };
  const code = await runCli(args, deps);
  return { code, stdout: out.join(''), stderr: err.join('') };
}
