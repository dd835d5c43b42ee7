import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { errors } from '../model/errors.js';
import type { FsPort } from './fs.js';

export interface LockHolder {
  pid: number;
  host: string;
  started: string;
  run_id: string;
}

export interface Lock {
  /** Set when a stale lock was taken over: whose it was and why it was judged stale. */
  takenOver: string | null;
  release(): Promise<void>;
}

export interface AcquireLockOptions {
  path: string;
  runId: string;
  now: Date;
  staleMinutes: number;
  isAlive?: (pid: number) => boolean;
}

/** One run at a time: a lock file created exclusively, holding pid, host and start time. */
export async function acquireLock(fs: FsPort, options: AcquireLockOptions): Promise<Lock> {
  const me: LockHolder = { pid: process.pid, host: hostname(), started: options.now.toISOString(), run_id: options.runId };
  const content = `${JSON.stringify(me)}\n`;
  let takenOver: string | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await fs.createExclusive(options.path, content)) {
      const release = async () => {
        await fs.remove(options.path);
        await fs.removeEmptyDir(dirname(options.path));
      };
      return { takenOver, release };
    }
    const seen = await fs.readText(options.path);
    const holder = parseHolder(seen);
    const stale = staleReason(holder, options);
    if (!stale || attempt > 0 || !(await moveAsideIfUnchanged(fs, options.path, seen))) {
      throw errors.locked(holder ?? { pid: 0, host: 'unknown', started: 'unknown' }, options.path);
    }
    takenOver = stale;
  }
  throw errors.internal('lock acquisition fell through');
}

/**
 * Runs `work` while holding the lock, and releases it however `work` ends. Every command that writes goes
 * through here, and loads what it changes inside `work`: a plan built from what was read before the lock
 * was taken would overwrite whatever another holder wrote in between.
 */
export async function withLock<T>(fs: FsPort, options: AcquireLockOptions, work: (lock: Lock) => Promise<T>): Promise<T> {
  const lock = await acquireLock(fs, options);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}

/**
 * Takes a stale lock out of the way atomically: rename it aside, then check that what was moved is the
 * lock judged stale. If another run replaced it in between, put it back and give up, so two runs that
 * both saw the same stale lock cannot both proceed.
 */
async function moveAsideIfUnchanged(fs: FsPort, path: string, seen: string | undefined): Promise<boolean> {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  if (!(await fs.rename(path, aside))) return false;
  if ((await fs.readText(aside)) !== seen) {
    await fs.rename(aside, path);
    return false;
  }
  await fs.remove(aside);
  return true;
}

function staleReason(holder: LockHolder | null, options: AcquireLockOptions): string | null {
  if (!holder) return 'the lock file was unreadable';
  const isAlive = options.isAlive ?? processIsAlive;
  if (holder.host === hostname() && !isAlive(holder.pid)) {
    return `pid ${holder.pid} on ${holder.host} is gone`;
  }
  const age = options.now.getTime() - Date.parse(holder.started);
  // An unreadable or future start (a lock committed to the repository) is never a live run's: stale too.
  if (!(age >= 0 && age <= options.staleMinutes * 60_000)) {
    return age > 0 ? `started ${holder.started}, older than ${options.staleMinutes} minutes` : `started ${holder.started}, not a time in the past`;
  }
  return null;
}

function parseHolder(text: string | undefined): LockHolder | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.started !== 'string') return null;
    return { pid: value.pid, host: value.host, started: value.started, run_id: String(value.run_id ?? '') };
  } catch {
    return null;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
