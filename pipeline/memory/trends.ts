import type { LifecycleEvent } from './lifecycle.js';
import type { NightRecord } from './night-history.js';
import { ruleStats } from './rule-list.js';
import type { State } from './state-types.js';

/** What the trend page and the report's trend table plot, computed from state and the audit log. */
export interface Trends {
  nights: { time: string; run: string; failures: number; slow: number }[];
  /** The clusters that were heaviest on any night, with their count per night (0 when absent). */
  clusters: { id: string; label: string; counts: number[] }[];
  /** Per run that changed rules: rules added, archived and restored. */
  runs: { run: string; time: string; added: number; archived: number; restored: number }[];
  /** Rules whose effectiveness was measured: failures a day of their cluster before and after adoption. */
  rules: { id: string; label: string; before_per_day: number; after_per_day: number; verdict: string }[];
}

const CLUSTERS_SHOWN = 8;

export function buildTrends(state: State, events: LifecycleEvent[], now: Date): Trends {
  const nights: NightRecord[] = state.nights ?? [];
  const totals = new Map<string, number>();
  for (const night of nights) for (const [id, n] of Object.entries(night.clusters)) totals.set(id, (totals.get(id) ?? 0) + n);
  const heaviest = [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, CLUSTERS_SHOWN).map(([id]) => id);
  const stats = ruleStats(state, events, undefined, now);
  return {
    nights: nights.map((n) => ({ time: n.time, run: n.run, failures: n.failures, slow: n.slow })),
    clusters: heaviest.map((id) => ({ id, label: clusterLabel(state, id), counts: nights.map((n) => n.clusters[id] ?? 0) })),
    runs: stats.runs.map(({ run, time, added, archived, restored }) => ({ run, time, added, archived, restored })),
    rules: Object.values(state.rules)
      .filter((rule) => rule.effectiveness)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((rule) => ({
        id: rule.id, label: `${rule.tool_name}${rule.error_category ? ` / ${rule.error_category}` : ''}`,
        before_per_day: rule.effectiveness!.before_per_day, after_per_day: rule.effectiveness!.after_per_day, verdict: rule.effectiveness!.verdict,
      })),
  };
}

/** A cluster's name for a legend: its rule's or pending entry's tool, category and template. */
function clusterLabel(state: State, id: string): string {
  const rule = Object.values(state.rules).find((r) => r.cluster_id === id || r.covers?.includes(id));
  const known = rule ?? state.pending[id];
  if (!known) return id;
  const template = 'template' in known && known.template ? `: ${known.template}` : '';
  return `${known.tool_name}${known.error_category ? ` / ${known.error_category}` : ''}${template}`;
}
