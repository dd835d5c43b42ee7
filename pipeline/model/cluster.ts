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
  /**
   * A failure cluster's error template (its error line, variables masked as `<*>`) and the template's id;
   * null for slow clusters and for a family's templates promoted together (see `templates`).
   */
  template_id?: string | null;
  template?: string | null;
  /** The id of the tool family + category this cluster belongs to (the whole cluster before templates). */
  family_id?: string;
  /** For templates of one family promoted together: the templates the rule speaks for. */
  templates?: TemplateRef[];
  /** What worked next: the successful calls of the same family that followed these failures, most common first. */
  follow_ups?: FollowUp[];
}

/** A call that succeeded right after a failure, in the same session: its shape, how often, and where. */
export interface FollowUp {
  shape: string;
  count: number;
  /** Sessions it was seen in (the smallest ids, up to 20; `count` counts them all). */
  sessions: string[];
}

/** A template a cluster stands for: its id, text and how often it was seen. */
export interface TemplateRef {
  id: string;
  template: string;
  count: number;
}

export interface EventRef {
  file: string;
  offset: number;
}

/**
 * A stable id from the cluster key: the same tool family, category, kind (and template) get the same id
 * every night. Without a template it is the family's id, which is also what a cluster was before
 * templates existed, so rules written then keep their cluster.
 */
export function clusterId(kind: ClusterKind, toolName: string, category: string | null, templateId: string | null = null): string {
  const key = `${kind}\u0000${toolName}\u0000${category ?? ''}${templateId === null ? '' : `\u0000${templateId}`}`;
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
  /** The figures that made it ineffective, in words (per 100 calls or per day; see memory/effectiveness.ts). */
  why?: string;
}

export type ClusterOutcome = 'promoted' | 'pending' | 'covered' | 'restored' | 'burned';

export interface Recurrence {
  rule_id: string;
  cluster_id: string;
  count: number;
  last_seen: string;
}

