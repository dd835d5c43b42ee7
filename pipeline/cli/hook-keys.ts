import { basename, resolve } from 'node:path';
import type { TelemetryEvent } from '../telemetry/event.js';
import { toolFamily } from '../telemetry/tool-family.js';
import type { HookDay } from './hook-day.js';

/**
 * The quick answer for most failures: no rule is about this tool family and category, so no reminder,
 * without loading the reminder's code or the hook index. `<state_dir>/hook-keys.json` lists the
 * families and categories of the rules (written with the index, under the same key). Conservative: a
 * missing or stale list, or a name the night would clean differently, says "maybe".
 */
export const HOOK_KEYS_FILE = 'hook-keys.json';

/** The identity of the files the index and this list are built from (see hook-memory.ts). */
export async function memoryKey(day: Pick<HookDay, 'root' | 'settings' | 'fs'>): Promise<string> {
  const memoryPath = day.settings.memory_file;
  const ownFile = basename(memoryPath).toLowerCase() !== 'claude.md';
  return JSON.stringify([await identity(day, `${day.settings.state_dir}/state.json`), ownFile ? await identity(day, memoryPath) : null]);
}

async function identity(day: Pick<HookDay, 'root' | 'fs'>, path: string): Promise<[string, number, number, number] | null> {
  const id = await day.fs.identify(resolve(day.root, path)).catch(() => undefined);
  return id === undefined ? null : [path, id.size, id.mtimeMs, id.ino];
}

export function renderHookKeys(key: string, pairs: Iterable<string>): string {
  return `${JSON.stringify({ version: 2, key, pairs: [...new Set(pairs)].sort() })}\n`;
}

/** The families and categories of the rules, when the list was built from the files as they are now. */
export async function readHookKeys(day: Pick<HookDay, 'root' | 'settings' | 'fs'>, key: string): Promise<string[] | null> {
  const text = await day.fs.readText(resolve(day.root, day.settings.state_dir, HOOK_KEYS_FILE)).catch(() => undefined);
  if (text === undefined) return null;
  try {
    const list = JSON.parse(text) as { version?: unknown; key?: unknown; pairs?: unknown };
    return list.version === 2 && list.key === key && Array.isArray(list.pairs) ? list.pairs.filter((p): p is string => typeof p === 'string') : null;
  } catch {
    return null;
  }
}

/**
 * False only when the list is current and holds no rule for this failure's family and category.
 * `categoryOf` is asked only when a rule is about the family: the classifier's patterns are the most
 * expensive thing a hook could compile, and most failures have no rule.
 */
export async function mayRemind(event: TelemetryEvent, day: Pick<HookDay, 'root' | 'settings' | 'fs'>, categoryOf: () => string): Promise<boolean> {
  const pairs = await readHookKeys(day, await memoryKey(day));
  if (pairs === null) return true;
  const family = toolFamily(event.tool_name, event.input_summary, event.error_message);
  // Names the night would redact or clean (ingest/cluster.ts): let the full match decide.
  if (!PLAIN.test(family)) return true;
  if (!pairs.some((pair) => pair.startsWith(`${family}\u0000`))) return false;
  const category = categoryOf();
  return !PLAIN.test(category) || pairs.includes(`${family}\u0000${category}`);
}

/** Names ingest keeps as they are (cleanIdentifier and redact change none of them). */
const PLAIN = /^[A-Za-z0-9](?:[A-Za-z0-9_.:-]{0,30}[A-Za-z0-9.:-])?$/;
