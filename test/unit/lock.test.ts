import { writeFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from '../../pipeline/io/fs.js';
import { acquireLock, withLock } from '../../pipeline/io/lock.js';
import { tempDir } from '../helpers/temp.js';

const NOW = new Date('2026-11-21T03:00:00Z');

function lockPath(holder?: object): string {
  const dir = join(tempDir('lock-'), '.sleep-cycle');
  mkdirSync(dir);
  const path = join(dir, 'lock');
  if (holder) writeFileSync(path, JSON.stringify(holder));
  return path;
}

// The crashed holder (pid 4242) is gone; this process, which both racing runs live in, is alive.
const options = (path: string, runId = 'run-a') => ({ path, runId, now: NOW, staleMinutes: 60, isAlive: (pid: number) => pid === process.pid });

describe('lock', () => {
  it('a live holder makes the second run fail with E_LOCKED naming it', async () => {
    const path = lockPath({ pid: 4242, host: hostname(), started: NOW.toISOString(), run_id: 'other' });
    await expect(acquireLock(nodeFs, { ...options(path), isAlive: () => true })).rejects.toMatchObject({ code: 'E_LOCKED', message: expect.stringContaining('pid 4242') });
  });

  it('a lock whose process is gone, or which is too old, is taken over and reported', async () => {
    const gone = await acquireLock(nodeFs, options(lockPath({ pid: 4242, host: hostname(), started: NOW.toISOString(), run_id: 'x' })));
    expect(gone.takenOver).toContain('pid 4242');
    const old = await acquireLock(nodeFs, { ...options(lockPath({ pid: 1, host: 'elsewhere', started: '2026-11-20T00:00:00Z', run_id: 'x' })), isAlive: () => true });
    expect(old.takenOver).toContain('older than 60 minutes');
  });

  it('a lock from another host whose start is unreadable or in the future (committed to the repository) is stale, not held forever', async () => {
    for (const started of ['the dawn of time', '9999-01-01T00:00:00.000Z']) {
      const taken = await acquireLock(nodeFs, { ...options(lockPath({ pid: 1, host: 'elsewhere', started, run_id: 'x' })), isAlive: () => true });
      expect(taken.takenOver).toContain('not a time in the past');
    }
  });

  it('two runs that both find the same stale lock: exactly one gets it', async () => {
    for (let round = 0; round < 20; round++) {
      const path = lockPath({ pid: 4242, host: hostname(), started: NOW.toISOString(), run_id: 'crashed' });
      const results = await Promise.allSettled([acquireLock(nodeFs, options(path, 'a')), acquireLock(nodeFs, options(path, 'b'))]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(['E_LOCKED']);
    }
  });

  it('release removes the lock, and the folder if the lock was all it held', async () => {
    const path = lockPath();
    const lock = await acquireLock(nodeFs, options(path));
    await lock.release();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(join(path, '..'))).toBe(false);
  });

  it('withLock holds the lock while its work runs and releases it however the work ends', async () => {
    const path = lockPath();
    const value = await withLock(nodeFs, options(path), async (lock) => {
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, run_id: 'run-a' });
      expect(lock.takenOver).toBeNull();
      return 42;
    });
    expect(value).toBe(42);
    expect(existsSync(path)).toBe(false);
    await expect(withLock(nodeFs, options(path), async () => {
      throw new Error('the work failed');
    })).rejects.toThrow('the work failed');
    expect(existsSync(path)).toBe(false);
    // A held lock: the work never starts.
    const held = lockPath({ pid: process.pid, host: hostname(), started: NOW.toISOString(), run_id: 'other' });
    let started = false;
    await expect(withLock(nodeFs, options(held), async () => {
      started = true;
    })).rejects.toMatchObject({ code: 'E_LOCKED' });
    expect(started).toBe(false);
  });
});
