import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addTally, describeRate, emptyEffect, failsWhenExposed, per100, rateWithEnough } from '../../pipeline/memory/call-rates.js';
import { measureEffectiveness } from '../../pipeline/memory/effectiveness.js';
import { evaluateLifecycle } from '../../pipeline/memory/lifecycle-evaluate.js';
import { parseState, renderState, withLifecycleDefaults, type LedgerEntry, type RuleEffect, type State } from '../../pipeline/memory/state.js';
import { defaultSettings } from '../../pipeline/settings/schema.js';
import { emptyUsage, type UsageSummary } from '../../pipeline/telemetry/usage.js';
import { ledgerEntry } from '../helpers/ledger.js';

/** The arithmetic of "did it work": failures per 100 calls, and the verdict it leads to. */
const tallyArb = fc.record({ failures: fc.nat(10_000), calls: fc.nat(10_000) });
const settings = { ...defaultSettings(), exposed_min_calls: 20 };
const CREATED = '2026-11-01T00:00:00.000Z';

describe('failures per 100 calls', () => {
  it('is within [0, 100] for any tally, and exactly failures / calls × 100 (one decimal) when failures ≤ calls', () => {
    fc.assert(fc.property(tallyArb, (tally) => {
      const rate = per100(tally);
      if (tally.calls === 0 && tally.failures === 0) return expect(rate).toBeNull();
      expect(rate).toBeGreaterThanOrEqual(0);
      expect(rate).toBeLessThanOrEqual(100);
      // Half of the last decimal, and the float error of a value that lies exactly halfway (12.345 → 12.3 or 12.4).
      if (tally.failures <= tally.calls) expect(Math.abs(rate! - (tally.failures / tally.calls) * 100)).toBeLessThanOrEqual(0.05 + 1e-9);
    }));
  });

  it('adding tallies is associative and commutative, and the rate of a sum lies between the rates of its parts', () => {
    fc.assert(fc.property(tallyArb, tallyArb, tallyArb, (a, b, c) => {
      expect(addTally(addTally(a, b), c)).toEqual(addTally(a, addTally(b, c)));
      expect(addTally(a, b)).toEqual(addTally(b, a));
      const [ra, rb, rs] = [per100(a), per100(b), per100(addTally(a, b))];
      if (ra !== null && rb !== null && a.failures <= a.calls && b.failures <= b.calls) {
        expect(rs!).toBeGreaterThanOrEqual(Math.min(ra, rb) - 0.1);
        expect(rs!).toBeLessThanOrEqual(Math.max(ra, rb) + 0.1);
      }
    }));
  });

  it('is not shown under the minimum of calls', () => {
    expect(rateWithEnough({ failures: 3, calls: 19 }, 20)).toBeNull();
    expect(rateWithEnough({ failures: 3, calls: 20 }, 20)).toBe(15);
    expect(describeRate({ failures: 3, calls: 8 }, 20)).toBe('– (not enough calls: 8 of 20)');
    expect(describeRate({ failures: 1, calls: 8 }, 4)).toBe('12.5 per 100 calls (1 of 8)');
    // Three failures counted among two calls (a failure named by its error, not its command): three calls.
    expect(describeRate({ failures: 3, calls: 2 }, 3)).toBe('100 per 100 calls (3 of 3)');
  });
});

const rule = (effect: RuleEffect | undefined, over: Partial<LedgerEntry> = {}) => withLifecycleDefaults(ledgerEntry({
  id: 'r-00000000000000aa', tool_name: 'pytest', created: CREATED, ...(effect ? { effect } : {}), ...over,
}));
const effect = (over: Partial<RuleEffect>): RuleEffect => ({ ...emptyEffect(), ...over });

describe('the verdict', () => {
  it('is ineffective when failures per 100 calls are not lower while the rule was in front of the agent, as soon as both sides have enough calls', () => {
    const keepsFailing = effect({ before: { failures: 6, calls: 40 }, exposed: { failures: 5, calls: 25 }, unexposed: { failures: 4, calls: 20 } });
    const verdict = measureEffectiveness(rule(keepsFailing), settings, new Date('2026-11-03T00:00:00Z'));
    expect(verdict).toMatchObject({ verdict: 'ineffective', basis: 'exposure', why: '20 failures per 100 calls when it was in front of the agent, 20 when it was not' });
  });

  it('without enough unexposed calls, holds the exposed rate against the rate before adoption (every session saw the rule)', () => {
    const worse = effect({ before: { failures: 3, calls: 30 }, exposed: { failures: 6, calls: 30 }, unexposed: { failures: 0, calls: 2 } });
    expect(measureEffectiveness(rule(worse), settings, new Date('2026-11-03T00:00:00Z'))).toMatchObject({ verdict: 'ineffective', basis: 'exposure', why: '20 failures per 100 calls when it was in front of the agent, 10 before adoption' });
    const better = effect({ before: { failures: 9, calls: 30 }, exposed: { failures: 1, calls: 30 } });
    expect(measureEffectiveness(rule(better), settings, new Date('2026-11-03T00:00:00Z')).verdict).toBe('measuring');
    expect(failsWhenExposed(better, 20, 1)).toBeNull();
  });

  it('never flags on too few calls: the day-based verdict stands (agents without hooks, rules older than the counters)', () => {
    const few = effect({ before: { failures: 3, calls: 5 }, exposed: { failures: 3, calls: 5 } });
    const now = new Date('2026-11-30T00:00:00Z');
    const withFew = measureEffectiveness(rule(few, { hits: 0, tool_calls: 50 }), settings, now);
    const without = measureEffectiveness(rule(undefined, { hits: 0, tool_calls: 50 }), settings, now);
    expect(withFew).toMatchObject({ verdict: 'working', basis: 'days' });
    expect(without).toMatchObject({ verdict: 'working', basis: 'days' });
  });

  it('after effectiveness_min_days, compares per 100 calls before and since when both have enough calls', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    const same = effect({ before: { failures: 5, calls: 50 }, after: { failures: 10, calls: 100 } });
    // Per day the failures fell (3 in one day before, 10 in 29 days since): per call they did not.
    expect(measureEffectiveness(rule(same, { hits: 10, last_seen: '2026-11-29T00:00:00.000Z' }), settings, now)).toMatchObject({ verdict: 'ineffective', basis: 'calls', why: '10 failures per 100 calls since adoption, 10 before' });
    const fell = effect({ before: { failures: 5, calls: 50 }, after: { failures: 1, calls: 100 } });
    expect(measureEffectiveness(rule(fell, { hits: 1, last_seen: '2026-11-29T00:00:00.000Z' }), settings, now)).toMatchObject({ verdict: 'improving', basis: 'calls' });
  });
});

describe('a night added to the counters', () => {
  const usage = (families: Record<string, number>, effects: UsageSummary['effects']): UsageSummary => ({ ...emptyUsage(), families, ...(effects ? { effects } : {}) });

  it('exposed and unexposed always add up to since adoption, and the next call after a reminder is summed', () => {
    fc.assert(fc.property(
      fc.array(fc.record({ calls: fc.nat(50), failures: fc.nat(10), exposedCalls: fc.nat(60), exposedFailures: fc.nat(12), ok: fc.nat(3), failed: fc.nat(3) }), { minLength: 1, maxLength: 6 }),
      (nights) => {
        let rules: Record<string, LedgerEntry> = { 'r-00000000000000aa': rule(effect({ before: { failures: 3, calls: 10 } })) };
        nights.forEach((night, i) => {
          const now = new Date(Date.parse(CREATED) + (i + 1) * 86_400_000);
          const recurrences = night.failures > 0 ? [{ rule_id: 'r-00000000000000aa', count: night.failures, last_seen: now.toISOString() }] : [];
          const effects = { 'r-00000000000000aa': { exposed_calls: night.exposedCalls, exposed_failures: night.exposedFailures, reminder_next_ok: night.ok, reminder_next_failed: night.failed } };
          rules = evaluateLifecycle({ rules, recurrences, usage: usage({ pytest: night.calls }, effects), edited: [] }, { ...settings, ttl_days: 10_000 }, now).rules;
        });
        const e = rules['r-00000000000000aa']!.effect!;
        expect(addTally(e.exposed, e.unexposed)).toEqual(e.after);
        expect(e.after).toEqual({ calls: nights.reduce((s, n) => s + n.calls, 0), failures: nights.reduce((s, n) => s + n.failures, 0) });
        expect(e.after_reminder).toEqual({ succeeded: nights.reduce((s, n) => s + n.ok, 0), failed: nights.reduce((s, n) => s + n.failed, 0) });
        expect(e.before).toEqual({ failures: 3, calls: 10 });
        for (const tally of [e.after, e.exposed, e.unexposed]) expect(per100(tally) ?? 0).toBeLessThanOrEqual(100);
      },
    ));
  });

  it('counts nothing for a rule out of memory or superseded, and starts counting for a rule older than the counters', () => {
    const night = usage({ pytest: 7 }, undefined);
    const now = new Date('2026-11-02T00:00:00Z');
    const out = evaluateLifecycle({
      rules: {
        'r-00000000000000aa': ledgerEntry({ id: 'r-00000000000000aa', tool_name: 'pytest', created: CREATED }),
        'r-00000000000000bb': ledgerEntry({ id: 'r-00000000000000bb', tool_name: 'pytest', created: CREATED, status: 'refined' }),
        'r-00000000000000cc': ledgerEntry({ id: 'r-00000000000000cc', tool_name: 'pytest', created: CREATED, state: 'archived' }),
      },
      recurrences: [], usage: night, edited: [],
    }, settings, now);
    expect(out.rules['r-00000000000000aa']!.effect).toEqual(effect({ after: { failures: 0, calls: 7 }, unexposed: { failures: 0, calls: 7 } }));
    expect(out.rules['r-00000000000000bb']!.effect).toBeUndefined();
    expect(out.rules['r-00000000000000cc']!.effect).toBeUndefined();
    // tool_calls counts the family too (a shell program's calls come through Bash).
    expect(out.rules['r-00000000000000aa']!.tool_calls).toBe(7);
  });
});

describe('state.json with the counters', () => {
  const base = (rules: Record<string, LedgerEntry>): State => ({ version: 1, last_sleep: null, cursors: {}, baselines: {}, pending: {}, rules, burned: {}, quarantine: {}, llm_cache: {} });

  it('round-trips a rule with its counters, and loads a ledger written before them (counted from the next night)', () => {
    const withEffect = base({ 'r-00000000000000aa': ledgerEntry({ id: 'r-00000000000000aa', effect: effect({ before: { failures: 3, calls: 9 }, after_reminder: { succeeded: 1, failed: 0 } }) }) });
    expect(parseState(renderState(withEffect), 'state.json')).toEqual(withEffect);
    const old = base({ 'r-00000000000000aa': ledgerEntry({ id: 'r-00000000000000aa' }) });
    expect(parseState(renderState(old), 'state.json').rules['r-00000000000000aa']!.effect).toBeUndefined();
  });

  it('stops with E_STATE naming a broken counter', () => {
    const broken = JSON.parse(renderState(base({ 'r-00000000000000aa': ledgerEntry({ id: 'r-00000000000000aa', effect: emptyEffect() }) })));
    broken.rules['r-00000000000000aa'].effect.exposed.calls = -1;
    expect(() => parseState(JSON.stringify(broken), 'state.json')).toThrow(/rules\.r-00000000000000aa\.effect\.exposed\.calls/);
  });
});
