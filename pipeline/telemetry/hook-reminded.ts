import type { FsPort } from '../io/fs.js';
import { SCRATCH, withPendingLock } from './hook-pending.js';
import { parseTable, pruneTable, renderTable } from './scratch-table.js';

/**
 * Which rules each session was already reminded of (`.sleep-cycle/hook-reminded.json`), so the
 * just-in-time reminder comes at most once per rule per session. Small and self-cleaning: a session
 * untouched for a day is dropped, at most MAX_SESSIONS are kept (the most recent) and MAX_RULES per
 * session. A missing, torn or foreign file is an empty table: the worst case is one reminder more.
 */
export interface RemindedSession {
  /** Last reminder (epoch ms). */
  at: number;
  rules: string[];
}

export type RemindedTable = Map<string, RemindedSession>;

export const REMINDED_MAX_AGE_MS = 24 * 60 * 60 * 1000;
export const REMINDED_MAX_SESSIONS = 200;
export const REMINDED_MAX_RULES = 100;

export function parseReminded(text: string | undefined): RemindedTable {
  return parseTable(text, 'sessions', (value) => {
    const { at, rules } = (value ?? {}) as { at?: unknown; rules?: unknown };
    if (typeof at !== 'number' || !Number.isFinite(at) || !Array.isArray(rules)) return undefined;
    return { at, rules: rules.filter((rule): rule is string => typeof rule === 'string').slice(0, REMINDED_MAX_RULES) };
  });
}

/** Drops sessions idle for more than a day (or dated in the future), then keeps the most recent. */
export function pruneReminded(table: RemindedTable, nowMs: number): RemindedTable {
  return pruneTable(table, nowMs, REMINDED_MAX_AGE_MS, REMINDED_MAX_SESSIONS, (session) => session.at);
}

export function renderReminded(table: RemindedTable): string {
  return renderTable('sessions', table);
}

/**
 * Records that `session` is reminded of `ruleId` now; false when it already was (then nothing is
 * written). Under the pending table's short lock: parallel failures of one session fire at once.
 */
export async function claimReminder(fs: FsPort, path: string, session: string, ruleId: string, nowMs: number): Promise<boolean> {
  return withPendingLock(fs, path, nowMs, async () => {
    const table = pruneReminded(parseReminded(await fs.readText(path)), nowMs);
    const seen = table.get(session);
    if (seen?.rules.includes(ruleId)) return false;
    const rules = [...(seen?.rules ?? []), ruleId].slice(-REMINDED_MAX_RULES);
    table.set(session, { at: nowMs, rules });
    await fs.writeAtomic(path, renderReminded(pruneReminded(table, nowMs)), SCRATCH);
    return true;
  });
}
