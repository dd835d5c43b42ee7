import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI } from './repo.js';

const USAGE_PRELOAD = pathToFileURL(join(import.meta.dirname, 'attack-usage.mjs')).href;
let nights = 0;

/**
 * One night of the built CLI as a child process. A child, not this process: an attack that hangs the
 * tool (a FIFO, /dev/zero, a regex that backtracks) must be killed and counted, not stall the corpus;
 * and its heap is capped, so a blow-up is a crash rather than a swapping machine.
 */

export interface NightRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Wall time (shared machine: only a hang is judged by it). */
  ms: number;
  /** CPU time of the night's process (all its threads), when it exited. */
  cpuMs: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

const MAX_OUTPUT = 32 << 20;

/**
 * Killed after `killAfterMs` of wall time (a hang: a FIFO nobody writes) or, sooner, once its CPU time
 * passes `killAfterCpuMs` (a DoS already: /dev/zero read forever), so neither holds the shared machine.
 */
export function runNight(cwd: string, args: string[], env: Record<string, string>, killAfterMs: number, killAfterCpuMs = Number.POSITIVE_INFINITY, stdin?: string | Buffer): Promise<NightRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const usageFile = join(tmpdir(), `attack-usage-${process.pid}-${(nights += 1)}.json`);
    const child = spawn(process.execPath, ['--max-old-space-size=768', '--import', USAGE_PRELOAD, CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', ATTACK_USAGE_FILE: usageFile, ...env },
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      // Its own process group, so a kill takes its git children too (a git blocked on a FIFO would outlive it).
      detached: true,
    });
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let cpuKilled: number | null = null;
    const timer = setTimeout(() => {
      // A timer can fire late: another job's synchronous work (the harness's own git on a FIFO, bounded
      // at 20 s) holds this process's event loop. A night that ended in time is then a zombie waiting to
      // be reaped, not a hang.
      if (hasExited(child.pid)) return;
      timedOut = true;
      kill();
    }, killAfterMs);
    const poll = setInterval(() => {
      const cpu = procCpuMs(child.pid);
      if (cpu !== null && cpu > killAfterCpuMs) {
        cpuKilled = cpu;
        kill();
      }
    }, 1000);
    child.stdout.on('data', (chunk: Buffer) => void (stdout.length < MAX_OUTPUT && (stdout += chunk.toString())));
    child.stderr.on('data', (chunk: Buffer) => void (stderr.length < MAX_OUTPUT && (stderr += chunk.toString())));
    child.on('error', reject);
    if (stdin !== undefined && child.stdin) {
      // A command that stops reading early (a payload past its bound) closes the pipe: not the harness's error.
      child.stdin.on('error', () => undefined);
      child.stdin.end(stdin);
    }
    child.on('close', (code, signal) => {
      // A child git the night left blocked (a FIFO it opened) must not outlive the night.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is already gone
      }
      clearTimeout(timer);
      clearInterval(poll);
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null;
      }
      let cpuMs: number | null = cpuKilled;
      if (existsSync(usageFile)) {
        cpuMs = (JSON.parse(readFileSync(usageFile, 'utf8')) as { cpu_ms: number }).cpu_ms;
        rmSync(usageFile, { force: true });
      }
      resolve({ code, signal: cpuKilled !== null ? null : signal, timedOut, ms: Date.now() - started, cpuMs, stdout, stderr, json });
    });
  });
}

/** Whether the process has ended (a zombie not yet reaped, or gone): Linux /proc; false elsewhere. */
function hasExited(pid: number | undefined): boolean {
  if (pid === undefined || !existsSync('/proc/self/stat')) return false;
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
}

/** CPU time of a live process from /proc (Linux; null elsewhere or once it is gone). */
function procCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Why a night counts as a crash, hang or DoS (empty: it did not). */
export function crashFindings(run: NightRun, accept: 'ok' | 'clean', maxCpuMs: number, json = true): string[] {
  if (run.timedOut) return [`hang: killed after ${run.ms} ms`];
  if (run.cpuMs !== null && run.cpuMs > maxCpuMs) return [`DoS: ${run.cpuMs} ms of CPU (bound ${maxCpuMs})${run.json === null ? ', killed' : ''}`];
  if (run.signal !== null) return [`killed by ${run.signal}`];
  const found: string[] = [];
  if (!json) {
    if (run.code !== 0 && !(accept === 'clean' && [1, 2, 3].includes(run.code ?? -1))) found.push(`exit ${run.code}: ${JSON.stringify((run.stderr || run.stdout).slice(0, 200))}`);
  } else if (run.json === null) found.push(`crash: stdout is not one JSON document (exit ${run.code}): ${JSON.stringify((run.stderr || run.stdout).slice(0, 200))}`);
  else if (run.code !== 0) {
    const code = String(run.json?.error?.code ?? 'none');
    const clean = accept === 'clean' && [1, 2, 3].includes(run.code ?? -1) && /^E_[A-Z_]+$/.test(code) && code !== 'E_INTERNAL';
    if (!clean) found.push(`exit ${run.code} with ${code}: ${JSON.stringify(String(run.json?.error?.message ?? '').slice(0, 200))}`);
  }
  if (/\n\s+at .+:\d+:\d+\)?\n/.test(run.stderr)) found.push('crash: a stack trace on stderr');
  return found;
}
