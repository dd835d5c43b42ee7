import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decayWeight, ruleWeight, type DecayCurve } from '../../pipeline/memory/decay.js';
import { evaluateLifecycle, type LifecycleInput, type LifecycleResult } from '../../pipeline/memory/lifecycle-evaluate.js';
import { addRules, parseMemory, removeRules, sanitizeRuleText, type MemoryRule } from '../../pipeline/memory/memory-md.js';
import { IN_ARCHIVE, IN_TARGET, withLifecycleDefaults, type LedgerEntry, type RuleState, type RuleStatus } from '../../pipeline/memory/state.js';
import { isAllowed, type FromState } from '../../pipeline/memory/transitions.js';
import { defaultSettings, type DecayFunctionName, type DecayStep, type Settings } from '../../pipeline/settings/schema.js';
import type { UsageSummary } from '../../pipeline/telemetry/usage.js';
import { ledgerEntry } from '../helpers/ledger.js';

const DAY_MS = 86_400_000;
const BASE = Date.parse('2024-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SEED = 20_250_101;
const RUNS = 200;

// ---------------------------------------------------------------------------------------------------
// Factories and arbitraries
// ---------------------------------------------------------------------------------------------------

const entry = (over: Partial<LedgerEntry> & { id: string }): LedgerEntry => ledgerEntry({ created: iso(BASE), text: `Rule text of ${over.id}.`, ...over });

const FNS: DecayFunctionName[] = ['power-law', 'exponential', 'linear', 'step'];
const STATES: RuleState[] = ['active', 'decaying', 'archived', 'expired', 'pinned', 'deleted', 'rejected'];
const STATUSES: RuleStatus[] = ['active', 'validated', 'refined', 'invalidated'];

/** fc.double spreads over float bit patterns (mostly tiny values): mix it with evenly spread hundredths. */
const posDays = (max: number) => fc.oneof(fc.integer({ min: 1, max: max * 100 }).map((n) => n / 100), fc.double({ min: 0.01, max, noNaN: true }));
const fraction = fc.oneof(fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000), fc.double({ min: 0, max: 1, noNaN: true }));

/** Steps as the settings check accepts them: days strictly increasing, weights from 1 down, never rising. */
const stepsArb: fc.Arbitrary<DecayStep[]> = fc
  .array(fc.tuple(posDays(200), fraction), { minLength: 1, maxLength: 5 })
  .map((pairs) => {
    const weights = pairs.map(([, w]) => w).sort((a, b) => b - a);
    let day = 0;
    return pairs.map(([gap], i) => {
      day += gap;
      return { after_days: day, weight: weights[i]! };
    });
  });

const curveArb: fc.Arbitrary<DecayCurve> = fc.record({
  fn: fc.constantFrom(...FNS),
  graceDays: fc.oneof(fc.integer({ min: 0, max: 36_500 }), posDays(1000)),
  halfLifeDays: posDays(10_000),
  linearDays: posDays(10_000),
  steps: stepsArb,
});

const settingsArb: fc.Arbitrary<Settings> = fc
  .record({
    decay_function: fc.constantFrom(...FNS),
    decay_half_life_days: posDays(400),
    decay_grace_days: fc.integer({ min: 0, max: 400 }),
    decay_grace_days_skills: fc.integer({ min: 0, max: 400 }),
    decay_linear_days: posDays(400),
    decay_steps: stepsArb,
    decay_fast_grace_days: fc.integer({ min: 0, max: 60 }),
    decay_fast_half_life_days: posDays(100),
    // Usually archive_threshold < decaying_threshold, as documented; sometimes not (the check does not enforce it).
    thresholds: fc.oneof(
      fc.tuple(fraction, fraction).map(([a, b]) => (a <= b ? [a, b] : [b, a])),
      fc.tuple(fraction, fraction),
    ),
    ttl_days: posDays(400),
    importance_max_multiplier: fc.double({ min: 1, max: 100, noNaN: true }),
    archive_retention_days: posDays(400),
    expired_retention_days: posDays(200),
    effectiveness_min_days: posDays(60),
    ineffective_ratio: fraction,
    validate_quiet_days: posDays(60),
    validate_min_calls: fc.integer({ min: 1, max: 100 }),
  })
  .map(({ thresholds: [archive, decaying], ...over }) => ({ ...defaultSettings(), ...over, archive_threshold: archive!, decaying_threshold: decaying! }));

const idArb = fc.stringMatching(/^r-[0-9a-f]{6}$/);

interface RuleOptions {
  states?: RuleState[];
  statuses?: (RuleStatus | undefined)[];
  pinned?: boolean;
}

/** A ledger entry in any state, with or without the lifecycle fields (older ledgers lack them). */
function ruleArb(id: string, options: RuleOptions = {}): fc.Arbitrary<LedgerEntry> {
  const ms = (maxDays: number) => fc.integer({ min: 0, max: maxDays * DAY_MS });
  return fc
    .record({
      state: fc.constantFrom(...(options.states ?? STATES)),
      status: fc.constantFrom(...(options.statuses ?? [undefined, ...STATUSES])),
      created: ms(400),
      seenAfter: ms(200),
      reinforcedAfter: fc.option(ms(200), { nil: undefined }),
      sinceAfter: fc.option(ms(300), { nil: undefined }),
      firstBefore: ms(30),
      hits: fc.integer({ min: 0, max: 50 }),
      accesses: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      tool_calls: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      weight: fc.option(fraction, { nil: undefined }),
      count: fc.integer({ min: 1, max: 2000 }),
      sessions: fc.integer({ min: 1, max: 60 }),
      target: fc.constantFrom('memory', 'memory', 'skill:git'),
      tool: fc.constantFrom('bash', 'git', 'read_file'),
    })
    .map((r) => {
      const created = BASE + r.created;
      const pinned = options.pinned ?? r.state === 'pinned';
      const state: RuleState = options.pinned ? 'pinned' : r.state;
      const base = entry({
        id,
        tool_name: r.tool,
        target: r.target,
        state,
        pinned,
        created: iso(created),
        last_seen: iso(created + (r.hits > 0 ? r.seenAfter : 0)),
        hits: r.hits,
        provenance: { ...entry({ id }).provenance, count: r.count, sessions: r.sessions, first_seen: iso(created - r.firstBefore), last_seen: iso(created) },
      });
      return {
        ...base,
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...(r.reinforcedAfter !== undefined ? { last_reinforced: iso(created + r.reinforcedAfter) } : {}),
        ...(r.sinceAfter !== undefined ? { state_since: iso(created + r.sinceAfter) } : {}),
        ...(r.accesses !== undefined ? { accesses: r.accesses } : {}),
        ...(r.tool_calls !== undefined ? { tool_calls: r.tool_calls } : {}),
        ...(r.weight !== undefined ? { weight: r.weight } : {}),
      };
    });
}

function ledgerArb(options: RuleOptions = {}, maxLength = 6): fc.Arbitrary<Record<string, LedgerEntry>> {
  return fc
    .uniqueArray(idArb, { minLength: 1, maxLength })
    .chain((ids) => fc.tuple(...ids.map((id) => ruleArb(id, options))))
    .map((rules) => Object.fromEntries(rules.map((r) => [r.id, r])));
}

/** Tonight's events for these rules, relative to `now` (some after it: clock skew). */
function nightArb(ids: string[]): fc.Arbitrary<(now: number) => Omit<LifecycleInput, 'rules'>> {
  const idx = fc.integer({ min: 0, max: ids.length - 1 });
  const back = fc.integer({ min: -DAY_MS, max: 20 * DAY_MS });
  return fc
    .record({
      recurrences: fc.array(fc.record({ i: idx, count: fc.integer({ min: 1, max: 20 }), back }), { maxLength: 4 }),
      tools: fc.dictionary(fc.constantFrom('bash', 'git', 'read_file', 'other'), fc.integer({ min: 0, max: 50 }), { maxKeys: 3 }),
      refs: fc.array(fc.record({ i: idx, count: fc.integer({ min: 1, max: 5 }), back }), { maxLength: 3 }),
      edited: fc.array(idx, { maxLength: 2 }),
    })
    .map((night) => (now: number) => {
      const refs: UsageSummary['refs'] = {};
      for (const r of night.refs) refs[ids[r.i]!] = { count: r.count, last: iso(now - r.back) };
      return {
        recurrences: night.recurrences.map((r) => ({ rule_id: ids[r.i]!, count: r.count, last_seen: iso(now - r.back) })),
        usage: { tools: night.tools, refs },
        edited: night.edited.map((i) => ids[i]!),
      };
    });
}

const quiet = (): Omit<LifecycleInput, 'rules'> => ({ recurrences: [], usage: { tools: {}, refs: {} }, edited: [] });

/** A ledger, a sequence of nights (each a later `now`), and settings. */
const scenarioArb = (options: RuleOptions = {}) =>
  ledgerArb(options).chain((rules) =>
    fc.record({
      rules: fc.constant(rules),
      settings: settingsArb,
      start: fc.integer({ min: 0, max: 800 * DAY_MS }),
      nights: fc.array(fc.tuple(fc.oneof(fc.integer({ min: 0, max: 20 * DAY_MS }), fc.integer({ min: 0, max: 200 * DAY_MS })), nightArb(Object.keys(rules))), { minLength: 1, maxLength: 8 }),
    }),
  );

/** Checks the result's changes against the rules before, and returns the states they lead to. */
function checkChanges(before: Record<string, LedgerEntry>, result: LifecycleResult): void {
  const states = new Map(Object.entries(before).map(([id, r]) => [id, r.state as FromState]));
  for (const change of result.changes) {
    if (change.field === 'state') {
      expect(isAllowed(change.from as FromState, change.to as RuleState), `${change.from} -> ${change.to}`).toBe(true);
      expect(change.from).toBe(states.get(change.rule));
      states.set(change.rule, change.to as RuleState);
    } else {
      // The only status change the evaluation makes: an active rule proven to work becomes validated.
      expect([change.from, change.to]).toEqual(['active', 'validated']);
    }
  }
  expect(Object.keys(result.rules).sort()).toEqual(Object.keys(before).sort());
  for (const [id, rule] of Object.entries(result.rules)) expect(rule.state).toBe(states.get(id));
  const stateChanges = result.changes.filter((c) => c.field === 'state');
  expect([...result.archived].sort()).toEqual(stateChanges.filter((c) => c.to === 'archived').map((c) => c.rule).sort());
  expect([...result.restored].sort()).toEqual(stateChanges.filter((c) => c.to === 'active' && IN_ARCHIVE.includes(c.from as RuleState)).map((c) => c.rule).sort());
}

// ---------------------------------------------------------------------------------------------------
// Decay
// ---------------------------------------------------------------------------------------------------

describe('decay properties', () => {
  it('(a) weight is always in [0, 1], for every decay function and elapsed time', () => {
    fc.assert(
      fc.property(curveArb, fc.double({ min: -1000, max: 1e7, noNaN: true }), (curve, elapsed) => {
        const w = decayWeight(curve, elapsed);
        expect(w).toBeGreaterThanOrEqual(0);
        expect(w).toBeLessThanOrEqual(1);
        if (elapsed <= curve.graceDays) expect(w).toBe(1);
      }),
      { numRuns: 300, seed: SEED },
    );
    fc.assert(
      fc.property(ledgerArb({}, 1), settingsArb, fc.integer({ min: -100 * DAY_MS, max: 5000 * DAY_MS }), (rules, settings, offset) => {
        const rule = withLifecycleDefaults(Object.values(rules)[0]!);
        const w = ruleWeight(rule, settings, new Date(BASE + offset));
        expect(w).toBeGreaterThanOrEqual(0);
        expect(w).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it('(b) weight never increases with elapsed time', () => {
    fc.assert(
      fc.property(curveArb, fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true }), (curve, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(decayWeight(curve, hi)).toBeLessThanOrEqual(decayWeight(curve, lo));
      }),
      { numRuns: 300, seed: SEED },
    );
    fc.assert(
      fc.property(ledgerArb({}, 1), settingsArb, fc.integer({ min: 0, max: 3000 * DAY_MS }), fc.integer({ min: 0, max: 3000 * DAY_MS }), (rules, settings, a, b) => {
        const rule = withLifecycleDefaults(Object.values(rules)[0]!);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(ruleWeight(rule, settings, new Date(BASE + hi))).toBeLessThanOrEqual(ruleWeight(rule, settings, new Date(BASE + lo)));
      }),
      { numRuns: 300, seed: SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// evaluateLifecycle
// ---------------------------------------------------------------------------------------------------

describe('evaluateLifecycle properties', () => {
  it('(c) is a pure function: identical inputs give identical outputs, and the input is not mutated', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ rules, settings, start, nights }) => {
        const now = BASE + start + nights[0]![0];
        const input: LifecycleInput = { rules, ...nights[0]![1](now) };
        const snapshot = structuredClone(input);
        const first = evaluateLifecycle(input, settings, new Date(now));
        const second = evaluateLifecycle(structuredClone(snapshot), { ...settings }, new Date(now));
        expect(second).toEqual(first);
        expect(input).toEqual(snapshot);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('(d) pinned rules stay pinned, at weight 1, whatever the time, recurrences, accesses and edits', () => {
    fc.assert(
      fc.property(scenarioArb({ pinned: true }), ({ rules, settings, start, nights }) => {
        let current = rules;
        let now = BASE + start;
        for (const [advance, night] of nights) {
          now += advance;
          const result = evaluateLifecycle({ rules: current, ...night(now) }, settings, new Date(now));
          expect(result.changes.filter((c) => c.field === 'state')).toEqual([]);
          expect(result.archived).toEqual([]);
          for (const rule of Object.values(result.rules)) {
            expect(rule.state).toBe('pinned');
            expect(rule.pinned).toBe(true);
            expect(rule.weight).toBe(1);
          }
          current = result.rules;
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('(e) every state change is an allowed transition, over any sequence of nights', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ rules, settings, start, nights }) => {
        let current = rules;
        let now = BASE + start;
        for (const [advance, night] of nights) {
          now += advance;
          const result = evaluateLifecycle({ rules: current, ...night(now) }, settings, new Date(now));
          checkChanges(current, result);
          for (const [id, rule] of Object.entries(result.rules)) {
            const before = current[id]!;
            // Terminal states never change (the entry comes back as it was).
            if (before.state === 'deleted' || before.state === 'rejected') expect(rule).toBe(before);
            // Rules in their target file carry a fresh weight in [0, 1].
            if (IN_TARGET.includes(rule.state)) {
              expect(rule.weight).toBeGreaterThanOrEqual(0);
              expect(rule.weight).toBeLessThanOrEqual(1);
            }
            // Evidence and accesses only accumulate.
            expect(rule.hits).toBeGreaterThanOrEqual(before.hits);
            expect(rule.accesses ?? 0).toBeGreaterThanOrEqual(before.accesses ?? 0);
          }
          current = result.rules;
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('(f) is idempotent: a second evaluation at the same `now` with nothing new changes nothing', () => {
    fc.assert(
      fc.property(scenarioArb(), ({ rules, settings, start, nights }) => {
        const now = new Date(BASE + start + nights[0]![0]);
        const first = evaluateLifecycle({ rules, ...nights[0]![1](now.getTime()) }, settings, now);
        const second = evaluateLifecycle({ rules: first.rules, ...quiet() }, settings, now);
        expect(second.changes).toEqual([]);
        expect(second.archived).toEqual([]);
        expect(second.restored).toEqual([]);
        // Not just the same up to weight/effectiveness: the same rules, weight and effectiveness included.
        expect(second.rules).toEqual(first.rules);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('(g) a rule archived past its TTL and restored by a recurrence keeps its id, text and metadata', () => {
    const scenario = fc
      .tuple(idArb, settingsArb)
      .chain(([id, settings]) =>
        fc.record({
          // Not invalidated: a rule the safety policy no longer accepts is never restored (its own test below).
          rule: ruleArb(id, { states: ['active', 'decaying'], statuses: [undefined, 'active', 'refined'] }).map((r) => ({ ...r, tool_calls: 0 })),
          settings: fc.constant(settings),
          // Optionally an evaluation in between (which may expire the archived rule), then the recurrence.
          between: fc.option(fc.integer({ min: 0, max: 600 * DAY_MS }), { nil: undefined }),
          later: fc.integer({ min: 0, max: 600 * DAY_MS }),
          count: fc.integer({ min: 1, max: 9 }),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ rule, settings, between, later, count }) => {
        const id = rule.id;
        const reinforced = Date.parse(withLifecycleDefaults(rule).last_reinforced);
        // Past any TTL this rule can have (ttl_days x importance, importance at most the multiplier).
        let now = reinforced + (settings.ttl_days * settings.importance_max_multiplier + 1) * DAY_MS;
        const archived = evaluateLifecycle({ rules: { [id]: rule }, ...quiet() }, settings, new Date(now));
        expect(archived.archived).toEqual([id]);
        expect(archived.rules[id]!.state).toBe('archived');
        expect(archived.rules[id]!.archive_reason).toEqual(expect.any(String));
        let current = archived.rules;
        if (between !== undefined) {
          now += between;
          current = evaluateLifecycle({ rules: current, ...quiet() }, settings, new Date(now)).rules;
          expect(IN_ARCHIVE).toContain(current[id]!.state);
        }
        now += later;
        const restored = evaluateLifecycle(
          { rules: current, recurrences: [{ rule_id: id, count, last_seen: iso(now) }], usage: { tools: {}, refs: {} }, edited: [] },
          settings,
          new Date(now),
        );
        checkChanges(current, restored);
        expect(restored.restored).toEqual([id]);
        const back = restored.rules[id]!;
        expect(back.state).toBe('active');
        expect(back.archive_reason).toBeNull();
        expect(back.last_reinforced).toBe(iso(now));
        expect(back.weight).toBe(1);
        expect(back.hits).toBe(rule.hits + count);
        for (const key of ['id', 'text', 'text_sha', 'target', 'provenance', 'created', 'cluster_id', 'kind', 'tool_name', 'error_category', 'pinned'] as const) {
          expect(back[key], key).toEqual(rule[key]);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// MEMORY.md: human text survives any sequence of adds and removes
// ---------------------------------------------------------------------------------------------------

describe('MEMORY.md human text under addRules/removeRules', () => {
  const RULE_LINE = /^\s*[-*]\s+(.*?)\s*<!--\s*rule:(r-[0-9a-f]{4,16})\s*-->\s*$/;
  const eolArb = fc.constantFrom('\n', '\r\n');
  const anyText = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 })).filter((s) => !/[\r\n]/.test(s));
  /** Human text that is neither the managed heading nor a fence line. */
  const humanText = anyText.filter((s) => !/^##\s+Derived Rules\s*$/i.test(s) && !/^ {0,3}(`{3,}|~{3,})/.test(s));
  /** Human text that can sit inside the section: also no heading (which would end it) and no rule bullet. */
  const sectionText = humanText.filter((s) => !/^#{1,2}\s/.test(s) && !RULE_LINE.test(s) && s.trim() !== '');
  const lookAlike = fc.constantFrom('## Derived Rules', '- fake rule <!-- rule:r-999999 -->', '* other <!-- rule:r-aaaa -->', '# Top', '## Other');
  const fenceBlock = fc
    .tuple(fc.constantFrom('```', '~~~', '````', '  ~~~~'), fc.constantFrom('', 'md', 'ts title="x"'), fc.array(fc.tuple(fc.oneof(humanText, lookAlike), eolArb), { maxLength: 4 }), eolArb, eolArb)
    .map(([marker, info, body, openEol, closeEol]) => `${marker}${info}${openEol}${body.map(([t, e]) => t + e).join('')}${marker.trim()}${closeEol}`);
  /** Outside the section: human lines, look-alike rules and headings (not the managed one), closed fences. */
  const outsideLines = fc.array(
    fc.oneof(
      fc.tuple(humanText, eolArb).map(([t, e]) => t + e),
      fc.tuple(lookAlike.filter((l) => l !== '## Derived Rules'), eolArb).map(([t, e]) => t + e),
      fenceBlock,
    ),
    { maxLength: 8 },
  );
  const ruleText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('x --> <!-- rule:r-ffffff -->', 'two\nlines', 'crlf\r\n## Notes', '```', '## Derived Rules', '  padded  ', 'a\u2028b'),
  );
  const op = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), texts: fc.array(ruleText, { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('remove' as const), picks: fc.array(fc.nat(), { maxLength: 3 }), unknown: fc.boolean() }),
  );

  /** The text's lines (each with its own line ending) after the heading, up to the next `#`/`##` heading. */
  function sectionChunks(text: string, start: number): string[] {
    const chunks = text.slice(start).split(/(?<=\n)/);
    const end = chunks.findIndex((c) => /^#{1,2}\s/.test(c));
    return end === -1 ? chunks : chunks.slice(0, end);
  }

  const humanInSection = (chunks: string[]) => chunks.filter((c) => c.trim() !== '' && !RULE_LINE.test(c.replace(/\r?\n$/, '')));

  it('(h) every byte outside the section, and every human line inside it, survives; the rules are the model', () => {
    fc.assert(
      fc.property(
        outsideLines,
        eolArb,
        fc.array(fc.oneof(fc.tuple(sectionText, eolArb).map(([t, e]) => t + e), eolArb, fc.tuple(ruleText, eolArb).map(([t, e]) => ({ text: t, eol: e }))), { maxLength: 5 }),
        eolArb,
        outsideLines,
        fc.boolean(),
        fc.array(op, { minLength: 1, maxLength: 8 }),
        (prefixParts, headingEol, bodyParts, notesEol, suffixParts, finalNewline, ops) => {
          let next = 0x100000;
          const newId = () => `r-${(next++).toString(16)}`;
          const model: MemoryRule[] = [];
          const body = bodyParts
            .map((part) => {
              if (typeof part === 'string') return part;
              const rule = { id: newId(), text: part.text };
              model.push(rule);
              return `- ${sanitizeRuleText(rule.text)} <!-- rule:${rule.id} -->${part.eol}`;
            })
            .join('');
          const prefix = prefixParts.join('');
          const headingLine = `## Derived Rules${headingEol}`;
          let suffix = `## Notes${notesEol}${suffixParts.join('')}`;
          if (!finalNewline) suffix = suffix.replace(/\r?\n$/, '');
          const original = `${prefix}${headingLine}${body}${suffix}`;
          expect(parseMemory(original).rules.map((r) => r.id)).toEqual(model.map((r) => r.id));
          const human = humanInSection(sectionChunks(original, prefix.length + headingLine.length));

          let text = original;
          for (const step of ops) {
            if (step.kind === 'add') {
              const rules = step.texts.map((t) => ({ id: newId(), text: t }));
              text = addRules(text, rules);
              model.push(...rules);
            } else {
              const ids = new Set(step.picks.flatMap((p) => (model.length > 0 ? [model[p % model.length]!.id] : [])));
              if (step.unknown) ids.add('r-abcdef0');
              text = removeRules(text, ids);
              for (let i = model.length - 1; i >= 0; i--) if (ids.has(model[i]!.id)) model.splice(i, 1);
            }
            expect(text.startsWith(`${prefix}${headingLine}`)).toBe(true);
            expect(text.endsWith(suffix)).toBe(true);
            expect(humanInSection(sectionChunks(text, prefix.length + headingLine.length))).toEqual(human);
            const parsed = parseMemory(text);
            expect(parsed.rules).toEqual(model.map((r) => ({ id: r.id, text: sanitizeRuleText(r.text) })));
          }
          // Removing every derived rule leaves the human text: the original minus its bullets, up to blank lines in the section.
          const bare = removeRules(text, new Set(model.map((r) => r.id)));
          expect(parseMemory(bare).rules).toEqual([]);
          const squeeze = (s: string) => s.replace(/(\r?\n)(?:\r?\n)+/g, '$1');
          const originalBare = removeRules(original, new Set(parseMemory(original).rules.map((r) => r.id)));
          expect(squeeze(bare)).toBe(squeeze(originalBare));
          // Archiving the last rule and adding one, night after night, does not pile up blank lines.
          let cycled = bare;
          for (let night = 0; night < 10; night++) cycled = removeRules(addRules(cycled, [{ id: 'r-c0ffee', text: 'again' }]), new Set(['r-c0ffee']));
          expect(squeeze(cycled)).toBe(squeeze(bare));
          expect(cycled.split('\n').length).toBeLessThanOrEqual(bare.split('\n').length + 2);
        },
      ),
      { numRuns: 300, seed: SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// A reference walk with the default settings (the examples the properties generalise)
// ---------------------------------------------------------------------------------------------------

describe('evaluateLifecycle, night by night with the default settings', () => {
  /** Evaluates `rule` once a day for `days` days with the given nightly tool calls; returns the day of each state change. */
  function walk(rule: LedgerEntry, days: number, callsPerNight = 0): { day: number; to: string; field: string }[] {
    const settings = defaultSettings();
    let rules: Record<string, LedgerEntry> = { [rule.id]: rule };
    const seen: { day: number; to: string; field: string }[] = [];
    for (let day = 1; day <= days; day++) {
      const now = new Date(BASE + day * DAY_MS);
      const result = evaluateLifecycle({ rules, recurrences: [], usage: { tools: callsPerNight > 0 ? { bash: callsPerNight } : {}, refs: {} }, edited: [] }, settings, now);
      checkChanges(rules, result);
      for (const change of result.changes) seen.push({ day, to: String(change.to), field: change.field });
      rules = result.rules;
    }
    return seen;
  }

  it('an unused rule decays at day 59, is archived after its 90-day TTL, expires after 180 days, is deleted 30 days later', () => {
    // The ledger entry of an older ledger (no lifecycle fields): reinforced when created.
    const rule = entry({ id: 'r-00aa11', provenance: { ...entry({ id: 'r-00aa11' }).provenance, first_seen: iso(BASE - 2 * DAY_MS) } });
    expect(walk(rule, 400)).toEqual([
      { day: 59, to: 'decaying', field: 'state' },
      { day: 91, to: 'archived', field: 'state' },
      { day: 91 + 181, to: 'expired', field: 'state' },
      { day: 91 + 181 + 31, to: 'deleted', field: 'state' },
    ]);
  });

  it('a refined (superseded) rule decays on the fast curve: decaying at day 22, archived after its 35-day TTL, never judged', () => {
    const rule = entry({ id: 'r-00dd44', status: 'refined' });
    expect(walk(rule, 260, 5)).toEqual([
      { day: 22, to: 'decaying', field: 'state' },
      { day: 36, to: 'archived', field: 'state' },
      { day: 36 + 181, to: 'expired', field: 'state' },
      { day: 36 + 181 + 31, to: 'deleted', field: 'state' },
    ]);
    // Its effectiveness is not measured (an active rule in the same night is).
    const active = entry({ id: 'r-00dd45' });
    const night = evaluateLifecycle({ rules: { [rule.id]: rule, [active.id]: active }, recurrences: [], usage: { tools: { bash: 100 }, refs: {} }, edited: [] }, defaultSettings(), new Date(BASE + 20 * DAY_MS));
    expect(night.rules[rule.id]!.effectiveness).toBeUndefined();
    expect(night.rules[active.id]!.effectiveness).toMatchObject({ verdict: 'working' });
  });

  it('a rule whose failure stopped while its tool kept being called is validated at 14 days and never decays', () => {
    const rule = entry({ id: 'r-00bb22', provenance: { ...entry({ id: 'r-00bb22' }).provenance, first_seen: iso(BASE - 2 * DAY_MS) } });
    expect(walk(rule, 400, 5)).toEqual([{ day: 14, to: 'validated', field: 'status' }]);
  });

  it('a recurrence on an archived rule restores it instead of leaving it archived', () => {
    const settings = defaultSettings();
    const rule = entry({ id: 'r-00cc33' });
    const archivedAt = new Date(BASE + 91 * DAY_MS);
    const archived = evaluateLifecycle({ rules: { [rule.id]: rule }, ...quiet() }, settings, archivedAt);
    expect(archived.changes.map((c) => [c.from, c.to])).toEqual([['active', 'archived']]);
    expect(archived.rules[rule.id]!.archive_reason).toBe('not reinforced for 91 days (TTL 90 days)');
    const restoredAt = new Date(BASE + 100 * DAY_MS);
    const restored = evaluateLifecycle(
      { rules: archived.rules, recurrences: [{ rule_id: rule.id, count: 2, last_seen: iso(BASE + 99 * DAY_MS) }], usage: { tools: {}, refs: {} }, edited: [] },
      settings,
      restoredAt,
    );
    expect(restored.changes.map((c) => [c.from, c.to, c.since])).toEqual([['archived', 'active', archivedAt.toISOString()]]);
    expect(restored.restored).toEqual([rule.id]);
    expect(restored.rules[rule.id]).toMatchObject({ state: 'active', state_since: restoredAt.toISOString(), last_reinforced: restoredAt.toISOString(), hits: 2, weight: 1, archive_reason: null });
  });
});

describe('rules the safety policy no longer accepts', () => {
  it('an archived invalidated rule is not restored when its failure recurs', () => {
    const settings = defaultSettings();
    const rule = entry({ id: 'r-abcdef', state: 'archived', status: 'invalidated', state_since: '2026-01-02T00:00:00.000Z' });
    const out = evaluateLifecycle({ rules: { [rule.id]: rule }, recurrences: [{ rule_id: rule.id, count: 5, last_seen: '2026-01-03T00:00:00.000Z' }], usage: { tools: {}, refs: {} }, edited: [] }, settings, new Date('2026-01-03T12:00:00Z'));
    expect(out.restored).toEqual([]);
    expect(out.rules[rule.id]!.state).toBe('archived');
  });
});
