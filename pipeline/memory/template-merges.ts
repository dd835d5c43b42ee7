import { clusterId } from '../model/cluster.js';
import type { State } from './state.js';

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
    pending[key] = pending[key] ? combine(pending[key]!, moved) : moved;
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

function combine(a: State['pending'][string], b: State['pending'][string]): State['pending'][string] {
  const days = { ...a.days };
  for (const [day, n] of Object.entries(b.days)) days[day] = (days[day] ?? 0) + n;
  return {
    ...a,
    days: Object.fromEntries(Object.entries(days).sort()),
    input_hashes: [...new Set([...a.input_hashes, ...b.input_hashes])].sort().slice(0, 50),
    sessions: [...new Set([...a.sessions, ...b.sessions])].sort().slice(0, 50),
    first_seen: a.first_seen < b.first_seen ? a.first_seen : b.first_seen,
    last_seen: a.last_seen > b.last_seen ? a.last_seen : b.last_seen,
    samples: [...a.samples, ...b.samples].sort((x, y) => (x.timestamp < y.timestamp ? -1 : 1)).slice(-5),
    signatures: [...a.signatures, ...b.signatures].sort((x, y) => y.count - x.count).slice(0, 5),
  };
}
