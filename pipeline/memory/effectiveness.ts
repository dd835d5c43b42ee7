import type { Settings } from '../settings/schema.js';
import type { Effectiveness, LifecycleRule } from './state.js';
import { daysBetween } from './decay.js';
import { failsWhenExposed, rateWithEnough } from './call-rates.js';

export type EffectivenessSettings = Pick<Settings, 'effectiveness_min_days' | 'ineffective_ratio' | 'validate_quiet_days' | 'validate_min_calls' | 'exposed_min_calls' | 'exposed_ineffective_ratio'>;

/**
 * Recursion dampening: did the failures the rule is about become rarer after it was adopted? Judged in
 * calls where the counters have enough of them (see call-rates.ts), in days otherwise:
 * - exposure: a rule whose failures per 100 calls when it was in front of the agent are not lower than
 *   when it was not (`exposed_ineffective_ratio`) keeps failing when seen: ineffective, as soon as both
 *   sides have `exposed_min_calls` calls (no need to wait `effectiveness_min_days`: the calls are the evidence);
 * - calls: after `effectiveness_min_days`, failures per 100 calls of its family since adoption against
 *   the night it was written;
 * - days: the same comparison per day, for rules without enough calls counted (agents without hooks or
 *   input summaries, rules older than the counters).
 */
export function measureEffectiveness(rule: LifecycleRule, settings: EffectivenessSettings, now: Date): Effectiveness {
  const observed = Math.max(1, Math.ceil(daysBetween(rule.provenance.first_seen, new Date(rule.provenance.last_seen))));
  const beforeDay = rule.provenance.count / observed;
  const since = daysBetween(rule.created, now);
  const afterDay = rule.hits / Math.max(1, since);
  const base = { before_per_day: round(beforeDay), after_per_day: round(afterDay), change: round(beforeDay > 0 ? afterDay / beforeDay - 1 : 0), days_since_adoption: round(since), tool_calls_since: rule.tool_calls };
  const effect = rule.effect;
  const fails = effect ? failsWhenExposed(effect, settings.exposed_min_calls, settings.exposed_ineffective_ratio) : null;
  if (fails) {
    const why = `${fails.exposed} failures per 100 calls when it was in front of the agent, ${fails.baseline} ${fails.from === 'unexposed' ? 'when it was not' : 'before adoption'}`;
    return { ...base, verdict: 'ineffective', basis: 'exposure', why };
  }
  const before = effect ? rateWithEnough(effect.before, settings.exposed_min_calls) : null;
  const after = effect ? rateWithEnough(effect.after, settings.exposed_min_calls) : null;
  const basis = before !== null && after !== null ? 'calls' : 'days';
  if (since < settings.effectiveness_min_days) return { ...base, verdict: 'measuring', basis };
  const worse = basis === 'calls' ? after! > 0 && after! >= before! * settings.ineffective_ratio : afterDay >= beforeDay * settings.ineffective_ratio;
  // Per day, the figures themselves say why (the report and the audit print them as they always have).
  if (worse) return { ...base, verdict: 'ineffective', basis, ...(basis === 'calls' ? { why: `${after} failures per 100 calls since adoption, ${before} before` } : {}) };
  const lastFailure = rule.hits > 0 && rule.last_seen > rule.created ? rule.last_seen : rule.created;
  const quiet = daysBetween(lastFailure, now) >= settings.validate_quiet_days;
  // Quiet because the tool is no longer called is not proof: the rule is unused, and decays normally.
  if (quiet && rule.tool_calls < settings.validate_min_calls) return { ...base, verdict: 'unused', basis };
  return { ...base, verdict: quiet ? 'working' : 'improving', basis };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
