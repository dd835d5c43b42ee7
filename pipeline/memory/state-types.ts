import type { NightRecord } from './night-history.js';
import type { Evidence, FollowUp, Signature } from '../model/cluster.js';
import type { TemplateMinerState } from '../templates/miner-state.js';
import type { EmbeddingCache } from './similarity.js';

/** The shapes of `.sleep-cycle/state.json` (described for the loader in state-schema.ts). */

/** Where reading stopped in one telemetry file, and how to recognise that file again. */
export interface Cursor {
  path: string;
  offset: number;
  /** SHA-256 (16 hex) of the first min(offset, 1024) bytes: same content survives a fresh clone. */
  head_sha: string;
  /** SHA-256 (16 hex) of the 256 bytes before `offset`: a replaced file rarely matches both. */
  tail_sha: string;
  last_timestamp: string | null;
}

export interface Baseline {
  mean_ms: number;
  count: number;
}

/** A cluster seen fewer than `min_repeats` times so far, carried over inside the window. */
export interface PendingCluster {
  id: string;
  kind: 'failure' | 'slow';
  tool_name: string;
  error_category: string | null;
  days: Record<string, number>;
  input_hashes: string[];
  sessions: string[];
  first_seen: string;
  last_seen: string;
  samples: Evidence[];
  signatures: Signature[];
  baseline_ms?: number | null;
  /** The cluster's error template and the id of its tool family + category (absent before templates). */
  template_id?: string | null;
  template?: string | null;
  family_id?: string;
  /** What worked next (see Cluster.follow_ups). */
  follow_ups?: FollowUp[];
}

/**
 * Where a rule is in its life. `active`/`decaying`/`pinned` rules are in their target file; `archived`
 * and `expired` ones in the archive file; `deleted` ones only in the audit; `rejected` ones were
 * removed by a human and are not proposed again.
 */
export type RuleState = 'active' | 'decaying' | 'archived' | 'expired' | 'deleted' | 'pinned' | 'rejected';

/** How much a rule is trusted: `validated` rules do not decay; `refined` and `invalidated` decay fast. */
export type RuleStatus = 'active' | 'validated' | 'refined' | 'invalidated';

export type EffectivenessVerdict = 'measuring' | 'working' | 'improving' | 'ineffective' | 'unused';

/** Failure rate of the rule's cluster per day before adoption and since. */
export interface Effectiveness {
  before_per_day: number;
  after_per_day: number;
  /** after / before − 1 (−1: the failures stopped). */
  change: number;
  verdict: EffectivenessVerdict;
  days_since_adoption: number;
  tool_calls_since: number;
  /**
   * What the verdict rests on: `exposure` (failures per 100 calls when the rule was in front of the agent
   * vs when it was not), `calls` (per 100 calls of its family before adoption vs since) or `days` (per
   * day, for rules without enough calls counted: agents without hooks, rules older than the counters).
   * Absent in ledgers written before call counts existed.
   */
  basis?: 'exposure' | 'calls' | 'days';
  /** For an ineffective rule: the figures that made it so, in words (the audit and the report quote it). */
  why?: string;
}

/** Failures of a rule's cluster and calls of its tool family over some stretch of time or sessions. */
export interface CallTally {
  failures: number;
  calls: number;
}

/**
 * Did the rule work, counted in calls (see memory/call-rates.ts): its cluster's failures per calls of its
 * tool family on the night it was written (`before`) and since (`after`); since adoption, split between
 * calls made in a session after the rule was put in front of the agent there (`exposed`: injected at
 * session start, or from a reminder on) and all other calls (`unexposed`); and after each just-in-time
 * reminder, whether the next call of the family in that session succeeded.
 */
export interface RuleEffect {
  before: CallTally;
  after: CallTally;
  exposed: CallTally;
  unexposed: CallTally;
  after_reminder: { succeeded: number; failed: number };
}

/**
 * A rule's exposures since it was written, summed night by night from the hooks' exposure lines:
 * injected at session start, reminded next to a failure of its cluster, the sessions that saw it (a
 * night's distinct sessions, summed), and when last. The lines themselves (telemetry, with session_id)
 * stay the per-session record.
 */
export interface RuleExposure {
  session_start: number;
  reminder: number;
  sessions: number;
  last: string;
}

export interface LedgerEntry {
  id: string;
  cluster_id: string;
  kind: 'failure' | 'slow';
  tool_name: string;
  error_category: string | null;
  /** The error template the rule is about and its id (absent for slow clusters, groups and rules older than templates). */
  template?: string | null;
  template_id?: string | null;
  /** For templates promoted together: the template clusters the rule covers. */
  covers?: string[];
  /** Clusters whose draft was a near duplicate of this rule: they corroborated it, and it covers them. */
  near_duplicates?: string[];
  text: string;
  text_sha: string;
  /** `memory`, or `skill:<name>` for skills/<name>.yaml. */
  target: string;
  state: RuleState;
  created: string;
  last_seen: string;
  hits: number;
  pinned: boolean;
  /** Lifecycle fields (absent in ledgers written before decay existed: see withLifecycleDefaults). */
  status?: RuleStatus;
  /** Last reinforcement: created, restored, recurred, accessed, edited by a human. */
  last_reinforced?: string;
  last_accessed?: string | null;
  accesses?: number;
  /** When the rule entered its current state. */
  state_since?: string;
  /** The state a pinned rule returns to on unpin. */
  pinned_from?: RuleState | null;
  /** Weight at the last evaluation, in [0, 1]. */
  weight?: number;
  /** Calls of the rule's tool counted since adoption (effectiveness needs the tool to stay in use). */
  tool_calls?: number;
  effectiveness?: Effectiveness | null;
  /** Failures per calls of its family before and since adoption, exposed or not (absent in older ledgers: counted from the next night). */
  effect?: RuleEffect;
  /** How often hooks put the rule in front of the agent (see RuleExposure); absent until the first time. */
  exposures?: RuleExposure;
  supersedes?: string | null;
  superseded_by?: string | null;
  /** Why it was archived (shown in the archive file and by `list`). */
  archive_reason?: string | null;
  /** `<policy fingerprint>:<text sha>` of the last safety re-check (see safety/recheck.ts). */
  policy_checked?: string;
  provenance: {
    synthesizer: string;
    count: number;
    distinct_inputs: number;
    sessions: number;
    first_seen: string;
    last_seen: string;
    evidence: Evidence[];
    /** What worked next, when seen (see Cluster.follow_ups). */
    follow_ups?: FollowUp[];
    /** For templates promoted together: their templates. */
    templates?: string[];
    safety: { verdict: string; violations: string[]; evaluated: string[]; policy: string };
    model: string | null;
    prompt_version: string | null;
  };
}

export interface QuarantineEntry {
  id: string;
  cluster_id: string;
  kind: 'failure' | 'slow';
  tool_name: string;
  error_category: string | null;
  text: string;
  target: string;
  reasons: string[];
  /** True when the safety checks stopped it (policy or suspicious input): accepting it needs --force. */
  safety_blocked: boolean;
  /** SHA of `text`: `review --accept --sha` confirms the text the reviewer read is the text written. */
  text_sha?: string;
  at: string;
  /** The evidence and verdict, so `review --accept` and `explain` can show why. */
  provenance?: LedgerEntry['provenance'];
}

export interface BurnedPattern {
  rule_id: string | null;
  reason: string;
  at: string;
  /** Proposals resume after this time; null burns the pattern for good (a human deleted the rule). */
  until?: string | null;
}

/** A Claude answer kept by (evidence hash, model, prompt version): re-running a night costs no calls. */
export interface LlmCacheEntry {
  text: string;
  model: string;
  prompt_version: string;
  notes: string[];
  at: string;
}

export interface State {
  version: number;
  last_sleep: string | null;
  cursors: Record<string, Cursor>;
  baselines: Record<string, Baseline>;
  pending: Record<string, PendingCluster>;
  rules: Record<string, LedgerEntry>;
  burned: Record<string, BurnedPattern>;
  quarantine: Record<string, QuarantineEntry>;
  llm_cache: Record<string, LlmCacheEntry>;
  /** The template miner's templates per tool family + category (absent before templates). */
  templates?: TemplateMinerState;
  /** The last nights' failure counts, for the trend pages (absent before trends; see night-history.ts). */
  nights?: NightRecord[];
  /** Clusters whose rule a human line already states: covered while that line stays as it is. */
  said_by_human?: Record<string, SaidByHuman>;
  /** Embedding vectors by text hash (similarity: embeddings), bounded by embedding_cache_max. */
  embeddings?: EmbeddingCache;
}

/** A human line that already says what a cluster's rule would say. */
export interface SaidByHuman {
  file: string;
  /** 1-based, as found when last checked (reconcile follows the line when lines above it move). */
  line: number;
  /** SHA of the line's text: when the human changes or removes the line, the cluster is uncovered. */
  text_sha: string;
  score: number;
  rule_text: string;
  at: string;
}
