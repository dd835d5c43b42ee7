import { resolve } from 'node:path';
import { appendExposure } from '../telemetry/exposure.js';
import { SCRATCH } from '../telemetry/hook-pending.js';
import type { HookDay, HookOutput, HookResult } from './hook-day.js';
import { memoryKey } from './hook-keys.js';

/**
 * SessionStart's answer, kept: `<state_dir>/hook-session.json` holds the context the last session start
 * built (its text, the rules shown, how many did not fit) under the identity of state.json and the memory
 * file it was built from (hook-keys.ts's key) and the budget. Every session start until the night or a
 * human changes one of those files prints it as it is, without loading the ledger, the memory file or the
 * ranking (hook-session-start.ts, which writes it). Not kept when skill rules are in memory (which of them
 * show depends on the tools used lately, read from the log each time) or when the ledger could not be read.
 */
export const SESSION_CACHE_FILE = 'hook-session.json';

export interface CachedSessionContext {
  text: string;
  shown: string[];
  omitted: number;
}

/** The kept context when it was built from the files as they are now and for this budget; null otherwise. */
export async function readSessionCache(day: Pick<HookDay, 'root' | 'settings' | 'fs'>): Promise<CachedSessionContext | null> {
  const text = await day.fs.readText(cachePath(day)).catch(() => undefined);
  if (text === undefined) return null;
  try {
    const kept = JSON.parse(text) as { version?: unknown; key?: unknown; budget?: unknown; context?: { text?: unknown; shown?: unknown; omitted?: unknown } };
    const context = kept.context;
    if (kept.version !== 1 || kept.budget !== day.settings.context_budget_chars || typeof context !== 'object' || context === null) return null;
    if (typeof context.text !== 'string' || !isStringList(context.shown) || typeof context.omitted !== 'number') return null;
    // Last, as it stats two files: a cache that is not even well-formed never costs them.
    if (kept.key !== (await memoryKey(day))) return null;
    return { text: context.text, shown: context.shown, omitted: context.omitted };
  } catch {
    return null;
  }
}

/** Best effort (a read-only checkout rebuilds it each time); the key is taken before the files were read. */
export async function writeSessionCache(day: Pick<HookDay, 'root' | 'settings' | 'fs'>, key: string, context: CachedSessionContext): Promise<void> {
  const body = { version: 1, key, budget: day.settings.context_budget_chars, context };
  await day.fs.writeAtomic(cachePath(day), `${JSON.stringify(body)}\n`, SCRATCH).catch(() => {});
}

/** What the agent gets (nothing when no rule is shown) and the exposure line naming the rules shown. */
export async function presentSessionContext(context: CachedSessionContext, sessionId: string | undefined, day: HookDay, notice: string | null): Promise<{ result: HookResult; output: HookOutput | null }> {
  const result: HookResult = { outcome: 'context', shown: context.shown, omitted: context.omitted, notice };
  if (context.shown.length === 0) return { result, output: null };
  await appendExposure(resolve(day.root, day.settings.logs[0]!), 'session_start', context.shown, sessionId, day.arrival);
  return { result, output: { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context.text } } };
}

function cachePath(day: Pick<HookDay, 'root' | 'settings'>): string {
  return resolve(day.root, day.settings.state_dir, SESSION_CACHE_FILE);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
