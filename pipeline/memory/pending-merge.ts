import type { Evidence, Signature } from '../model/cluster.js';
import type { PendingCluster } from './state-types.js';

/**
 * How the counts and evidence of two views of one cluster combine (tonight's and a carried-over one, the
 * templates promoted together, a template and the ones it absorbed): the gate and the template merges
 * share these, so a cluster's evidence reads the same whichever way it was put together.
 */
export function sumDays(days: Record<string, number>): number {
  return Object.values(days).reduce((total, n) => total + n, 0);
}

export function addDays(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const days = { ...a };
  for (const [day, n] of Object.entries(b)) days[day] = (days[day] ?? 0) + n;
  return Object.fromEntries(Object.entries(days).sort());
}

export function unionIds(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** The newest `size` samples of both, one per place in the log. */
export function mergeSamples(a: Evidence[], b: Evidence[], size: number): Evidence[] {
  const byPlace = new Map([...a, ...b].map((item) => [`${item.file}:${item.offset}`, item]));
  return [...byPlace.values()].sort((x, y) => (x.timestamp < y.timestamp ? -1 : 1)).slice(-size);
}

/** The five most frequent signatures of both, counts added. */
export function mergeSignatures(a: Signature[], b: Signature[]): Signature[] {
  const counts = new Map<string, number>();
  for (const item of [...a, ...b]) counts.set(item.text, (counts.get(item.text) ?? 0) + item.count);
  return [...counts]
    .map(([text, count]) => ({ text, count }))
    .sort((x, y) => y.count - x.count || (x.text < y.text ? -1 : 1))
    .slice(0, 5);
}

/** Two pending entries of one cluster as one (the first's identity). */
export function combinePending(a: PendingCluster, b: PendingCluster, keptIds: number, sampleSize: number): PendingCluster {
  return {
    ...a,
    days: addDays(a.days, b.days),
    input_hashes: unionIds(a.input_hashes, b.input_hashes).slice(0, keptIds),
    sessions: unionIds(a.sessions, b.sessions).slice(0, keptIds),
    first_seen: a.first_seen < b.first_seen ? a.first_seen : b.first_seen,
    last_seen: a.last_seen > b.last_seen ? a.last_seen : b.last_seen,
    samples: mergeSamples(a.samples, b.samples, sampleSize),
    signatures: mergeSignatures(a.signatures, b.signatures),
  };
}
