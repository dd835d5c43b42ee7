import type { Cluster } from '../model/cluster.js';

/**
 * One night in `state.nights`: how many failures it read and its heaviest clusters. The trend pages
 * (`report --html`, the report's trend table) plot these; nothing decides anything from them.
 */
export interface NightRecord {
  /** When the night ran (ISO-8601). */
  time: string;
  run: string;
  /** Failures clustered tonight (benign misses are never clustered). */
  failures: number;
  slow: number;
  /** Tonight's count per failure cluster, the heaviest `CLUSTERS_KEPT` only. */
  clusters: Record<string, number>;
}

/** Nights kept: a quarter of a year of nightly runs. */
export const NIGHTS_KEPT = 120;
const CLUSTERS_KEPT = 12;

/**
 * The history with tonight appended, or unchanged when tonight read no failure and no slow call: a
 * night with nothing new writes nothing (no commit), and the page shows the gap by its dates.
 */
export function recordNight(history: readonly NightRecord[] | undefined, clusters: readonly Cluster[], now: Date, run: string): NightRecord[] | undefined {
  const failures = clusters.filter((c) => c.kind === 'failure');
  const slow = clusters.filter((c) => c.kind === 'slow').reduce((n, c) => n + c.count, 0);
  const total = failures.reduce((n, c) => n + c.count, 0);
  if (total === 0 && slow === 0) return history === undefined ? undefined : [...history];
  const heaviest = [...failures].sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)).slice(0, CLUSTERS_KEPT);
  const night: NightRecord = { time: now.toISOString(), run, failures: total, slow, clusters: Object.fromEntries(heaviest.map((c) => [c.id, c.count])) };
  return [...(history ?? []), night].slice(-NIGHTS_KEPT);
}
