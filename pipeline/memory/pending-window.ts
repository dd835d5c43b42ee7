import type { PendingCluster } from './state.js';

/**
 * The first day (YYYY-MM-DD, UTC) of the rolling window of `windowDays` that ends at `end`. The gate
 * counts a cluster's events from this day on; `status` and `review` count with it too, so the three
 * never disagree about how close a pending cluster is to becoming a rule.
 */
export function windowStartDay(end: Date, windowDays: number): string {
  return new Date(end.getTime() - windowDays * 86_400_000).toISOString().slice(0, 10);
}

/** A pending cluster as `status` and `review` show it. */
export interface PendingSummary {
  id: string;
  kind: PendingCluster['kind'];
  tool_name: string;
  error_category: string | null;
  /** Events inside the window ending at `now`: what the next run counts toward min_repeats if nothing new arrives. */
  count: number;
  last_seen: string;
}

export function summarizePending(pending: Record<string, PendingCluster>, now: Date, windowDays: number): PendingSummary[] {
  const start = windowStartDay(now, windowDays);
  return Object.values(pending).map(({ id, kind, tool_name, error_category, days, last_seen }) => ({
    id, kind, tool_name, error_category, count: Object.entries(days).reduce((sum, [day, n]) => (day >= start ? sum + n : sum), 0), last_seen,
  }));
}
