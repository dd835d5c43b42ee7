import type { TemplateMinerState } from '../templates/miner-state.js';
import type { LedgerEntry, State } from './state.js';

/**
 * What the day-time hook needs of the memory, small: per rule its cluster key and the fields that
 * order it, the templates of the scopes rules are about, and the memory file's derived bullets. The
 * hook keeps it in `<state_dir>/hook-index.json`, keyed by the identity of state.json and the memory
 * file, and rebuilds it (from the full, checked state) only when one of them changed: a session start
 * on a memory of 500 rules then parses a few kilobytes instead of the whole ledger and its evidence.
 */
export type HookRule = Pick<LedgerEntry, 'id' | 'kind' | 'tool_name' | 'error_category' | 'cluster_id' | 'text' | 'target' | 'state' | 'pinned' | 'hits'>
  & { status: NonNullable<LedgerEntry['status']>; weight: number; template_id: string | null; covers: string[]; count: number };

export interface HookIndex {
  version: 1;
  /** The files it was built from (path → size, mtime, inode; null when missing). */
  key: string;
  rules: Record<string, HookRule>;
  templates: TemplateMinerState | undefined;
  /** The memory file's derived bullets, in file order (null when the agent reads that file itself). */
  memory: [string, string][] | null;
}

export function buildHookIndex(key: string, state: Pick<State, 'rules' | 'templates'>, memory: [string, string][] | null): HookIndex {
  const rules: Record<string, HookRule> = {};
  const scopes = new Set<string>();
  for (const rule of Object.values(state.rules)) {
    if (rule.state === 'rejected' || rule.state === 'deleted') continue;
    rules[rule.id] = hookRule(rule);
    if (rule.kind === 'failure') scopes.add(`${rule.tool_name}\u0000${rule.error_category ?? ''}`);
  }
  const all = state.templates?.scopes ?? {};
  const templates = state.templates ? { version: 1 as const, scopes: Object.fromEntries(Object.entries(all).filter(([scope]) => scopes.has(scope))) } : undefined;
  return { version: 1, key, rules, templates, memory };
}

function hookRule(rule: LedgerEntry): HookRule {
  return {
    id: rule.id, kind: rule.kind, tool_name: rule.tool_name, error_category: rule.error_category, cluster_id: rule.cluster_id,
    text: rule.text, target: rule.target, state: rule.state, pinned: rule.pinned, hits: rule.hits,
    status: rule.status ?? (rule.pinned ? 'validated' : 'active'), weight: rule.weight ?? 1,
    template_id: rule.template_id ?? null, covers: rule.covers ?? [], count: rule.provenance.count,
  };
}

/** The index kept for `key`, or null (missing, torn, another version, or built from other files). */
export function parseHookIndex(text: string | undefined, key: string): HookIndex | null {
  if (text === undefined) return null;
  try {
    const index = JSON.parse(text) as HookIndex;
    return index?.version === 1 && index.key === key && typeof index.rules === 'object' && index.rules !== null ? index : null;
  } catch {
    return null;
  }
}
