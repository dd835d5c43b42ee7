import { clusterId } from '../model/cluster.js';
import { combinePending } from './pending-merge.js';
import type { State } from './state.js';

/** What a pending entry keeps (the gate's bounds). */
const KEPT_IDS = 50;
const SAMPLE_SIZE = 5;

/**
 * When a template generalises, the templates it absorbed stop existing: what was keyed by them follows
 * it. Pending clusters of an absorbed template are added to the new template's (their days, inputs and
 * sessions summed), rules move to the new template's cluster, and so do burns. `merged` maps an old
 * template id to the id it merged into (the miner's `merged()`), resolved to the last one.
 */
export function followTemplateMerges(state: State, merged: ReadonlyMap<string, string>): State {
  if (merged.size === 0) return state;
  const final = (id: string): string => {
    let at = id;
    for (let hops = 0; merged.has(at) && hops < 64; hops++) at = merged.get(at)!;
    return at;
  };
  const moves = new Map<string, { to: string; template_id: string }>();
  const move = (tool: string, category: string | null, templateId: string | null | undefined): { to: string; template_id: string } | null => {
    if (!templateId || !merged.has(templateId)) return null;
    const next = final(templateId);
    const from = clusterId('failure', tool, category, templateId);
    const to = { to: clusterId('failure', tool, category, next), template_id: next };
    moves.set(from, to);
    return to;
  };
  const pending: State['pending'] = {};
  for (const [id, item] of Object.entries(state.pending)) {
    const target = move(item.tool_name, item.error_category, item.template_id);
    const key = target?.to ?? id;
    const moved = target ? { ...item, id: key, template_id: target.template_id } : item;
    pending[key] = pending[key] ? combinePending(pending[key]!, moved, KEPT_IDS, SAMPLE_SIZE) : moved;
  }
  const rules: State['rules'] = {};
  for (const [id, rule] of Object.entries(state.rules)) {
    const target = move(rule.tool_name, rule.error_category, rule.template_id);
    const covers = rule.covers?.map((covered) => moves.get(covered)?.to ?? covered);
    rules[id] = { ...rule, ...(target ? { cluster_id: target.to, template_id: target.template_id } : {}), ...(covers ? { covers: [...new Set(covers)] } : {}) };
  }
  const burned: State['burned'] = {};
  for (const [id, burn] of Object.entries(state.burned)) burned[moves.get(id)?.to ?? id] = burn;
  return { ...state, pending, rules, burned };
}
