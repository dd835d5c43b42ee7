import type { FsPort } from '../io/fs.js';
import { SCRATCH, withPendingLock } from './hook-pending.js';

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
  const table: RemindedTable = new Map();
  if (text === undefined) return table;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return table;
  }
  const sessions = (data as { sessions?: unknown } | null)?.sessions;
  if (typeof sessions !== 'object' || sessions === null || Array.isArray(sessions)) return table;
  for (const [id, value] of Object.entries(sessions)) {
    const { at, rules } = (value ?? {}) as { at?: unknown; rules?: unknown };
    if (typeof at !== 'number' || !Number.isFinite(at) || !Array.isArray(rules)) continue;
    table.set(id, { at, rules: rules.filter((rule): rule is string => typeof rule === 'string').slice(0, REMINDED_MAX_RULES) });
  }
  return table;
}

/** Drops sessions idle for more than a day (or dated in the future), then keeps the most recent. */
export function pruneReminded(table: RemindedTable, nowMs: number): RemindedTable {
  const fresh = [...table].filter(([, s]) => nowMs - s.at <= REMINDED_MAX_AGE_MS && s.at - nowMs <= REMINDED_MAX_AGE_MS);
  fresh.sort((a, b) => b[1].at - a[1].at || (a[0] < b[0] ? -1 : 1));
  return new Map(fresh.slice(0, REMINDED_MAX_SESSIONS));
}

export function renderReminded(table: RemindedTable): string {
  const sorted = [...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify({ version: 1, sessions: Object.fromEntries(sorted) })}\n`;
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
