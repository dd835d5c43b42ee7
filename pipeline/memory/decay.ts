import type { DecayFunctionName, DecayStep, Settings } from '../settings/schema.js';
import type { LifecycleRule } from './state.js';

/**
 * Decay functions: a rule's weight in [0, 1] from the days since it was last reinforced. Pure and
 * monotone: more elapsed time never gives more weight. No decay during the grace period.
 */
export interface DecayCurve {
  fn: DecayFunctionName;
  graceDays: number;
  halfLifeDays: number;
  linearDays: number;
  steps: DecayStep[];
}

export type DecaySettings = Pick<
  Settings,
  | 'decay_function' | 'decay_half_life_days' | 'decay_grace_days' | 'decay_grace_days_skills' | 'decay_linear_days' | 'decay_steps'
  | 'decay_fast_grace_days' | 'decay_fast_half_life_days' | 'ttl_days' | 'importance_max_multiplier'
>;

const DAY_MS = 86_400_000;

/** Weight after `days` past the grace period, for one decay function. */
export function decayWeight(curve: DecayCurve, elapsedDays: number): number {
  const e = Math.max(0, elapsedDays - curve.graceDays);
  if (e === 0) return 1;
  switch (curve.fn) {
    case 'power-law':
      // ACT-R style, b = 0.5: w = (1 + 3e/h)^-0.5 weighs 0.5 at e = h, then halves whenever 1 + 3e/h quadruples.
      return clamp((1 + (3 * e) / curve.halfLifeDays) ** -0.5);
    case 'exponential':
      return clamp(2 ** (-e / curve.halfLifeDays));
    case 'linear':
      return clamp(1 - e / curve.linearDays);
    case 'step': {
      let weight = 1;
      for (const step of curve.steps) if (e >= step.after_days) weight = Math.min(weight, step.weight);
      return clamp(weight);
    }
  }
}

/**
 * How much a rule's evidence and use stretch its grace period and TTL: 1 for a rule seen 3 times in one
 * session and never accessed, growing with the log of count, sessions and accesses, at most `max`.
 */
export function importance(rule: Pick<LifecycleRule, 'provenance' | 'hits' | 'accesses'>, max: number): number {
  const count = rule.provenance.count + rule.hits;
  const raw = 1 + 0.25 * Math.log2(Math.max(1, count / 3)) + 0.25 * Math.log2(Math.max(1, rule.provenance.sessions)) + 0.25 * Math.log2(1 + rule.accesses);
  return Math.min(max, Math.max(1, raw));
}

/** The curve a rule decays on: its target's tier, its status (refined/invalidated decay fast), its importance. */
export function curveFor(rule: LifecycleRule, settings: DecaySettings): DecayCurve {
  const fast = rule.status === 'refined' || rule.status === 'invalidated';
  const tierGrace = rule.target === 'memory' ? settings.decay_grace_days : settings.decay_grace_days_skills;
  const grace = fast ? settings.decay_fast_grace_days : tierGrace * importance(rule, settings.importance_max_multiplier);
  return {
    fn: settings.decay_function,
    graceDays: grace,
    halfLifeDays: fast ? settings.decay_fast_half_life_days : settings.decay_half_life_days,
    linearDays: settings.decay_linear_days,
    steps: settings.decay_steps,
  };
}

/** Days since the rule was last reinforced (never negative: a `now` before it counts as zero). */
export function daysSinceReinforced(rule: Pick<LifecycleRule, 'last_reinforced'>, now: Date): number {
  return Math.max(0, (now.getTime() - Date.parse(rule.last_reinforced)) / DAY_MS);
}

/** The rule's weight now. Validated and pinned rules do not decay. */
export function ruleWeight(rule: LifecycleRule, settings: DecaySettings, now: Date): number {
  if (rule.pinned || rule.status === 'validated') return 1;
  return round(decayWeight(curveFor(rule, settings), daysSinceReinforced(rule, now)));
}

/** Days without reinforcement after which a rule is archived whatever its weight (null: never). */
export function ttlDays(rule: LifecycleRule, settings: DecaySettings): number | null {
  if (rule.pinned || rule.status === 'validated') return null;
  // Superseded and invalidated rules leave within their fast grace plus two fast half-lives.
  if (rule.status === 'refined' || rule.status === 'invalidated') return Math.min(settings.ttl_days, settings.decay_fast_grace_days + 2 * settings.decay_fast_half_life_days);
  return settings.ttl_days * importance(rule, settings.importance_max_multiplier);
}

export function daysBetween(from: string, to: Date): number {
  return Math.max(0, (to.getTime() - Date.parse(from)) / DAY_MS);
}

function clamp(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return value > 1 ? 1 : value;
}

/** Four decimals: stable in state.json and in reports, and still monotone. */
function round(value: number): number {
  return Math.floor(value * 10_000) / 10_000;
}
