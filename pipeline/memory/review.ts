import { errors } from '../model/errors.js';
import { buildTargetChanges } from './target-changes.js';
import { type FileChange } from '../model/file-change.js';
import { appendEvents, type LifecycleEvent } from './lifecycle.js';
import { renderState, type LedgerEntry, type State } from './state.js';
import { textSha } from '../model/rule-id.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { policyFingerprint } from './recheck.js';
import { summarizePending } from './pending-window.js';

export type ReviewAction = { kind: 'accept'; id: string; force: boolean; sha?: string } | { kind: 'reject'; id: string; reason: string };

export interface ReviewInput {
  state: State;
  /** The policy the reviewer accepted against: the rule is not re-checked until the policy changes. */
  policy?: SafetyPolicy;
  memoryText: string | undefined;
  skillTexts: Record<string, string | undefined>;
  lifecycleText: string | undefined;
}

export interface ReviewOptions {
  now: Date;
  runId: string;
  settings: { memory_file: string; skills_dir: string; archive_file: string; state_dir: string; reject_cooldown_days: number };
}

export interface ReviewPlan {
  changes: FileChange[];
  events: LifecycleEvent[];
  summary: string;
}

/** What waits for a human: quarantined drafts and clusters still below the threshold (counted in the window ending `now`). */
export function listReviewItems(state: State, window: { now: Date; window_days: number }) {
  return {
    quarantined: Object.values(state.quarantine).map(({ id, cluster_id, tool_name, error_category, text, target, reasons, safety_blocked, at }) => ({
      id, cluster_id, tool_name, error_category, text, text_sha: textSha(text), target, reasons, safety_blocked, at,
    })),
    pending: summarizePending(state.pending, window.now, window.window_days),
  };
}

/** Pure: the files a review decision changes. Accepting a safety-blocked draft needs `force` and is audited. */
export function buildReviewPlan(input: ReviewInput, action: ReviewAction, options: ReviewOptions): ReviewPlan {
  const now = options.now.toISOString();
  const state: State = structuredClone(input.state);
  const event = (rule: string, from: string, to: string, reason: string, forced?: boolean): LifecycleEvent =>
    ({ rule, from, to, reason, time: now, run: options.runId, ...(forced ? { forced } : {}) });
  const changes: FileChange[] = [];
  let events: LifecycleEvent[];
  let summary: string;

  const quarantined = state.quarantine[action.id];
  const pending = state.pending[action.id];
  if (action.kind === 'accept') {
    if (!quarantined) throw unknownId(action.id, Object.keys(state.quarantine), 'quarantined draft');
    if (action.sha && !textSha(quarantined.text).startsWith(action.sha)) {
      throw errors.usage(`${action.id} now holds different text (sha ${textSha(quarantined.text).slice(0, 8)}, not ${action.sha.slice(0, 16)}): list it again with \`sleep-cycle review\` and read it before accepting.`);
    }
    if (quarantined.safety_blocked && !action.force) {
      throw errors.usage(`${action.id} was blocked by the safety policy (${quarantined.reasons.join('; ')}). Accepting it anyway needs --force, and is recorded in the lifecycle audit.`);
    }
    const entry: LedgerEntry = {
      id: quarantined.id, cluster_id: quarantined.cluster_id, kind: quarantined.kind,
      tool_name: quarantined.tool_name, error_category: quarantined.error_category, text: quarantined.text, text_sha: textSha(quarantined.text),
      target: quarantined.target, state: 'active', created: now, last_seen: quarantined.provenance?.last_seen ?? now, hits: 0, pinned: false,
      // Approved by a human: a validated rule, which does not decay.
      status: 'validated', last_reinforced: now, last_accessed: null, accesses: 0, state_since: now, weight: 1, tool_calls: 0,
      provenance: quarantined.provenance ?? emptyProvenance(now),
      ...(input.policy ? { policy_checked: `${policyFingerprint(input.policy)}:${textSha(quarantined.text)}` } : {}),
    };
    state.rules[entry.id] = entry;
    delete state.quarantine[action.id];
    changes.push(...buildTargetChanges(input, new Map([[entry.target, [{ id: entry.id, text: entry.text, cluster: entry.cluster_id }]]]), new Map(), options.settings));
    const forced = quarantined.safety_blocked;
    events = [{ ...event(entry.id, 'quarantined', 'active', forced ? `accepted in review despite: ${quarantined.reasons.join('; ')}` : 'accepted in review', forced), text_sha: textSha(entry.text) }];
    summary = `accepted ${entry.id} into ${entry.target}${forced ? ' (forced past the safety checks; audited)' : ''}: "${entry.text}"`;
  } else {
    if (!quarantined && !pending) throw unknownId(action.id, [...Object.keys(state.quarantine), ...Object.keys(state.pending)], 'quarantined draft or pending cluster');
    const clusterId = quarantined ? quarantined.cluster_id : action.id;
    const until = new Date(options.now.getTime() + options.settings.reject_cooldown_days * 86_400_000).toISOString();
    state.burned[clusterId] = { rule_id: quarantined ? action.id : null, reason: `rejected in review: ${action.reason}`, at: now, until };
    delete state.quarantine[action.id];
    delete state.pending[clusterId];
    events = [event(action.id, quarantined ? 'quarantined' : 'pending', 'rejected', `rejected in review: ${action.reason}`)];
    summary = `rejected ${action.id}: pattern ${clusterId} will not be proposed again before ${until.slice(0, 10)}`;
  }
  changes.push({ path: `${options.settings.state_dir}/lifecycle.jsonl`, role: 'audit', content: appendEvents(input.lifecycleText, events) });
  changes.push({ path: `${options.settings.state_dir}/state.json`, role: 'state', content: renderState(state) });
  return { changes, events, summary };
}

export function unknownId(id: string, known: string[], what: string) {
  // Close: shares a prefix (a truncated id), contains it, or is a typo or two away.
  const wanted = id.toLowerCase();
  const close = known
    .map((candidate) => ({ candidate, distance: candidate.startsWith(wanted.slice(0, Math.max(4, wanted.length - 1))) || candidate.includes(wanted) ? 0 : editDistance(wanted, candidate) }))
    .filter((item) => item.distance <= 2)
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1))
    .map((item) => item.candidate)
    .slice(0, 5);
  const hint = close.length > 0 ? ` Close matches: ${close.join(', ')}.` : known.length > 0 ? ` Known: ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', …' : ''}.` : ' There are none.';
  return errors.usage(`no ${what} with id "${id.slice(0, 40)}".${hint}`);
}

function emptyProvenance(now: string): LedgerEntry['provenance'] {
  return {
    synthesizer: 'unknown', count: 0, distinct_inputs: 0, sessions: 0, first_seen: now, last_seen: now, evidence: [],
    safety: { verdict: 'unknown', violations: [], evaluated: [], policy: '' }, model: null, prompt_version: null,
  };
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
