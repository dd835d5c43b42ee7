import { createHash } from 'node:crypto';

/** A normalized first line of the error messages, with how often it was seen. */
export interface Signature {
  text: string;
  count: number;
}

/** One piece of evidence: where the line is, which input it was, and its redacted message. */
export interface Evidence {
  file: string;
  offset: number;
  input_hash: string;
  session_id: string | null;
  timestamp: string;
  duration_ms: number;
  message: string;
}


export type ClusterKind = 'failure' | 'slow';

export interface Cluster {
  id: string;
  kind: ClusterKind;
  tool_name: string;
  error_category: string | null;
  count: number;
  distinct_inputs: number;
  input_hashes: string[];
  sessions: string[];
  first_seen: string;
  last_seen: string;
  /** Events per UTC day (YYYY-MM-DD), so carried-over counts can leave the window day by day. */
  days: Record<string, number>;
  samples: Evidence[];
  signatures: Signature[];
  /** For slow clusters: the baseline (ms) the calls were judged against. */
  baseline_ms: number | null;
}

export interface EventRef {
  file: string;
  offset: number;
}

/** A stable id from the cluster key: the same tool, category and kind get the same id every night. */
export function clusterId(kind: ClusterKind, toolName: string, category: string | null): string {
  const key = `${kind}\u0000${toolName}\u0000${category ?? ''}`;
  return `c-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

export interface PromotedCluster extends Cluster {
  /** How many of `count` were carried over from earlier nights. */
  carried_over: number;
  /** Set when an earlier rule for this cluster proved ineffective: the new rule supersedes it. */
  refines?: Refines;
}

export interface Refines {
  rule_id: string;
  before_per_day: number;
  after_per_day: number;
}

export type ClusterOutcome = 'promoted' | 'pending' | 'covered' | 'restored' | 'burned';

export interface Recurrence {
  rule_id: string;
  cluster_id: string;
  count: number;
  last_seen: string;
}

