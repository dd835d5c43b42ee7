import { basename, resolve } from 'node:path';
import { parseMemory } from '../memory/memory-md.js';
import { readState, type LedgerEntry } from '../memory/state.js';
import type { TemplateMinerState } from '../templates/miner-state.js';
import type { HookDay } from './hook-day.js';

/**
 * The memory as the day-time hook reads it: the rule ledger and templates from state.json (written
 * atomically by the night, so read without the lock: a running night never delays the agent), and the
 * derived bullets of the memory file now. Read-only.
 */
export interface HookMemory {
  rules: Record<string, LedgerEntry>;
  templates: TemplateMinerState | undefined;
  /** Rule id -> bullet text in the memory file; null when that file is CLAUDE.md, which the agent reads itself. */
  memoryText: Map<string, string> | null;
  /** The derived bullets in file order (what is shown when the ledger cannot be read). */
  memoryOrder: string[];
  /** Why the ledger was not used, for the rejects file (null: it was). */
  problem: string | null;
}

export async function readHookMemory(day: HookDay): Promise<HookMemory> {
  const memory = await readMemoryText(day);
  const statePath = `${day.settings.state_dir}/state.json`;
  try {
    const { state } = readState(await day.fs.readText(resolve(day.root, statePath)), statePath);
    return { rules: state.rules, templates: state.templates, ...memory, problem: null };
  } catch (error) {
    return { rules: {}, templates: undefined, ...memory, problem: error instanceof Error ? error.message : String(error) };
  }
}

async function readMemoryText(day: HookDay): Promise<Pick<HookMemory, 'memoryText' | 'memoryOrder'>> {
  const file = day.settings.memory_file;
  if (basename(file).toLowerCase() === 'claude.md') return { memoryText: null, memoryOrder: [] };
  const text = await day.fs.readText(resolve(day.root, file)).catch(() => undefined);
  const rules = text === undefined ? [] : parseMemory(text).rules;
  return { memoryText: new Map(rules.map((rule) => [rule.id, rule.text])), memoryOrder: rules.map((rule) => rule.id) };
}
