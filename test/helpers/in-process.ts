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
