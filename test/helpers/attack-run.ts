import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { CLI } from './repo.js';

/**
 * One night of the built CLI as a child process. A child, not this process: an attack that hangs the
 * tool (a FIFO, /dev/zero, a regex that backtracks) must be killed and counted, not stall the corpus;
 * and its heap is capped, so a blow-up is a crash rather than a swapping machine.
 */

export interface NightRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  ms: number;
  stdout: string;
  stderr: string;
  json: any;
}

const MAX_OUTPUT = 32 << 20;

export function runNight(cwd: string, args: string[], env: Record<string, string>, killAfterMs: number): Promise<NightRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--max-old-space-size=768', CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.stdout.on('data', (chunk: Buffer) => void (stdout.length < MAX_OUTPUT && (stdout += chunk.toString())));
    child.stderr.on('data', (chunk: Buffer) => void (stderr.length < MAX_OUTPUT && (stderr += chunk.toString())));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null;
      }
      resolve({ code, signal, timedOut, ms: Date.now() - started, stdout, stderr, json });
    });
  });
}

/** Why a night counts as a crash, hang or DoS (empty: it did not). */
export function crashFindings(run: NightRun, accept: 'ok' | 'clean', maxMs: number): string[] {
  if (run.timedOut) return [`hang: killed after ${run.ms} ms`];
  if (run.signal !== null) return [`killed by ${run.signal}`];
  const found: string[] = [];
  if (run.ms > maxMs) found.push(`DoS: took ${run.ms} ms (bound ${maxMs})`);
  if (run.json === null) found.push(`crash: stdout is not one JSON document (exit ${run.code}): ${JSON.stringify((run.stderr || run.stdout).slice(0, 200))}`);
  else if (run.code !== 0) {
    const code = String(run.json?.error?.code ?? 'none');
    const clean = accept === 'clean' && [1, 2, 3].includes(run.code ?? -1) && /^E_[A-Z_]+$/.test(code) && code !== 'E_INTERNAL';
    if (!clean) found.push(`exit ${run.code} with ${code}: ${JSON.stringify(String(run.json?.error?.message ?? '').slice(0, 200))}`);
  }
  if (/\n\s+at .+:\d+:\d+\)?\n/.test(run.stderr)) found.push('crash: a stack trace on stderr');
  return found;
}
