import type { Evidence, FollowUp, Signature } from '../model/cluster.js';
import { SleepCycleError } from '../model/errors.js';
import { parseMinerState, type TemplateMinerState } from '../templates/miner-state.js';
import { SKILL_NAME } from '../settings/schema.js';
import {
  anyNumber, array, boolean, defaulted, emptyMap, INVALID, integer, isoDate, nullable, number, object, oneOf, optional, record, string,
  type Schema,
} from './schema.js';
import type {
  Baseline, BurnedPattern, CallTally, Cursor, Effectiveness, LedgerEntry, LlmCacheEntry, PendingCluster, QuarantineEntry, RuleEffect, RuleExposure, RuleState, SaidByHuman, State,
} from './state-types.js';
import type { NightRecord } from './night-history.js';
import type { EmbeddingCacheEntry } from './similarity.js';

/**
 * state.json, field by field. The compiler holds this description to the State types (a field added
 * there and not here fails to compile). Fields that older state files lack are `defaulted` the way the
 * code that wrote them behaved, or optional where the lifecycle fills them (withLifecycleDefaults).
 */
const RULE_STATES: RuleState[] = ['active', 'decaying', 'archived', 'expired', 'deleted', 'pinned', 'rejected'];
const RULE_ID = { pattern: /^r-[0-9a-z]{1,40}$/, expected: 'a rule id like r-3f9a1c' };
const CLUSTER_ID = { pattern: /^c-[0-9a-z]{1,40}$/, expected: 'a cluster id like c-1a2b3c4d5e6f' };
const DAY = { pattern: /^\d{4}-\d{2}-\d{2}$/, expected: 'a day (YYYY-MM-DD)' };

const kind = oneOf('failure', 'slow');
const ruleId = string(RULE_ID.expected, RULE_ID.pattern);
const clusterId = string(CLUSTER_ID.expected, CLUSTER_ID.pattern);
/** `memory` or `skill:<name>`: the name becomes a path, so it has the grammar settings.routing enforces. */
const target = string('"memory" or "skill:<name>"', new RegExp(`^(?:memory|skill:${SKILL_NAME.source.slice(1, -1)})$`, SKILL_NAME.flags));
const strings = array(string());

const evidence: Schema<Evidence> = object<Evidence>({
  file: string(), offset: integer(), input_hash: string(), session_id: nullable(string()),
  timestamp: isoDate, duration_ms: number(), message: string(),
});
const signature: Schema<Signature> = object<Signature>({ text: string(), count: integer() });

const followUp: Schema<FollowUp> = object<FollowUp>({ shape: string(), count: integer(), sessions: strings });
/** The miner's own check, whose message names the scope, the template and what is wrong with it. */
const minerState: Schema<TemplateMinerState> = {
  expected: 'the template miner\'s saved state ({"version": 1, "scopes": {...}})',
  check(value, path, report) {
    try {
      return parseMinerState(value);
    } catch (error) {
      const problem = error instanceof SleepCycleError && typeof error.details.problem === 'string' ? error.details.problem : undefined;
      report.problems.push({ path, expected: minerState.expected, found: value, ...(problem ? { message: problem } : {}) });
      return INVALID;
    }
  },
};

const cursor: Schema<Cursor> = object<Cursor>({
  path: string(), offset: integer(), head_sha: string(), tail_sha: string(), last_timestamp: nullable(isoDate),
});

const baseline: Schema<Baseline> = object<Baseline>({ mean_ms: number(), count: integer() });

const pending: Schema<PendingCluster> = object<PendingCluster>({
  id: clusterId, kind, tool_name: string(), error_category: nullable(string()),
  days: record(integer(), { key: DAY }), input_hashes: strings, sessions: strings,
  first_seen: isoDate, last_seen: isoDate, samples: array(evidence), signatures: array(signature),
  baseline_ms: optional(nullable(number())),
  template_id: optional(nullable(string())), template: optional(nullable(string())), family_id: optional(clusterId),
  follow_ups: optional(array(followUp)),
});

const effectiveness: Schema<Effectiveness> = object<Effectiveness>({
  before_per_day: number(), after_per_day: number(), change: anyNumber,
  verdict: oneOf('measuring', 'working', 'improving', 'ineffective', 'unused'),
  days_since_adoption: number(), tool_calls_since: integer(),
  basis: optional(oneOf('exposure', 'calls', 'days')), why: optional(string()),
});

const tally: Schema<CallTally> = object<CallTally>({ failures: integer(), calls: integer() });
const effect: Schema<RuleEffect> = object<RuleEffect>({
  before: tally, after: tally, exposed: tally, unexposed: tally,
  after_reminder: object<RuleEffect['after_reminder']>({ succeeded: integer(), failed: integer() }),
});

const provenance: Schema<LedgerEntry['provenance']> = object<LedgerEntry['provenance']>({
  synthesizer: string(), count: integer(), distinct_inputs: integer(), sessions: integer(),
  first_seen: isoDate, last_seen: isoDate, evidence: array(evidence),
  follow_ups: optional(array(followUp)), templates: optional(strings),
  safety: object<LedgerEntry['provenance']['safety']>({
    verdict: string(), violations: strings, evaluated: defaulted(strings, () => []), policy: defaulted(string(), () => 'unknown'),
  }),
  model: defaulted(nullable(string()), () => null),
  prompt_version: defaulted(nullable(string()), () => null),
});

const exposure: Schema<RuleExposure> = object<RuleExposure>({ session_start: integer(), reminder: integer(), sessions: integer(), last: isoDate });

const rule: Schema<LedgerEntry> = object<LedgerEntry>({
  id: ruleId, cluster_id: clusterId, kind, tool_name: string(), error_category: nullable(string()),
  text: string(), text_sha: string(), target, state: oneOf(...RULE_STATES),
  created: isoDate, last_seen: isoDate, hits: integer(), pinned: boolean, provenance,
  status: optional(oneOf('active', 'validated', 'refined', 'invalidated')),
  last_reinforced: optional(isoDate), last_accessed: optional(nullable(isoDate)), accesses: optional(integer()),
  state_since: optional(isoDate), pinned_from: optional(nullable(oneOf(...RULE_STATES))), weight: optional(number(0, 1)),
  tool_calls: optional(integer()), effectiveness: optional(nullable(effectiveness)), exposures: optional(exposure),
  effect: optional(effect),
  supersedes: optional(nullable(ruleId)), superseded_by: optional(nullable(ruleId)),
  archive_reason: optional(nullable(string())), policy_checked: optional(string()),
  template: optional(nullable(string())), template_id: optional(nullable(string())), covers: optional(array(clusterId)),
  near_duplicates: optional(array(clusterId)),
});

const quarantined: Schema<QuarantineEntry> = object<QuarantineEntry>({
  id: ruleId, cluster_id: clusterId, tool_name: string(), error_category: nullable(string()), text: string(), reasons: strings, at: isoDate,
  // Entries written before these fields existed: failure drafts for MEMORY.md, accepted only with --force.
  kind: defaulted(kind, () => 'failure'), target: defaulted(target, () => 'memory'), safety_blocked: defaulted(boolean, () => true),
  text_sha: optional(string()), provenance: optional(provenance),
});

const burned: Schema<BurnedPattern> = object<BurnedPattern>({ rule_id: nullable(ruleId), reason: string(), at: isoDate, until: optional(nullable(isoDate)) });

export const llmCache: Schema<LlmCacheEntry> = object<LlmCacheEntry>({ text: string(), model: string(), prompt_version: string(), notes: strings, at: isoDate });
const saidByHuman: Schema<SaidByHuman> = object<SaidByHuman>({
  file: string(), line: integer(1), text_sha: string(), score: number(0, 1), rule_text: string(), at: isoDate,
});

const embedding: Schema<EmbeddingCacheEntry> = object<EmbeddingCacheEntry>({ model: string(), vector: string(), at: isoDate });


/**
 * Losing a rule, a burn, a quarantined draft or a cursor would lose a human's decision or count events
 * twice: one bad entry makes the whole file wrong. Baselines, pending counts and the LLM cache are
 * rebuilt by the next nights: a bad entry there is left out and reported.
 */
export const stateSchema: Schema<State> = object<State>({
  version: integer(1),
  last_sleep: defaulted(nullable(isoDate), () => null),
  cursors: defaulted(record(cursor), emptyMap),
  baselines: defaulted(record(baseline, { onBadEntry: 'skip' }), emptyMap),
  pending: defaulted(record(pending, { key: CLUSTER_ID, idField: 'id', onBadEntry: 'skip' }), emptyMap),
  rules: defaulted(record(rule, { key: RULE_ID, idField: 'id' }), emptyMap),
  burned: defaulted(record(burned, { key: CLUSTER_ID }), emptyMap),
  quarantine: defaulted(record(quarantined, { key: RULE_ID, idField: 'id' }), emptyMap),
  llm_cache: defaulted(record(llmCache, { onBadEntry: 'skip' }), emptyMap),
  templates: optional(minerState),
  nights: optional(array(object<NightRecord>({
    time: isoDate, run: string(), failures: integer(), slow: integer(), clusters: record(integer(), { key: CLUSTER_ID }),
  }))),
  said_by_human: optional(record(saidByHuman, { key: CLUSTER_ID, onBadEntry: 'skip' })),
  embeddings: optional(record(embedding, { onBadEntry: 'skip' })),
}, 'a JSON object');
