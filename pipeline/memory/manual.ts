import { buildTargetChanges, type TargetSettings } from './target-changes.js';
import { type FileChange } from '../model/file-change.js';
import { renderArchive } from './archive-md.js';
import { parseMemory } from './memory-md.js';
import { parseSkillRules } from './skills-yaml.js';
import { appendEvents, type LifecycleEvent } from './lifecycle.js';
import { unknownId } from './review.js';
import { IN_ARCHIVE, IN_TARGET, renderState, withLifecycleDefaults, type LifecycleRule, type RuleState, type State } from './state.js';
import { checkTransition } from './transitions.js';
import { errors } from '../model/errors.js';
import { skillOf, skillPath } from '../model/rule-target.js';

export type ManualAction = 'touch' | 'pin' | 'unpin' | 'restore';

export interface ManualInput {
  state: State;
  memoryText: string | undefined;
  skillTexts: Record<string, string | undefined>;
  lifecycleText: string | undefined;
  archiveText: string | undefined;
}

export interface ManualPlan {
  changes: FileChange[];
  events: LifecycleEvent[];
  summary: string;
  rule: LifecycleRule;
}

/**
 * Pure: what `touch`, `pin`, `unpin` or `restore` changes. touch reinforces a rule in memory (an
 * explicit access); pin takes a rule out of every automatic transition (and brings an archived one
 * back); unpin returns it to active; restore brings an archived or expired rule back into its file.
 */
export interface ManualOptions {
  now: Date;
  runId: string;
  settings: TargetSettings & { state_dir: string };
  /** The current safety policy's objection to this rule, if any (checked before it goes back into memory). */
  policyBlock?: string | null;
}

export function buildManualPlan(input: ManualInput, action: ManualAction, id: string, options: ManualOptions): ManualPlan {
  const stored = input.state.rules[id];
  if (!stored) throw unknownId(id, Object.keys(input.state.rules), 'rule');
  const now = options.now.toISOString();
  const before = withLifecycleDefaults(stored);
  let rule: LifecycleRule = before;
  const events: LifecycleEvent[] = [];
  const move = (to: RuleState, reason: string) => {
    checkTransition(id, rule.state, to);
    events.push({ rule: id, from: rule.state, to, reason, time: now, run: options.runId, since: rule.state_since });
    rule = { ...rule, state: to, state_since: now };
  };
  let summary: string;
  if ((action === 'restore' || action === 'pin') && IN_ARCHIVE.includes(rule.state) && rule.status === 'invalidated') {
    throw errors.usage(`${id} was taken out of memory because the safety policy no longer accepts it (${rule.archive_reason ?? 'see sleep-cycle explain'}): it does not come back. Its failure, if it recurs, gets a new rule checked against the current policy.`);
  }
  if ((action === 'restore' || action === 'pin') && options.policyBlock) {
    throw errors.usage(`${id} cannot go back into memory: the current safety policy blocks it (${options.policyBlock}).`);
  }
  // A manual action at an earlier --now never moves the last reinforcement back in time.
  const reinforced = (at: string) => (at > rule.last_reinforced ? at : rule.last_reinforced);
  switch (action) {
    case 'touch': {
      if (!IN_TARGET.includes(rule.state)) {
        throw errors.usage(`${id} is ${rule.state}: only a rule in memory can be touched.${IN_ARCHIVE.includes(rule.state) ? ` Bring it back with \`sleep-cycle restore ${id}\`.` : ''}`);
      }
      rule = { ...rule, last_reinforced: reinforced(now), last_accessed: rule.last_accessed && rule.last_accessed > now ? rule.last_accessed : now, accesses: rule.accesses + 1 };
      if (rule.state === 'decaying') move('active', 'touched: reinforced by hand');
      summary = `touched ${id}: reinforced at ${now}`;
      break;
    }
    case 'pin': {
      if (rule.state === 'pinned') throw errors.usage(`${id} is already pinned.`);
      const from = rule.state;
      move('pinned', 'pinned by a human');
      // A pin is a human's approval (validated), but it does not erase what the safety policy said.
      rule = { ...rule, pinned: true, pinned_from: from, status: rule.status === 'invalidated' ? 'invalidated' : 'validated', last_reinforced: reinforced(now), archive_reason: null };
      summary = `pinned ${id}: it skips every automatic transition${IN_ARCHIVE.includes(from) ? ` and is back in ${rule.target}` : ''}`;
      break;
    }
    case 'unpin': {
      if (rule.state !== 'pinned') throw errors.usage(`${id} is ${rule.state}, not pinned.`);
      move('active', 'unpinned by a human');
      // The pin was the human's approval; what remains is what its effectiveness earned.
      const status = rule.status === 'invalidated' ? 'invalidated' : rule.effectiveness?.verdict === 'working' ? 'validated' : rule.status === 'validated' ? 'active' : rule.status;
      rule = { ...rule, pinned: false, pinned_from: null, status, last_reinforced: reinforced(now) };
      summary = `unpinned ${id}: it decays again from today`;
      break;
    }
    case 'restore': {
      if (!IN_ARCHIVE.includes(rule.state)) throw errors.usage(`${id} is ${rule.state}: only an archived or expired rule can be restored.`);
      move('active', 'restored by hand');
      rule = { ...rule, last_reinforced: reinforced(now), archive_reason: null };
      summary = `restored ${id} into ${rule.target}`;
      break;
    }
  }
  const state: State = { ...input.state, rules: { ...input.state.rules, [id]: rule } };
  const changes: FileChange[] = [];
  if (IN_ARCHIVE.includes(before.state) && IN_TARGET.includes(rule.state)) {
    // The archive first, as in a run: a crash in between leaves the rule archived in the ledger and in
    // neither file, and the same command run again puts it back.
    changes.push({ path: options.settings.archive_file, role: 'archive', content: renderArchive(Object.values(state.rules)) });
    // Not a second bullet when an interrupted run of this same command already put it back.
    if (!inTargetFile(input, rule, options.settings)) {
      changes.push(...buildTargetChanges(input, new Map([[rule.target, [{ id, text: rule.text, cluster: rule.cluster_id }]]]), new Map(), options.settings));
    }
  }
  if (events.length > 0) changes.push({ path: `${options.settings.state_dir}/lifecycle.jsonl`, role: 'audit', content: appendEvents(input.lifecycleText, events) });
  changes.push({ path: `${options.settings.state_dir}/state.json`, role: 'state', content: renderState(state) });
  return { changes, events, summary, rule };
}

function inTargetFile(input: ManualInput, rule: LifecycleRule, settings: TargetSettings): boolean {
  if (rule.target === 'memory') return input.memoryText !== undefined && parseMemory(input.memoryText).rules.some((r) => r.id === rule.id);
  const skill = skillOf(rule.target)!;
  const text = input.skillTexts[skill];
  return text !== undefined && parseSkillRules(text, skillPath(skill, settings)).some((r) => r.id === rule.id);
}
