import { basename, resolve } from 'node:path';
import { buildHookIndex, parseHookIndex, type HookRule } from '../memory/hook-index.js';
import { parseMemory } from '../memory/memory-md.js';
import { readState } from '../memory/state.js';
import type { TemplateMinerState } from '../templates/miner-state.js';
import { SCRATCH } from '../telemetry/hook-pending.js';
import { HOOK_INDEX_FILE, type HookDay } from './hook-day.js';
import { HOOK_KEYS_FILE, memoryKey, readHookKeys, renderHookKeys } from './hook-keys.js';

/**
 * The memory as the day-time hook reads it: the rules and templates of state.json (written atomically
 * by the night, so read without the lock: a running night never delays the agent) and the derived
 * bullets of the memory file now. Read through the hook index (memory/hook-index.ts), rebuilt when
 * either file changed. Read-only for memory and state.
 */
export interface HookMemory {
  rules: Record<string, HookRule>;
  templates: TemplateMinerState | undefined;
  /** Rule id -> bullet text in the memory file; null when that file is CLAUDE.md, which the agent reads itself. */
  memoryText: Map<string, string> | null;
  /** The derived bullets in file order (what is shown when the ledger cannot be read). */
  memoryOrder: string[];
  /** Why the ledger was not used, for the rejects file (null: it was). */
  problem: string | null;
}

export async function readHookMemory(day: HookDay): Promise<HookMemory> {
  const statePath = `${day.settings.state_dir}/state.json`;
  const memoryPath = day.settings.memory_file;
  const ownFile = basename(memoryPath).toLowerCase() !== 'claude.md';
  const key = await memoryKey(day);
  const indexPath = resolve(day.root, day.settings.state_dir, HOOK_INDEX_FILE);
  const kept = parseHookIndex(await day.fs.readText(indexPath).catch(() => undefined), key);
  if (kept !== null) {
    if ((await readHookKeys(day, key)) === null) await writeKeys(day, key, kept.rules, kept.templates);
    return fromIndex(kept.rules, kept.templates, kept.memory, null);
  }
  const memory = ownFile ? await readMemoryBullets(day, memoryPath) : null;
  try {
    const { state } = readState(await day.fs.readText(resolve(day.root, statePath)), statePath);
    const index = buildHookIndex(key, state, memory);
    // Caches: when they cannot be written (read-only checkout), the next call builds them again.
    await day.fs.writeAtomic(indexPath, `${JSON.stringify(index)}\n`, SCRATCH).catch(() => {});
    await writeKeys(day, key, index.rules, index.templates);
    return fromIndex(index.rules, index.templates, memory, null);
  } catch (error) {
    return fromIndex({}, undefined, memory, error instanceof Error ? error.message : String(error));
  }
}

/**
 * What mayRemind reads (hook-keys.ts): the families and categories of the failure rules, and those of the
 * clusters they cover (the index keeps those scopes' templates: a near duplicate of another tool's).
 */
async function writeKeys(day: HookDay, key: string, rules: Record<string, HookRule>, templates: TemplateMinerState | undefined): Promise<void> {
  const own = Object.values(rules).filter((rule) => rule.kind === 'failure').map((rule) => `${rule.tool_name}\u0000${rule.error_category ?? ''}`);
  const pairs = [...own, ...Object.keys(templates?.scopes ?? {})];
  await day.fs.writeAtomic(resolve(day.root, day.settings.state_dir, HOOK_KEYS_FILE), renderHookKeys(key, pairs), SCRATCH).catch(() => {});
}

function fromIndex(rules: Record<string, HookRule>, templates: TemplateMinerState | undefined, memory: [string, string][] | null, problem: string | null): HookMemory {
  return { rules, templates, memoryText: memory === null ? null : new Map(memory), memoryOrder: (memory ?? []).map(([id]) => id), problem };
}

async function readMemoryBullets(day: HookDay, path: string): Promise<[string, string][]> {
  const text = await day.fs.readText(resolve(day.root, path)).catch(() => undefined);
  return text === undefined ? [] : parseMemory(text).rules.map((rule) => [rule.id, rule.text]);
}
