import type { Settings } from '../settings/schema.js';
import type { RuleEffectNight, RuleExposures, UsageSummary } from '../telemetry/usage.js';
import { addTally, emptyEffect } from './call-rates.js';
import { daysBetween, daysSinceReinforced, ruleWeight, ttlDays, type DecaySettings } from './decay.js';
import { measureEffectiveness, type EffectivenessSettings } from './effectiveness.js';
import { checkTransition, type FromState } from './transitions.js';
import { IN_ARCHIVE, IN_TARGET, withLifecycleDefaults, type LedgerEntry, type LifecycleRule, type RuleEffect, type RuleExposure, type RuleState, type RuleStatus } from './state.js';

export type LifecycleSettings = DecaySettings &
  EffectivenessSettings &
  Pick<Settings, 'decaying_threshold' | 'archive_threshold' | 'archive_retention_days' | 'expired_retention_days'>;

/** One change of a rule's state or status, as the audit and the report show it. */
export interface RuleChange {
  rule: string;
  field: 'state' | 'status';
  from: FromState | RuleStatus;
  to: RuleState | RuleStatus;
  reason: string;
  /** When the rule entered `from`: the same change after a crash is logged once, a later one again. */
  since: string;
}

export interface LifecycleInput {
  rules: Record<string, LedgerEntry>;
  /** Tonight's events of clusters that have a rule (an archived rule's cluster recurring restores it). */
  recurrences: { rule_id: string; count: number; last_seen: string }[];
  usage: UsageSummary;
  /** Rules whose text a human edited since the last run: an edit is a reinforcement. */
  edited: string[];
  /** Rules in memory the current safety policy no longer accepts (see safety/recheck.ts). */
  policy?: { flagged: Record<string, { severity: 'block' | 'warn'; violations: string[] }>; checked: Record<string, string> };
}

export interface LifecycleResult {
  rules: Record<string, LedgerEntry>;
  changes: RuleChange[];
  /** Rules whose text goes back into their target file / out of it, this evaluation. */
  restored: string[];
  archived: string[];
}

/**
 * The lifecycle as a pure function of (ledger, tonight's telemetry summary, settings, now): reinforce
 * what recurred or was accessed, measure effectiveness, weigh, and move rules between states. Only the
 * transitions in TRANSITIONS can happen; pinned rules never change state here.
 */
export function evaluateLifecycle(input: LifecycleInput, settings: LifecycleSettings, now: Date): LifecycleResult {
  const at = now.toISOString();
  const recurrences = new Map<string, { count: number; last_seen: string }>();
  for (const r of input.recurrences) {
    const seen = recurrences.get(r.rule_id);
    recurrences.set(r.rule_id, { count: (seen?.count ?? 0) + r.count, last_seen: maxIso(seen?.last_seen ?? '', r.last_seen) });
  }
  const edited = new Set(input.edited);
  const result: LifecycleResult = { rules: {}, changes: [], restored: [], archived: [] };
  for (const id of Object.keys(input.rules).sort()) {
    const original = input.rules[id]!;
    if (original.state === 'rejected' || original.state === 'deleted') {
      result.rules[id] = original;
      continue;
    }
    let rule = withLifecycleDefaults(original);
    // Records a change of state; the caller returns the rule in its new state (see currentOf).
    const move = (to: RuleState, reason: string) => {
      checkTransition(id, rule.state, to);
      result.changes.push({ rule: id, field: 'state', from: rule.state, to, reason, since: rule.state_since });
    };

    const recurred = recurrences.get(id);
    if (recurred) {
      rule = { ...rule, hits: rule.hits + recurred.count, last_seen: maxIso(rule.last_seen, recurred.last_seen), last_reinforced: maxIso(rule.last_reinforced, minIso(recurred.last_seen, at)) };
    }
    const familyCalls = input.usage.families?.[rule.tool_name] ?? 0;
    // tool_calls counts the family: a shell program's calls come through the shell tool, an MCP server's through its tools.
    rule = { ...rule, tool_calls: rule.tool_calls + Math.max(familyCalls, input.usage.tools[rule.tool_name] ?? 0) };
    const night = input.usage.effects?.[id];
    // A night that adds nothing leaves the rule as it is (a ledger older than the counters gets them with its first calls).
    if (counted(rule) && (familyCalls > 0 || recurred || night)) rule = { ...rule, effect: addNight(rule.effect ?? emptyEffect(), familyCalls, recurred?.count ?? 0, night) };
    const access = input.usage.refs[id];
    if (access) {
      const last = minIso(access.last, at);
      rule = { ...rule, accesses: rule.accesses + access.count, last_accessed: maxIso(rule.last_accessed ?? '', last), last_reinforced: IN_TARGET.includes(rule.state) ? maxIso(rule.last_reinforced, last) : rule.last_reinforced };
    }
    const exposed = input.usage.exposures?.[id];
    // Shown at session start: use enough to stretch its grace (importance counts accesses), not to reset its
    // decay (the top of the list is shown every session; see UsageCounter.addExposure). Reminders came as refs.
    if (exposed) rule = { ...rule, exposures: addExposures(rule.exposures, exposed, at), accesses: rule.accesses + exposed.session_start };
    if (edited.has(id)) rule = { ...rule, last_reinforced: at };
    const checked = input.policy?.checked[id];
    if (checked) rule = { ...rule, policy_checked: checked };
    const flagged = input.policy?.flagged[id];
    if (flagged && rule.status !== 'invalidated') {
      const why = `the current safety policy ${flagged.severity === 'block' ? 'blocks' : 'warns about'} it (${flagged.violations.join('; ')})`;
      result.changes.push({ rule: id, field: 'status', from: rule.status, to: 'invalidated', reason: why, since: rule.state_since });
      rule = { ...rule, status: 'invalidated' };
      // A block is not left to decay: the rule leaves memory tonight, pinned or not (safety before pins).
      if (flagged.severity === 'block' && IN_TARGET.includes(rule.state)) {
        move('archived', why);
        result.archived.push(id);
        result.rules[id] = { ...currentOf(rule, 'archived', now), archive_reason: why, weight: 0, pinned: false, pinned_from: null };
        continue;
      }
    }

    // A superseded rule no longer receives its cluster's recurrences: its figures would only look better.
    // Restored when its failure recurs — unless the safety policy no longer accepts it (checked above).
    if (recurred && IN_ARCHIVE.includes(rule.state) && rule.status !== 'invalidated') {
      move('active', `its failure recurred (${recurred.count} times): restored instead of writing a new rule`);
      rule = { ...currentOf(rule, 'active', now), last_reinforced: at, archive_reason: null };
      result.restored.push(id);
    }
    if (IN_TARGET.includes(rule.state) && (rule.status === 'active' || rule.status === 'validated')) rule = judge(rule, settings, now, result);
    rule = { ...rule, weight: IN_TARGET.includes(rule.state) ? ruleWeight(rule, settings, now) : rule.weight };
    if (!rule.pinned) rule = age(rule, settings, now, move, result);
    result.rules[id] = rule;
  }
  return result;
}

/** Effectiveness, and the status change it earns: failures stopped while the tool kept being used. */
function judge(rule: LifecycleRule, settings: LifecycleSettings, now: Date, result: LifecycleResult): LifecycleRule {
  const effectiveness = measureEffectiveness(rule, settings, now);
  if (effectiveness.verdict === 'working' && rule.status === 'active') {
    result.changes.push({
      rule: rule.id, field: 'status', from: 'active', to: 'validated', since: rule.state_since,
      reason: `no failure for ${Math.floor(daysBetween(rule.hits > 0 ? rule.last_seen : rule.created, now))} days while ${rule.tool_name} was called ${rule.tool_calls} times since adoption`,
    });
    return { ...rule, effectiveness, status: 'validated' };
  }
  return { ...rule, effectiveness };
}

/** Moves a rule one step along decaying → archived → expired → deleted, or back to active when reinforced. */
function age(rule: LifecycleRule, settings: LifecycleSettings, now: Date, move: (to: RuleState, reason: string) => void, result: LifecycleResult): LifecycleRule {
  const state = rule.state;
  if (state === 'active' || state === 'decaying') {
    const idle = daysSinceReinforced(rule, now);
    const ttl = ttlDays(rule, settings);
    let reason: string | null = null;
    if (rule.weight < settings.archive_threshold) reason = `weight ${rule.weight.toFixed(2)} below archive_threshold ${settings.archive_threshold}`;
    else if (ttl !== null && idle > ttl) reason = `not reinforced for ${Math.floor(idle)} days (TTL ${Math.round(ttl)} days)`;
    if (reason) {
      move('archived', reason);
      result.archived.push(rule.id);
      return { ...currentOf(rule, 'archived', now), archive_reason: reason };
    }
    if (state === 'active' && rule.weight < settings.decaying_threshold) {
      move('decaying', `weight ${rule.weight.toFixed(2)} below decaying_threshold ${settings.decaying_threshold} (${Math.floor(idle)} days since last reinforced)`);
      return currentOf(rule, 'decaying', now);
    }
    if (state === 'decaying' && rule.weight >= settings.decaying_threshold) {
      move('active', `reinforced: weight back to ${rule.weight.toFixed(2)}`);
      return currentOf(rule, 'active', now);
    }
    return rule;
  }
  if (state === 'archived' && daysBetween(rule.state_since, now) > settings.archive_retention_days) {
    move('expired', `archived for more than archive_retention_days (${settings.archive_retention_days})`);
    return currentOf(rule, 'expired', now);
  }
  if (state === 'expired' && daysBetween(rule.state_since, now) > settings.expired_retention_days) {
    move('deleted', `expired for more than expired_retention_days (${settings.expired_retention_days}); its audit history stays`);
    return currentOf(rule, 'deleted', now);
  }
  return rule;
}

function currentOf(rule: LifecycleRule, state: RuleState, now: Date): LifecycleRule {
  return { ...rule, state, state_since: now.toISOString() };
}

/** Rules whose failures and calls count since adoption: failure rules in memory, not superseded. */
function counted(rule: LifecycleRule): boolean {
  return rule.kind === 'failure' && IN_TARGET.includes(rule.state) && rule.status !== 'refined';
}

/**
 * A night added to a rule's "did it work" counters: the family's calls and the cluster's recurrences go
 * to `after`; of them, those made after the rule was shown in their session to `exposed`, the rest to
 * `unexposed`. The exposed figures come from matching each failure as the hook does, the totals from the
 * gate: the exposed share is held within the totals, so the two always add up.
 */
function addNight(effect: RuleEffect, calls: number, failures: number, night: RuleEffectNight | undefined): RuleEffect {
  const exposed = { failures: Math.min(night?.exposed_failures ?? 0, failures), calls: Math.min(night?.exposed_calls ?? 0, calls) };
  return {
    ...effect,
    after: addTally(effect.after, { failures, calls }),
    exposed: addTally(effect.exposed, exposed),
    unexposed: addTally(effect.unexposed, { failures: failures - exposed.failures, calls: calls - exposed.calls }),
    after_reminder: {
      succeeded: effect.after_reminder.succeeded + (night?.reminder_next_ok ?? 0),
      failed: effect.after_reminder.failed + (night?.reminder_next_failed ?? 0),
    },
  };
}

/** A night's exposures added to a rule's totals. */
function addExposures(total: RuleExposure | undefined, night: RuleExposures, at: string): RuleExposure {
  const last = minIso(night.last, at);
  return {
    session_start: (total?.session_start ?? 0) + night.session_start,
    reminder: (total?.reminder ?? 0) + night.reminder,
    sessions: (total?.sessions ?? 0) + night.sessions.length,
    last: maxIso(total?.last ?? '', last),
  };
}

function maxIso(a: string, b: string): string {
  return a > b ? a : b;
}

function minIso(a: string, b: string): string {
  return a < b ? a : b;
}
