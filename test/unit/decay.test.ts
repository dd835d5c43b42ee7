import { describe, expect, it } from 'vitest';
import { curveFor, decayWeight, importance, ruleWeight, ttlDays, type DecayCurve } from '../../pipeline/memory/decay.js';
import { withLifecycleDefaults, type LedgerEntry, type LifecycleRule } from '../../pipeline/memory/state.js';
import { defaultSettings, type Settings } from '../../pipeline/settings/schema.js';

const DAY_MS = 86_400_000;
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const iso = (days: number) => new Date(T0 + days * DAY_MS).toISOString();
/** `now` this many days after T0 (every rule below was last reinforced at T0). */
const at = (days: number) => new Date(T0 + days * DAY_MS);

/** A rule with importance 1: seen 3 times in one session, never accessed, no hits since adoption. */
function rule(over: Partial<LedgerEntry> = {}): LifecycleRule {
  const entry: LedgerEntry = {
    id: 'r-0a0b0c',
    cluster_id: 'c-0a0b0c',
    kind: 'failure',
    tool_name: 'bash',
    error_category: 'not_found',
    text: 'Check the path exists before reading it.',
    text_sha: 'sha-0a0b0c',
    target: 'memory',
    state: 'active',
    created: iso(0),
    last_seen: iso(0),
    hits: 0,
    pinned: false,
    last_reinforced: iso(0),
    provenance: {
      synthesizer: 'offline',
      count: 3,
      distinct_inputs: 3,
      sessions: 1,
      first_seen: iso(-2),
      last_seen: iso(0),
      evidence: [],
      safety: { verdict: 'pass', violations: [], evaluated: [], policy: 'default' },
      model: null,
      prompt_version: null,
    },
    ...over,
  };
  return withLifecycleDefaults(entry);
}

function settings(over: Partial<Settings> = {}): Settings {
  return { ...defaultSettings(), ...over };
}

function curve(over: Partial<DecayCurve> = {}): DecayCurve {
  return { fn: 'power-law', graceDays: 28, halfLifeDays: 30, linearDays: 90, steps: [], ...over };
}

describe('defaults the decay examples rely on', () => {
  it('power-law, 28-day grace, 30-day half-life, 90-day TTL, x4 importance cap', () => {
    const s = defaultSettings();
    expect(s.decay_function).toBe('power-law');
    expect(s.decay_grace_days).toBe(28);
    expect(s.decay_half_life_days).toBe(30);
    expect(s.decay_fast_grace_days).toBe(7);
    expect(s.decay_fast_half_life_days).toBe(14);
    expect(s.ttl_days).toBe(90);
    expect(s.importance_max_multiplier).toBe(4);
  });
});

describe('power-law decay (the default)', () => {
  it('weighs 1 for the whole grace period', () => {
    const s = settings();
    for (const days of [0, 1, 14, 27.9, 28]) expect(ruleWeight(rule(), s, at(days))).toBe(1);
    expect(ruleWeight(rule(), s, at(28.5))).toBeLessThan(1);
  });

  it('weighs 0.5 at grace + half-life (58 days)', () => {
    expect(ruleWeight(rule(), settings(), at(58))).toBe(0.5);
    expect(ruleWeight(rule(), settings(), at(57))).toBeGreaterThan(0.5);
    expect(ruleWeight(rule(), settings(), at(59))).toBeLessThan(0.5);
  });

  it('a `now` before the last reinforcement counts as no time at all', () => {
    expect(ruleWeight(rule(), settings(), at(-100))).toBe(1);
  });

  it('for large times, roughly halves again each time the time past grace quadruples', () => {
    const c = curve();
    for (const e of [3_000, 10_000, 100_000]) {
      const w = decayWeight(c, c.graceDays + e);
      const w4 = decayWeight(c, c.graceDays + 4 * e);
      expect(w4 / w).toBeCloseTo(0.5, 2);
    }
    // Not for small times: it is a power law, not an exponential.
    const early = decayWeight(c, 28 + 1);
    expect(decayWeight(c, 28 + 4) / early).toBeGreaterThan(0.6);
  });

  it('is slower than exponential in the long tail', () => {
    const long = 28 + 300;
    expect(decayWeight(curve(), long)).toBeGreaterThan(decayWeight(curve({ fn: 'exponential' }), long));
  });
});

describe('other decay functions', () => {
  it('exponential: 0.5 at the half-life, 0.25 at twice it', () => {
    const s = settings({ decay_function: 'exponential' });
    expect(ruleWeight(rule(), s, at(28))).toBe(1);
    expect(ruleWeight(rule(), s, at(28 + 30))).toBe(0.5);
    expect(ruleWeight(rule(), s, at(28 + 60))).toBe(0.25);
    expect(decayWeight(curve({ fn: 'exponential', graceDays: 0, halfLifeDays: 10 }), 30)).toBeCloseTo(0.125, 12);
  });

  it('linear: falls evenly to 0 at decay_linear_days past grace, and stays 0', () => {
    const s = settings({ decay_function: 'linear', decay_linear_days: 90 });
    expect(ruleWeight(rule(), s, at(28))).toBe(1);
    expect(ruleWeight(rule(), s, at(28 + 45))).toBe(0.5);
    expect(ruleWeight(rule(), s, at(28 + 90))).toBe(0);
    expect(ruleWeight(rule(), s, at(28 + 500))).toBe(0);
    expect(ruleWeight(rule(), settings({ decay_function: 'linear', decay_linear_days: 10 }), at(28 + 5))).toBe(0.5);
  });

  it('step: the configured steps, counted from the end of the grace period', () => {
    const s = settings({ decay_function: 'step' }); // 30: 0.5, 60: 0.25, 90: 0
    expect(ruleWeight(rule(), s, at(28 + 29.9))).toBe(1);
    expect(ruleWeight(rule(), s, at(28 + 30))).toBe(0.5);
    expect(ruleWeight(rule(), s, at(28 + 59))).toBe(0.5);
    expect(ruleWeight(rule(), s, at(28 + 60))).toBe(0.25);
    expect(ruleWeight(rule(), s, at(28 + 90))).toBe(0);
    const custom = settings({ decay_function: 'step', decay_steps: [{ after_days: 5, weight: 0.8 }, { after_days: 10, weight: 0.3 }] });
    expect(ruleWeight(rule(), custom, at(28 + 4))).toBe(1);
    expect(ruleWeight(rule(), custom, at(28 + 5))).toBe(0.8);
    expect(ruleWeight(rule(), custom, at(28 + 10))).toBe(0.3);
    expect(ruleWeight(rule(), custom, at(28 + 10_000))).toBe(0.3);
  });
});

describe('rules that do not decay, and rules that decay fast', () => {
  it('validated and pinned rules weigh 1 at any age, under every function', () => {
    for (const fn of ['power-law', 'exponential', 'linear', 'step'] as const) {
      const s = settings({ decay_function: fn });
      for (const days of [0, 58, 365, 10_000]) {
        expect(ruleWeight(rule({ status: 'validated' }), s, at(days))).toBe(1);
        expect(ruleWeight(rule({ pinned: true, state: 'pinned' }), s, at(days))).toBe(1);
      }
      // The same rule unvalidated and unpinned does decay.
      expect(ruleWeight(rule(), s, at(10_000))).toBeLessThan(0.1);
    }
  });

  it('refined and invalidated rules use the 7-day fast grace and 14-day half-life, whatever their importance', () => {
    const s = settings();
    for (const status of ['refined', 'invalidated'] as const) {
      const fast = rule({ status });
      expect(curveFor(fast, s)).toMatchObject({ graceDays: 7, halfLifeDays: 14 });
      expect(ruleWeight(fast, s, at(7))).toBe(1);
      expect(ruleWeight(fast, s, at(8))).toBeLessThan(1);
      expect(ruleWeight(fast, s, at(7 + 14))).toBe(0.5);
      // Strong evidence does not stretch a fast rule's grace period.
      const strong = rule({ status, provenance: { ...fast.provenance, count: 3000, sessions: 50 } });
      expect(curveFor(strong, s).graceDays).toBe(7);
    }
    // An ordinary active rule is still in its grace period at 21 days.
    expect(ruleWeight(rule(), s, at(21))).toBe(1);
  });

  it('skill-target rules use decay_grace_days_skills, memory rules decay_grace_days', () => {
    const s = settings({ decay_grace_days: 28, decay_grace_days_skills: 10 });
    const skill = rule({ target: 'skill:git' });
    expect(curveFor(skill, s).graceDays).toBe(10);
    expect(curveFor(rule(), s).graceDays).toBe(28);
    expect(ruleWeight(skill, s, at(10))).toBe(1);
    expect(ruleWeight(skill, s, at(10 + 30))).toBe(0.5);
    // At 28 days the memory rule is still in its grace period; the skill rule is 18 days past its own.
    expect(ruleWeight(rule(), s, at(28))).toBe(1);
    expect(ruleWeight(skill, s, at(28))).toBeLessThan(0.6);
  });
});

describe('importance and TTL', () => {
  const max = defaultSettings().importance_max_multiplier;

  it('is 1 for a rule seen 3 times in 1 session and never accessed (and never below 1)', () => {
    expect(importance(rule(), max)).toBe(1);
    expect(importance(rule({ provenance: { ...rule().provenance, count: 1 } }), max)).toBe(1);
  });

  it('grows with the log of count, sessions and accesses', () => {
    const base = rule();
    expect(importance({ ...base, provenance: { ...base.provenance, count: 6 } }, max)).toBeCloseTo(1.25, 12);
    expect(importance({ ...base, hits: 3 }, max)).toBeCloseTo(1.25, 12); // hits add to the count
    expect(importance({ ...base, provenance: { ...base.provenance, sessions: 4 } }, max)).toBeCloseTo(1.5, 12);
    expect(importance({ ...base, accesses: 1 }, max)).toBeCloseTo(1.25, 12);
  });

  it('is capped at importance_max_multiplier for huge evidence', () => {
    const huge = rule({ hits: 1e9, accesses: 1e9, provenance: { ...rule().provenance, count: 1e12, sessions: 1e6 } });
    expect(importance(huge, max)).toBe(4);
    expect(importance(huge, 2.5)).toBe(2.5);
  });

  it('stretches the grace period: an important rule has not started decaying when an ordinary one is at 0.5', () => {
    const s = settings();
    const important = rule({ provenance: { ...rule().provenance, sessions: 4 } }); // importance 1.5 → grace 42
    expect(curveFor(important, s).graceDays).toBeCloseTo(42, 9);
    expect(ruleWeight(important, s, at(42))).toBe(1);
    expect(ruleWeight(important, s, at(42 + 30))).toBe(0.5);
  });

  it('ttlDays: ttl_days x importance, null for validated and pinned rules', () => {
    const s = settings();
    expect(ttlDays(rule(), s)).toBe(90);
    expect(ttlDays(rule({ provenance: { ...rule().provenance, sessions: 4 } }), s)).toBeCloseTo(135, 9);
    expect(ttlDays(rule({ hits: 1e9, provenance: { ...rule().provenance, count: 1e12, sessions: 1e6 } }), s)).toBe(360);
    expect(ttlDays(rule({ status: 'validated' }), s)).toBeNull();
    expect(ttlDays(rule({ pinned: true, state: 'pinned' }), s)).toBeNull();
  });

  it('ttlDays: refined and invalidated rules leave within their fast grace plus two fast half-lives (capped by ttl_days)', () => {
    const s = settings();
    for (const status of ['refined', 'invalidated'] as const) {
      expect(ttlDays(rule({ status }), s)).toBe(7 + 2 * 14);
      // Importance does not stretch it.
      expect(ttlDays(rule({ status, hits: 1e9, provenance: { ...rule().provenance, count: 1e12, sessions: 1e6 } }), s)).toBe(35);
      expect(ttlDays(rule({ status }), settings({ ttl_days: 20 }))).toBe(20);
      expect(ttlDays(rule({ status }), settings({ decay_fast_grace_days: 1, decay_fast_half_life_days: 2 }))).toBe(5);
    }
  });
});
