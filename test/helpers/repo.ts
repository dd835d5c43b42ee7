import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { childEnv, tempDir } from './temp.js';

export const PACKAGE_ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(PACKAGE_ROOT, 'dist', 'pipeline', 'cli', 'main.cjs');

/** A temp directory built from an object literal (removed after the test file); with `git`, an initialised repo with one commit. */
export function makeDir(files: Record<string, string>, options: { git?: boolean } = {}): string {
  const dir = tempDir('sleep-cycle-test-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  if (options.git) {
    git(dir, 'init', '--quiet', '--initial-branch=main');
    git(dir, 'config', 'user.name', 'test');
    git(dir, 'config', 'user.email', 'test@example.invalid');
    git(dir, 'config', 'commit.gpgsign', 'false');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  }
  return dir;
}

/** Runs git; its stderr is captured (a failure's message carries it) instead of printed on the test run's terminal. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs the built CLI as a real subprocess, with no terminal and no API key. */
export function runCliProcess(dir: string, args: string[], env: Record<string, string> = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...childEnv(dir), ...env },
    input: '',
  });
  let json: unknown = null;
  if (args.includes('--json')) json = JSON.parse(result.stdout);
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

/** Like runCliProcess, without blocking this process (needed when this process serves the fake API). */
export function runCliProcessAsync(dir: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...childEnv(dir), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr, json: args.includes('--json') ? JSON.parse(stdout) : null }));
    child.stdin.end();
  });
}

export function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

export function sha(dir: string, path: string): string {
  return createHash('sha256').update(readFileSync(join(dir, path))).digest('hex');
}

let counter = 0;
/** One telemetry line; failures get a category unless given null. */
export function event(overrides: Record<string, unknown> = {}): string {
  counter += 1;
  const base = {
    timestamp: '2026-11-20T10:00:00.000Z',
    tool_name: 'Bash',
    input_hash: `h${counter.toString(16).padStart(6, '0')}`,
    exit_code: 0,
    duration_ms: 100,
    session_id: 's-1',
  };
  return JSON.stringify({ ...base, ...overrides });
}

export function lines(...items: string[]): string {
  return items.map((item) => `${item}\n`).join('');
}

export function failures(count: number, overrides: Record<string, unknown>): string[] {
  return Array.from({ length: count }, (_, i) =>
    event({ exit_code: 1, error_category: 'git_error', error_message: 'fatal: Unable to create \'/repo/.git/index.lock\': File exists.', tool_name: 'git_push', timestamp: `2026-11-20T10:0${i % 10}:00.000Z`, session_id: `s-${i % 3}`, ...overrides }),
  );
}
