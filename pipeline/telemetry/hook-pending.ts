import type { FsPort } from '../io/fs.js';
import { parseTable, pruneTable, renderTable } from './scratch-table.js';

/**
 * The hook's pending table: `tool_use_id → arrival time (epoch ms)` of PreToolUse payloads, so the
 * PostToolUse(/Failure) of the same call gets a duration; and `ask:<hash> → time` of PermissionRequest
 * payloads, so the call knows a human was asked (its wait is not the tool's). Claude Code sends neither a duration nor a
 * timestamp. Bounded: entries older than an hour (a call whose Post never came) are dropped and at
 * most 1,000 of the newest are kept. Written atomically through the fs port, under a short lock file
 * because parallel tool calls fire their hooks at the same moment.
 */
export type PendingTable = Map<string, number>;

export const PENDING_MAX_AGE_MS = 60 * 60 * 1000;
export const PENDING_MAX_ENTRIES = 1000;
/** The hook's tables are scratch (a lost one costs a duration or one reminder more): written without fsync. */
export const SCRATCH = { durable: false } as const;

/** Tolerant: a missing, torn or foreign file is an empty table (the worst case is a duration of 0). */
export function parsePending(text: string | undefined): PendingTable {
  return parseTable(text, 'pending', (at) => (typeof at === 'number' && Number.isFinite(at) ? at : undefined));
}

/** Drops entries older than the max age (or from the future), then keeps the newest `maxEntries`. */
export function prunePending(table: PendingTable, nowMs: number, maxEntries = PENDING_MAX_ENTRIES): PendingTable {
  return pruneTable(table, nowMs, PENDING_MAX_AGE_MS, maxEntries, (at) => at);
}

export function renderPending(table: PendingTable): string {
  return renderTable('pending', table);
}

/** Stores a PreToolUse arrival. */
export async function recordPending(fs: FsPort, path: string, toolUseId: string, nowMs: number): Promise<void> {
  await withPendingLock(fs, path, nowMs, async () => {
    const table = prunePending(parsePending(await fs.readText(path)), nowMs);
    table.set(toolUseId, nowMs);
    await fs.writeAtomic(path, renderPending(prunePending(table, nowMs)), SCRATCH);
  });
}

/** Removes and returns a call's PreToolUse arrival time; undefined when it was never seen (or expired). */
export async function claimPending(fs: FsPort, path: string, toolUseId: string, nowMs: number): Promise<number | undefined> {
  return (await claimPendingAll(fs, path, [toolUseId], nowMs)).get(toolUseId);
}

/**
 * Removes and returns the entries of several keys at once, under one lock (a call's PreToolUse by its
 * tool_use_id, its permission prompt by its `ask:` key): only those that were there.
 */
export async function claimPendingAll(fs: FsPort, path: string, keys: readonly string[], nowMs: number): Promise<Map<string, number>> {
  return withPendingLock(fs, path, nowMs, async () => {
    const found = new Map<string, number>();
    const text = await fs.readText(path);
    if (text === undefined) return found;
    const table = prunePending(parsePending(text), nowMs);
    for (const key of keys) {
      const at = table.get(key);
      if (at === undefined) continue;
      found.set(key, at);
      table.delete(key);
    }
    if (found.size > 0) await fs.writeAtomic(path, renderPending(table), SCRATCH);
    return found;
  });
}

/** Parallel tool calls fire their hooks at once; without a lock, read-modify-write loses entries. */
const LOCK_ATTEMPTS = 60;
const LOCK_RETRY_MS = 5;
/** A lock older than this was left by a killed hook (each holds it for a few milliseconds). */
const LOCK_STALE_MS = 2000;

/**
 * Runs `fn` holding `<path>.lock` (created exclusively). Bounded: after ~0.3 s of waiting it runs
 * anyway, because a lost duration is cheaper than a stalled agent.
 */
export async function withPendingLock<T>(fs: FsPort, path: string, nowMs: number, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  let held = false;
  let torn = 0;
  for (let attempt = 0; attempt < LOCK_ATTEMPTS && !held; attempt += 1) {
    held = await fs.createExclusive(lock, `${JSON.stringify({ pid: process.pid, at: nowMs })}\n`);
    if (held) break;
    const state = lockState(await fs.readText(lock), nowMs);
    torn = state === 'torn' ? torn + 1 : 0;
    // Torn for several retries in a row: its holder died between creating and writing it.
    if (state === 'stale' || torn >= 3) await fs.remove(lock);
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS + Math.floor(Math.random() * LOCK_RETRY_MS)));
  }
  try {
    return await fn();
  } finally {
    if (held) await fs.remove(lock);
  }
}

function lockState(text: string | undefined, nowMs: number): 'live' | 'stale' | 'torn' {
  if (text === undefined) return 'live';
  try {
    const at = (JSON.parse(text) as { at?: unknown }).at;
    return typeof at === 'number' && nowMs - at <= LOCK_STALE_MS ? 'live' : 'stale';
  } catch {
    return 'torn';
  }
}
