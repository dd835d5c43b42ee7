import type { Settings } from '../settings/schema.js';
import type { Effectiveness, LifecycleRule } from './state.js';
import { daysBetween } from './decay.js';

export type EffectivenessSettings = Pick<Settings, 'effectiveness_min_days' | 'ineffective_ratio' | 'validate_quiet_days' | 'validate_min_calls'>;

/**
 * Recursion dampening: did the failures the rule is about become rarer after it was adopted? Before: the
 * cluster's count over the days it was observed before adoption. After: recurrences since adoption
 * over the days since. A rule is judged only after `effectiveness_min_days`.
 */
export function measureEffectiveness(rule: LifecycleRule, settings: EffectivenessSettings, now: Date): Effectiveness {
  const observed = Math.max(1, Math.ceil(daysBetween(rule.provenance.first_seen, new Date(rule.provenance.last_seen))));
  const before = rule.provenance.count / observed;
  const since = daysBetween(rule.created, now);
  const after = rule.hits / Math.max(1, since);
  const base = { before_per_day: round(before), after_per_day: round(after), change: round(before > 0 ? after / before - 1 : 0), days_since_adoption: round(since), tool_calls_since: rule.tool_calls };
  if (since < settings.effectiveness_min_days) return { ...base, verdict: 'measuring' };
  if (after >= before * settings.ineffective_ratio) return { ...base, verdict: 'ineffective' };
  const lastFailure = rule.hits > 0 && rule.last_seen > rule.created ? rule.last_seen : rule.created;
  const quiet = daysBetween(lastFailure, now) >= settings.validate_quiet_days;
  // Quiet because the tool is no longer called is not proof: the rule is unused, and decays normally.
  if (quiet && rule.tool_calls < settings.validate_min_calls) return { ...base, verdict: 'unused' };
  return { ...base, verdict: quiet ? 'working' : 'improving' };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
