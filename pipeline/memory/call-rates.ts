import type { CallTally, RuleEffect } from './state-types.js';

/**
 * Failures per 100 calls: the arithmetic behind "did it work". Pure. A failure is itself a call of its
 * family, so a tally whose calls were under-counted (a shell failure named by its error text, a call
 * whose command line names another program) is read with at least as many calls as failures: a rate
 * never exceeds 100.
 */
export function per100(tally: CallTally): number | null {
  const calls = Math.max(tally.calls, tally.failures);
  if (calls === 0) return null;
  return Math.round((tally.failures / calls) * 1000) / 10;
}

/** The rate when the tally has at least `minCalls` calls, else null (too few to say anything). */
export function rateWithEnough(tally: CallTally, minCalls: number): number | null {
  return Math.max(tally.calls, tally.failures) >= minCalls ? per100(tally) : null;
}

export function addTally(a: CallTally, b: CallTally): CallTally {
  return { failures: a.failures + b.failures, calls: a.calls + b.calls };
}

export const NO_CALLS: CallTally = { failures: 0, calls: 0 };

export function emptyEffect(): RuleEffect {
  return { before: NO_CALLS, after: NO_CALLS, exposed: NO_CALLS, unexposed: NO_CALLS, after_reminder: { succeeded: 0, failed: 0 } };
}

/** `12.5 per 100 calls (1 of 8)`, or `– (not enough calls: 8 of 20)` under the minimum. */
export function describeRate(tally: CallTally, minCalls: number): string {
  const calls = Math.max(tally.calls, tally.failures);
  const rate = rateWithEnough(tally, minCalls);
  if (rate === null) return `– (not enough calls: ${calls} of ${minCalls})`;
  return `${rate} per 100 calls (${tally.failures} of ${calls})`;
}

/** The short form for tables: `12.5`, or `–` under the minimum. */
export function shortRate(tally: CallTally, minCalls: number): string {
  const rate = rateWithEnough(tally, minCalls);
  return rate === null ? '–' : String(rate);
}

/** `2 of 3` successes after a reminder, or `–` when no reminder was followed by a call of the family yet. */
export function describeAfterReminder(after: RuleEffect['after_reminder']): string {
  const total = after.succeeded + after.failed;
  return total === 0 ? '–' : `${after.succeeded} of ${total}`;
}

/**
 * The rate the exposed rate is held against: since adoption when the rule was not in front of the agent,
 * when there were enough such calls; else before adoption (when every session since had it in context,
 * as with Claude Code's hooks, the night before is the only time the agent worked without it).
 */
export function unexposedBaseline(effect: RuleEffect, minCalls: number): { rate: number; from: 'unexposed' | 'before' } | null {
  const unexposed = rateWithEnough(effect.unexposed, minCalls);
  if (unexposed !== null) return { rate: unexposed, from: 'unexposed' };
  const before = rateWithEnough(effect.before, minCalls);
  return before === null ? null : { rate: before, from: 'before' };
}

/**
 * Whether the rule keeps failing when exposed: with enough exposed calls and a baseline, its exposed rate
 * is at least `ratio` × the baseline (a failure rate not lower than without the rule, by default). No
 * exposed failure is never "keeps failing", whatever the baseline.
 */
export function failsWhenExposed(effect: RuleEffect, minCalls: number, ratio: number): { exposed: number; baseline: number; from: 'unexposed' | 'before' } | null {
  const exposed = rateWithEnough(effect.exposed, minCalls);
  const baseline = unexposedBaseline(effect, minCalls);
  if (exposed === null || baseline === null || effect.exposed.failures === 0) return null;
  return exposed >= baseline.rate * ratio ? { exposed, baseline: baseline.rate, from: baseline.from } : null;
}

/** A tally with its rate, null under the minimum: what `--json` shows (the text says "–"). */
export interface RateFigure extends CallTally {
  per_100_calls: number | null;
}

export interface EffectFigures {
  /** The minimum of calls a rate needs to be shown (exposed_min_calls). */
  min_calls: number;
  before: RateFigure;
  after: RateFigure;
  exposed: RateFigure;
  unexposed: RateFigure;
  after_reminder: RuleEffect['after_reminder'];
}

export function effectFigures(effect: RuleEffect, minCalls: number): EffectFigures {
  const figure = (tally: CallTally): RateFigure => ({ ...tally, per_100_calls: rateWithEnough(tally, minCalls) });
  return {
    min_calls: minCalls,
    before: figure(effect.before), after: figure(effect.after), exposed: figure(effect.exposed), unexposed: figure(effect.unexposed),
    after_reminder: { ...effect.after_reminder },
  };
}

/** The lines `explain` and the report print under a rule: its failures per 100 calls of `family`, each way. */
export function describeEffect(effect: RuleEffect, family: string, minCalls: number): string[] {
  const reminded = effect.after_reminder.succeeded + effect.after_reminder.failed;
  return [
    `failures of its cluster per 100 calls of ${family}:`,
    `  before adoption (the night it was written): ${describeRate(effect.before, minCalls)}`,
    `  since adoption: ${describeRate(effect.after, minCalls)}`,
    `  exposed (after it was put in front of the agent in the session): ${describeRate(effect.exposed, minCalls)}`,
    `  not exposed: ${describeRate(effect.unexposed, minCalls)}`,
    reminded === 0
      ? `after a reminder: no call of ${family} followed one yet`
      : `after a reminder, the next call of ${family} in that session succeeded ${effect.after_reminder.succeeded} of ${reminded} times`,
  ];
}
