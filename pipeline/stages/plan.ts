import type { RunContext } from '../context.js';
import { addRules } from '../memory/memory-md.js';
import { addSkillRules, type SkillRule } from '../memory/skills-yaml.js';
import { renderState, STATE_VERSION, type Cursor, type LedgerEntry, type PendingCluster, type QuarantineEntry, type State } from '../memory/state.js';
import { finalRuleText } from '../synth/rule-text.js';
import { textSha } from '../synth/rule-id.js';
import type { Cluster } from './cluster.js';
import { toPending, type PromotedCluster, type Recurrence } from './gate.js';
import { targetKey } from './synthesize.js';
import type { ReviewedDraft } from './validate.js';
import type { HumanChange } from './reconcile.js';
import { appendEvents, parseEvents, type LifecycleEvent } from '../memory/lifecycle.js';

export type ProposalStatus = 'proposed' | 'applied' | 'quarantined' | 'duplicate';

export interface Proposal {
  id: string;
  cluster_id: string;
  tool_name: string;
  error_category: string | null;
  kind: 'failure' | 'slow';
  text: string;
  target: string;
  status: ProposalStatus;
  reasons: string[];
}

/** A file the run will write, with its full new content. */
export interface FileChange {
  path: string;
  role: 'memory' | 'skill' | 'audit' | 'state';
  content: string;
}

export interface Plan {
  proposals: Proposal[];
  /** Memory and skill files first, state last: the cursor moves only after memory is written. */
  changes: FileChange[];
  nextState: State;
  events: LifecycleEvent[];
  commitMessage: string;
}

interface PlanInput {
  state: State;
  memoryText: string | undefined;
  skillTexts: Record<string, string | undefined>;
  reviewed: ReviewedDraft[];
  promoted: PromotedCluster[];
  recurrences: Recurrence[];
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
  llmCache: State['llm_cache'];
}

/** plan: every change the run would make, as data. Pure; dry-run renders it and stops. */
export async function plan<I extends PlanInput>(input: I, ctx: RunContext): Promise<I & { plan: Plan }> {
  return { ...input, plan: buildPlan(input, { now: ctx.now, runId: ctx.runId, dryRun: ctx.options.dryRun, settings: ctx.settings }) };
}

export interface BuildPlanOptions {
  now: Date;
  runId: string;
  dryRun: boolean;
  settings: { memory_file: string; skills_dir: string; state_dir: string };
}

export function buildPlan(input: PlanInput, options: BuildPlanOptions): Plan {
  const now = options.now.toISOString();
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  const rules: Record<string, LedgerEntry> = { ...input.state.rules };
  const quarantine: Record<string, QuarantineEntry> = { ...input.state.quarantine };
  const additions = new Map<string, SkillRule[]>();
  const present = input.present;
  const proposals: Proposal[] = [];
  const event = (rule: string, from: string, to: string, reason: string): LifecycleEvent => ({ rule, from, to, reason, time: now, run: options.runId });
  const events: LifecycleEvent[] = input.humanChanges
    .filter((change) => change.kind === 'deleted')
    .map((change) => event(change.rule_id, 'active', 'rejected', `deleted by a human from ${change.target}`));

  for (const item of input.reviewed) {
    const { draft } = item;
    const target = targetKey(draft.target);
    const text = finalRuleText(draft.text);
    const cluster = clusters.get(draft.clusterId)!;
    let status: ProposalStatus;
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
    } else if (rules[draft.id]?.state === 'active') {
      status = 'duplicate';
    } else {
      status = options.dryRun ? 'proposed' : 'applied';
      // Already in the file (a crashed run wrote memory but not state): record it, do not add it twice.
      if (!present.get(target)?.has(draft.id)) {
        additions.set(target, [...(additions.get(target) ?? []), { id: draft.id, text, cluster: draft.clusterId }]);
      }
      rules[draft.id] = ledgerEntry(item, text, target, cluster, now);
      events.push(event(draft.id, 'none', 'active', `cluster ${draft.clusterId} seen ${cluster.count} times; written by ${draft.synthesizer}`));
    }
    proposals.push({
      id: draft.id, cluster_id: draft.clusterId, tool_name: draft.toolName, error_category: draft.errorCategory,
      kind: draft.kind, text, target, status, reasons: [...item.reasons, ...draft.notes],
    });
  }
  for (const recurrence of input.recurrences) {
    const rule = rules[recurrence.rule_id];
    if (rule) rules[recurrence.rule_id] = { ...rule, hits: rule.hits + recurrence.count, last_seen: maxIso(rule.last_seen, recurrence.last_seen) };
  }

  const nextState: State = {
    ...input.state,
    version: STATE_VERSION,
    last_sleep: now,
    cursors: input.cursors,
    baselines: input.baselines,
    pending: { ...input.pending, ...Object.fromEntries(input.deferred.map((cluster) => [cluster.id, toPending(cluster)])) },
    llm_cache: input.llmCache,
    rules,
    quarantine,
  };
  const changes = buildTargetChanges(input, additions, options.settings);
  // After a crash between the audit and the state write, the same transitions come again: log them once.
  const key = (e: LifecycleEvent) => `${e.rule}\u0000${e.from}\u0000${e.to}\u0000${e.text_sha ?? ''}`;
  const logged = new Set(parseEvents(input.lifecycleText).map(key));
  const fresh = events.filter((e) => !logged.has(key(e)));
  if (fresh.length > 0) {
    changes.push({ path: `${options.settings.state_dir}/lifecycle.jsonl`, role: 'audit', content: appendEvents(input.lifecycleText, fresh) });
  }
  // A night with nothing new changes only last_sleep: write nothing, so the nightly job makes no commit.
  const stateChanged = renderState({ ...nextState, last_sleep: null }) !== renderState({ ...input.state, last_sleep: null });
  if (changes.length > 0 || stateChanged) {
    changes.push({ path: `${options.settings.state_dir}/state.json`, role: 'state', content: renderState(nextState) });
  }
  return { proposals, changes, nextState, events: fresh, commitMessage: commitMessage(proposals, options.now) };
}

function ledgerEntry(item: ReviewedDraft, text: string, target: string, cluster: PromotedCluster, now: string): LedgerEntry {
  const { draft, verdict } = item;
  return {
    id: draft.id, cluster_id: draft.clusterId, kind: draft.kind, tool_name: draft.toolName, error_category: draft.errorCategory,
    text, text_sha: textSha(text), target, state: 'active', created: now, last_seen: cluster.last_seen, hits: 0, pinned: false,
    provenance: {
      synthesizer: draft.synthesizer, count: cluster.count, distinct_inputs: cluster.distinct_inputs, sessions: cluster.sessions.length,
      first_seen: cluster.first_seen, last_seen: cluster.last_seen, evidence: cluster.samples,
      safety: { verdict: verdict.verdict, violations: verdict.violations.map((v) => v.ruleId), evaluated: verdict.evaluated, policy: item.policy },
      model: draft.model ?? null,
      prompt_version: draft.promptVersion ?? null,
    },
  };
}

/** The new content of each memory or skill file that gains rules. */
export function buildTargetChanges(
  input: { memoryText: string | undefined; skillTexts: Record<string, string | undefined> },
  additions: Map<string, SkillRule[]>,
  settings: BuildPlanOptions['settings'],
): FileChange[] {
  const changes: FileChange[] = [];
  for (const [target, rules] of [...additions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (target === 'memory') {
      changes.push({ path: settings.memory_file, role: 'memory', content: addRules(input.memoryText ?? '', rules) });
    } else {
      const skill = target.slice('skill:'.length);
      const path = `${settings.skills_dir}/${skill}.yaml`;
      changes.push({ path, role: 'skill', content: addSkillRules(input.skillTexts[skill], skill, path, rules) });
    }
  }
  return changes;
}

export function commitMessage(proposals: Proposal[], now: Date): string {
  const added = proposals.filter((p) => p.status === 'applied').length;
  const quarantined = proposals.filter((p) => p.status === 'quarantined').length;
  const parts = added + quarantined === 0 ? ['no new rules'] : [`+${added} rule${added === 1 ? '' : 's'}`];
  if (quarantined > 0) parts.push(`${quarantined} quarantined`);
  return `sleep-cycle: ${parts.join(', ')} (${now.toISOString().slice(0, 10)})`;
}

function maxIso(a: string, b: string): string {
  return a > b ? a : b;
}
