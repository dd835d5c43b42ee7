import { recordNight, type NightRecord } from '../memory/night-history.js';
import type { RunContext } from '../context.js';
import { removeRules } from '../memory/memory-md.js';
import type { SkillRule } from '../memory/skills-yaml.js';
import { IN_ARCHIVE, IN_TARGET, renderState, STATE_VERSION, withoutTimeDerived, type Cursor, type LedgerEntry, type PendingCluster, type QuarantineEntry, type State } from '../memory/state.js';
import { renderArchive } from '../memory/archive-md.js';
import { enforceCeiling, type CeilingOutcome } from '../memory/ceiling.js';
import type { LifecycleResult, RuleChange } from '../memory/lifecycle-evaluate.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { policyFingerprint } from '../memory/recheck.js';
import { finalRuleText } from '../synth/rule-text.js';
import { textSha } from '../model/rule-id.js';
import { clusterId, type Cluster, type PromotedCluster } from '../model/cluster.js';
import { backToPending } from './gate.js';
import type { ReviewedDraft } from './validate.js';
import type { HumanChange } from './reconcile.js';
import { appendEvents, parseEvents, type LifecycleEvent } from '../memory/lifecycle.js';
import { targetKey } from '../model/rule-target.js';
import type { FileChange } from '../model/file-change.js';
import { buildTargetChanges, type TargetSettings } from '../memory/target-changes.js';
import { isHeldTarget, type UnreadableSkills } from '../memory/held-targets.js';
import { targetPath } from '../model/rule-target.js';
import type { Duplicate } from './deduplicate.js';
import { orderTargets } from '../memory/order.js';
import { emptyEffect, NO_CALLS } from '../memory/call-rates.js';
import type { CallTally } from '../memory/state-types.js';
import type { UsageSummary } from '../telemetry/usage.js';

export type ProposalStatus = 'proposed' | 'applied' | 'quarantined' | 'duplicate';

export interface Proposal {
  id: string;
  cluster_id: string;
  tool_name: string;
  error_category: string | null;
  kind: 'failure' | 'slow';
  /** The error template the rule is about (null for slow clusters and for templates promoted together). */
  template_id: string | null;
  template: string | null;
  /** For templates promoted together: their templates. */
  templates?: string[];
  text: string;
  target: string;
  status: ProposalStatus;
  reasons: string[];
  /** For a draft not written because it repeats something (see deduplicate): what, and how alike. */
  duplicate_of?: DuplicateOf;
}

export interface DuplicateOf {
  kind: 'rule' | 'draft' | 'human' | 'predecessor';
  rule_id: string | null;
  file: string | null;
  line: number | null;
  score: number;
  method: string;
}

export interface Plan {
  proposals: Proposal[];
  /** Memory and skill files first, state last: the cursor moves only after memory is written. */
  changes: FileChange[];
  nextState: State;
  events: LifecycleEvent[];
  /** Tonight's lifecycle changes (decay, archive, restore, validation, refinement, ceiling). */
  lifecycle: RuleChange[];
  ceiling: CeilingOutcome;
  commitMessage: string;
}

interface PlanInput {
  state: State;
  memoryText: string | undefined;
  skillTexts: Record<string, string | undefined>;
  reviewed: ReviewedDraft[];
  promoted: PromotedCluster[];
  pending: Record<string, PendingCluster>;
  baselines: State['baselines'];
  cursors: Record<string, Cursor>;
  clusters: Cluster[];
  humanChanges: HumanChange[];
  /** What reconcile found in the target files (a crashed run may already have written a rule). */
  present: Map<string, Map<string, string>>;
  lifecycleText: string | undefined;
  /** Clusters past the LLM budget: back to pending for a later night. */
  deferred: PromotedCluster[];
  /** Clusters no rule was written for: back to pending, listed for a human or Claude. */
  unwritten?: { cluster: PromotedCluster; reason: string }[];
  llmCache: State['llm_cache'];
  /** The miner's templates after tonight (absent in tests that build a plan by hand). */
  templates?: State['templates'];
  lifecycle: LifecycleResult;
  archiveText: string | undefined;
  movedByCrashedRun?: Set<string>;
  leftInTarget?: Set<string>;
  /** The policy tonight's drafts were checked against: new rules need no re-check until it changes. */
  policy?: SafetyPolicy;
  /** Skill files load could not read: drafts for them wait in pending instead of being written. */
  unreadableSkills?: UnreadableSkills;
  /** Drafts that repeat a rule, tonight's earlier draft or a human line (see deduplicate): not written. */
  duplicates?: Record<string, Duplicate>;
  /** The gate's groups and their members (absent in tests that build a plan by hand). */
  groupMembers?: Record<string, PendingCluster[]>;
  /** Tonight's calls per tool family: a new rule's failure rate before adoption (absent in tests that build a plan by hand). */
  usage?: Pick<UsageSummary, 'families'>;
}

/** plan: every change the run would make, as data. Pure; dry-run renders it and stops. */
export async function plan<I extends PlanInput>(input: I, ctx: RunContext): Promise<I & { plan: Plan }> {
  return { ...input, plan: buildPlan(input, { now: ctx.now, runId: ctx.runId, dryRun: ctx.options.dryRun, settings: ctx.settings }) };
}

export interface BuildPlanOptions {
  now: Date;
  runId: string;
  dryRun: boolean;
  settings: TargetSettings & { state_dir: string; memory_max_lines: number };
}


export function buildPlan(input: PlanInput, options: BuildPlanOptions): Plan {
  const now = options.now.toISOString();
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  const rules: Record<string, LedgerEntry> = { ...input.lifecycle.rules };
  const quarantine: Record<string, QuarantineEntry> = { ...input.state.quarantine };
  const additions = new Map<string, SkillRule[]>();
  const present = input.present;
  const proposals: Proposal[] = [];
  const held: PromotedCluster[] = [];
  const lifecycle: RuleChange[] = [...input.lifecycle.changes];
  const event = (rule: string, from: string, to: string, reason: string): LifecycleEvent => ({ rule, from, to, reason, time: now, run: options.runId });
  const events: LifecycleEvent[] = input.humanChanges
    .filter((change) => change.kind === 'deleted')
    .map((change) => event(change.rule_id, change.from, 'rejected', `deleted by a human from ${change.target}`));
  const add = (target: string, rule: SkillRule) => {
    if (!present.get(target)?.has(rule.id)) additions.set(target, [...(additions.get(target) ?? []), rule]);
  };
  // The same text is never written twice, whatever the similarity settings: by text, the rule that has it.
  const written = new Map(Object.values(rules).filter((rule) => IN_TARGET.includes(rule.state)).map((rule) => [rule.text, rule.id]));
  const joined = joinedDrafts(input.duplicates ?? {}, input.reviewed);

  for (const item of input.reviewed) {
    const { draft } = item;
    const target = targetKey(draft.target);
    const text = finalRuleText(draft.text);
    const cluster = clusters.get(draft.clusterId)!;
    let status: ProposalStatus;
    const notes = [...item.reasons, ...draft.notes];
    if (!item.accepted) {
      status = 'quarantined';
      // A draft id can be quarantined again with new text (the cluster recurred): each text is logged.
      if (quarantine[draft.id]?.text !== text) events.push({ ...event(draft.id, 'none', 'quarantined', item.reasons.join('; ')), text_sha: textSha(text) });
      quarantine[draft.id] = {
        id: draft.id, cluster_id: draft.clusterId, kind: draft.kind, tool_name: draft.toolName, error_category: draft.errorCategory, text, target,
        // Suspicious drafts are the injection cases: accepting them needs --force as much as a policy block.
        reasons: item.reasons, safety_blocked: true, text_sha: textSha(text), at: now,
        provenance: ledgerEntry(item, text, target, cluster, now).provenance,
      };
    } else if (IN_TARGET.includes(rules[draft.id]?.state ?? 'rejected')) {
      status = 'duplicate';
    } else if (input.duplicates?.[draft.id] || (written.has(text) && written.get(text) !== draft.id)) {
      status = 'duplicate';
      notes.push(input.duplicates?.[draft.id]?.reason ?? `the same text as ${written.get(text)}: not written twice`);
    } else if (isHeldTarget(target, input.unreadableSkills)) {
      // Its file cannot be read tonight: proposed, not written; the cluster waits in pending for the next run.
      status = 'proposed';
      held.push(cluster);
      notes.push(`not written: ${targetPath(target, options.settings)} cannot be read; proposed again on the next run once it is fixed`);
    } else {
      status = options.dryRun ? 'proposed' : 'applied';
      // Already in the file (a crashed run wrote memory but not state): record it, do not add it twice.
      add(target, { id: draft.id, text, cluster: draft.clusterId });
      const near = joined.get(draft.id);
      rules[draft.id] = {
        ...ledgerEntry(item, text, target, cluster, now),
        effect: { ...emptyEffect(), before: failuresBefore(cluster, input.usage) },
        ...(input.policy ? { policy_checked: `${policyFingerprint(input.policy)}:${textSha(text)}` } : {}),
        ...(near ? { near_duplicates: near } : {}),
      };
      written.set(text, draft.id);
      events.push(event(draft.id, 'none', 'active', `cluster ${draft.clusterId} seen ${cluster.count} times; written by ${draft.synthesizer}`));
      const old = cluster.refines ? rules[cluster.refines.rule_id] : undefined;
      if (old && cluster.refines) {
        const { before_per_day, after_per_day, why } = cluster.refines;
        const reason = `ineffective (${why ?? `${after_per_day} failures per day since adoption, ${before_per_day} before`}): superseded by ${draft.id}`;
        lifecycle.push({ rule: old.id, field: 'status', from: old.status ?? 'active', to: 'refined', reason, since: old.state_since ?? old.created });
        rules[old.id] = { ...old, status: 'refined', superseded_by: draft.id };
        rules[draft.id] = { ...rules[draft.id]!, supersedes: old.id };
      }
    }
    proposals.push({
      id: draft.id, cluster_id: draft.clusterId, tool_name: draft.toolName, error_category: draft.errorCategory,
      kind: draft.kind, template_id: cluster.template_id ?? null, template: cluster.template ?? null,
      ...(cluster.templates ? { templates: cluster.templates.map((t) => t.template) } : {}),
      text, target, status, reasons: notes,
      ...(status === 'duplicate' && input.duplicates?.[draft.id] ? { duplicate_of: duplicateOf(input.duplicates[draft.id]!) } : {}),
    });
  }
  // Restored tonight, or moved out by a crashed run but still in memory by tonight's lifecycle: back in.
  for (const id of [...input.lifecycle.restored, ...(input.movedByCrashedRun ?? [])]) {
    const rule = rules[id]!;
    if (IN_TARGET.includes(rule.state)) add(rule.target, { id, text: rule.text, cluster: rule.cluster_id });
  }
  const removals = new Map<string, Set<string>>();
  for (const id of [...input.lifecycle.archived, ...(input.leftInTarget ?? [])]) {
    if (!rules[id] || IN_TARGET.includes(rules[id]!.state)) continue;
    const target = rules[id]!.target;
    removals.set(target, new Set([...(removals.get(target) ?? []), id]));
  }
  const changes = orderTargets(input, buildTargetChanges(input, additions, removals, options.settings), rules, options.settings);
  const ceiling = applyCeiling(input.memoryText, changes, rules, lifecycle, options);
  for (const change of lifecycle) events.push({ ...event(change.rule, change.from, change.to, change.reason), since: change.since, ...(change.field === 'status' ? { field: 'status' as const } : {}) });
  // The archive first: a crash after it but before the target files leaves a rule in both places or in
  // the archive only, which reconcile recognises — never a rule that looks deleted by a human.
  const archive = archiveChange(input.archiveText, rules, options.settings);
  if (archive) changes.unshift(archive);

  const nextState: State = {
    ...input.state,
    version: STATE_VERSION,
    last_sleep: now,
    cursors: input.cursors,
    baselines: input.baselines,
    pending: { ...input.pending, ...Object.fromEntries([...input.deferred, ...held, ...(input.unwritten ?? []).map((u) => u.cluster)].flatMap((cluster) => backToPending(cluster, input.groupMembers)).map((item) => [item.id, item])) },
    llm_cache: input.llmCache,
    ...(input.templates && Object.keys(input.templates.scopes).length > 0 ? { templates: input.templates } : {}),
    ...withNights(recordNight(input.state.nights, input.clusters, options.now, options.runId)),
    rules,
    quarantine,
  };
  // After a crash between the audit and the state write, the same transitions come again: log them once.
  const key = (e: LifecycleEvent) => `${e.rule}\u0000${e.from}\u0000${e.to}\u0000${e.text_sha ?? ''}\u0000${e.since ?? ''}`;
  const logged = new Set(parseEvents(input.lifecycleText).map(key));
  const fresh = events.filter((e) => !logged.has(key(e)));
  if (fresh.length > 0) {
    changes.push({ path: `${options.settings.state_dir}/lifecycle.jsonl`, role: 'audit', content: appendEvents(input.lifecycleText, fresh) });
  }
  // A night with nothing new changes only last_sleep: write nothing, so the nightly job makes no commit.
  const stateChanged = renderState(withoutTimeDerived(nextState)) !== renderState(withoutTimeDerived(input.state));
  if (changes.length > 0 || stateChanged) {
    changes.push({ path: `${options.settings.state_dir}/state.json`, role: 'state', content: renderState(nextState) });
  }
  return { proposals, changes, nextState, events: fresh, lifecycle, ceiling, commitMessage: commitMessage(proposals, lifecycle, options.now) };
}

function withNights(nights: NightRecord[] | undefined): { nights?: NightRecord[] } {
  return nights === undefined || nights.length === 0 ? {} : { nights };
}

/** MEMORY.md over its ceiling: archive the lowest-weight unpinned derived rules, and rewrite its change. */
function applyCeiling(memoryText: string | undefined, changes: FileChange[], rules: Record<string, LedgerEntry>, lifecycle: RuleChange[], options: BuildPlanOptions): CeilingOutcome {
  const change = changes.find((c) => c.role === 'memory');
  const text = change?.content ?? memoryText;
  const outcome = enforceCeiling(text, rules, options.settings.memory_max_lines, options.now.toISOString());
  if (outcome.archived.length === 0 || text === undefined) return outcome;
  const now = options.now.toISOString();
  for (const id of outcome.archived) {
    const rule = rules[id]!;
    const reason = `${options.settings.memory_file} over its ${options.settings.memory_max_lines}-line ceiling: lowest weight (${(rule.weight ?? 1).toFixed(2)})`;
    lifecycle.push({ rule: id, field: 'state', from: rule.state, to: 'archived', reason, since: rule.state_since ?? rule.created });
    rules[id] = { ...rule, state: 'archived', state_since: now, archive_reason: reason };
  }
  const content = removeRules(text, new Set(outcome.archived));
  if (change) change.content = content;
  else changes.unshift({ path: options.settings.memory_file, role: 'memory', content });
  return outcome;
}

/** The archive file, rewritten from the ledger when its content changes (created once a rule is archived). */
function archiveChange(existing: string | undefined, rules: Record<string, LedgerEntry>, settings: TargetSettings): FileChange | null {
  const archived = Object.values(rules).some((rule) => IN_ARCHIVE.includes(rule.state));
  if (existing === undefined && !archived) return null;
  const content = renderArchive(Object.values(rules));
  return content === existing ? null : { path: settings.archive_file, role: 'archive', content };
}

function duplicateOf({ match, method }: Duplicate): DuplicateOf {
  const score = Math.round(match.score * 1000) / 1000;
  return match.kind === 'human'
    ? { kind: 'human', rule_id: null, file: match.file, line: match.line, score, method }
    : { kind: match.kind, rule_id: match.rule_id, file: null, line: null, score, method };
}

/** Rule id -> the clusters whose drafts joined it tonight (it covers them from now on). */
function joinedDrafts(duplicates: Record<string, Duplicate>, reviewed: ReviewedDraft[]): Map<string, string[]> {
  const clusterOf = new Map(reviewed.map((item) => [item.draft.id, item.draft.clusterId]));
  const joined = new Map<string, string[]>();
  for (const [id, { match }] of Object.entries(duplicates)) {
    if (match.kind === 'draft') joined.set(match.rule_id, [...(joined.get(match.rule_id) ?? []), clusterOf.get(id)!].sort());
  }
  return joined;
}

/**
 * A new rule's failures per calls before adoption: its cluster's failures tonight (the nights before were
 * not counted by family) over tonight's calls of its family. A cluster read from older history (an
 * import) is counted the same way: the calls read with it are the ones it happened among.
 */
function failuresBefore(cluster: PromotedCluster, usage: Pick<UsageSummary, 'families'> | undefined): CallTally {
  if (cluster.kind !== 'failure') return NO_CALLS;
  return { failures: cluster.count - cluster.carried_over, calls: usage?.families?.[cluster.tool_name] ?? 0 };
}

function ledgerEntry(item: ReviewedDraft, text: string, target: string, cluster: PromotedCluster, now: string): LedgerEntry {
  const { draft, verdict } = item;
  return {
    id: draft.id, cluster_id: draft.clusterId, kind: draft.kind, tool_name: draft.toolName, error_category: draft.errorCategory,
    ...(cluster.template ? { template: cluster.template, template_id: cluster.template_id ?? null } : {}),
    ...(cluster.templates ? { covers: cluster.templates.map((t) => clusterId('failure', cluster.tool_name, cluster.error_category, t.id)) } : {}),
    text, text_sha: textSha(text), target, state: 'active', created: now, last_seen: cluster.last_seen, hits: 0, pinned: false,
    status: 'active', last_reinforced: now, last_accessed: null, accesses: 0, state_since: now, weight: 1, tool_calls: 0,
    provenance: {
      synthesizer: draft.synthesizer, count: cluster.count, distinct_inputs: cluster.distinct_inputs, sessions: cluster.sessions.length,
      first_seen: cluster.first_seen, last_seen: cluster.last_seen, evidence: cluster.samples,
      ...(cluster.follow_ups?.length ? { follow_ups: cluster.follow_ups } : {}),
      ...(cluster.templates ? { templates: cluster.templates.map((t) => t.template) } : {}),
      safety: { verdict: verdict.verdict, violations: verdict.violations.map((v) => v.ruleId), evaluated: verdict.evaluated, policy: item.policy },
      model: draft.model ?? null,
      prompt_version: draft.promptVersion ?? null,
    },
  };
}

export function commitMessage(proposals: Proposal[], lifecycle: RuleChange[], now: Date): string {
  const added = proposals.filter((p) => p.status === 'applied').length;
  const quarantined = proposals.filter((p) => p.status === 'quarantined').length;
  const moved = (to: string) => lifecycle.filter((c) => c.field === 'state' && c.to === to).length;
  const parts = added + quarantined === 0 ? ['no new rules'] : [`+${added} rule${added === 1 ? '' : 's'}`];
  if (quarantined > 0) parts.push(`${quarantined} quarantined`);
  const archived = moved('archived');
  const restored = lifecycle.filter((c) => c.field === 'state' && c.to === 'active' && (c.from === 'archived' || c.from === 'expired')).length;
  if (archived > 0) parts.push(`${archived} archived`);
  if (restored > 0) parts.push(`${restored} restored`);
  return `sleep-cycle: ${parts.join(', ')} (${now.toISOString().slice(0, 10)})`;
}
