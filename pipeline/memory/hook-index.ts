import { clusterId } from '../model/cluster.js';
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
  version: 2;
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
  const covered = new Set<string>();
  for (const rule of Object.values(state.rules)) {
    if (rule.state === 'rejected' || rule.state === 'deleted') continue;
    const hook = hookRule(rule);
    rules[rule.id] = hook;
    if (rule.kind !== 'failure') continue;
    scopes.add(`${rule.tool_name}\u0000${rule.error_category ?? ''}`);
    for (const id of hook.covers) covered.add(id);
  }
  const all = state.templates?.scopes ?? {};
  for (const scope of scopesOf(covered, all)) scopes.add(scope);
  const templates = state.templates ? { version: 1 as const, scopes: Object.fromEntries(Object.entries(all).filter(([scope]) => scopes.has(scope))) } : undefined;
  return { version: 2, key, rules, templates, memory };
}

/**
 * The template scopes the covered clusters belong to: a rule can cover clusters of other tools (a near
 * duplicate's, see memory/corroborate.ts), and the hook must match a failure of that tool against its
 * scope's templates to find the rule. Cluster ids are hashes, so each scope's ids are computed and looked up.
 */
function scopesOf(covered: ReadonlySet<string>, all: TemplateMinerState['scopes']): string[] {
  if (covered.size === 0) return [];
  const found: string[] = [];
  for (const [scope, list] of Object.entries(all)) {
    const [tool = '', category = ''] = scope.split('\u0000');
    const ids = [clusterId('failure', tool, category || null), ...list.map((t) => clusterId('failure', tool, category || null, t.id))];
    if (ids.some((id) => covered.has(id))) found.push(scope);
  }
  return found;
}

function hookRule(rule: LedgerEntry): HookRule {
  return {
    id: rule.id, kind: rule.kind, tool_name: rule.tool_name, error_category: rule.error_category, cluster_id: rule.cluster_id,
    text: rule.text, target: rule.target, state: rule.state, pinned: rule.pinned, hits: rule.hits,
    status: rule.status ?? (rule.pinned ? 'validated' : 'active'), weight: rule.weight ?? 1,
    template_id: rule.template_id ?? null, count: rule.provenance.count,
    // The clusters it speaks for besides its own: a group's templates, and near duplicates it took in.
    covers: [...new Set([...(rule.covers ?? []), ...(rule.near_duplicates ?? [])])],
  };
}

/** The index kept for `key`, or null (missing, torn, another version, or built from other files). */
export function parseHookIndex(text: string | undefined, key: string): HookIndex | null {
  if (text === undefined) return null;
  try {
    const index = JSON.parse(text) as HookIndex;
    return index?.version === 2 && index.key === key && typeof index.rules === 'object' && index.rules !== null ? index : null;
  } catch {
    return null;
  }
}
