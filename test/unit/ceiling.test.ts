import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { enforceCeiling } from '../../pipeline/memory/ceiling.js';
import { countLines, removeRules, renderRule } from '../../pipeline/memory/memory-md.js';
import type { EffectivenessVerdict, LedgerEntry, RuleState, RuleStatus } from '../../pipeline/memory/state.js';
import { ledgerEntry } from '../helpers/ledger.js';

const CREATED = '2025-01-01T00:00:00.000Z';

const entry = (over: Partial<LedgerEntry> & { id: string }): LedgerEntry => ledgerEntry({ created: CREATED, last_reinforced: CREATED, weight: 1, ...over });

function ledger(...rules: LedgerEntry[]): Record<string, LedgerEntry> {
  return Object.fromEntries(rules.map((r) => [r.id, r]));
}

/** 6 human lines (title, blanks, a note, the heading and the blank after it), then one bullet per rule. */
const HUMAN = '# Memory\n\nKeep answers short.\n\n## Derived Rules\n\n';
function memory(rules: LedgerEntry[], eol = '\n'): string {
  return (HUMAN + rules.map((r) => `${renderRule({ id: r.id, text: r.text })}\n`).join('')).replace(/\n/g, eol);
}

describe('enforceCeiling', () => {
  const a = entry({ id: 'r-00000a', weight: 0.9 });
  const b = entry({ id: 'r-00000b', weight: 0.2 });
  const c = entry({ id: 'r-00000c', weight: 0.6 });
  const d = entry({ id: 'r-00000d', weight: 0.4 });

  it('archives nothing at or under the ceiling', () => {
    const text = memory([a, b, c, d]); // 10 lines
    expect(countLines(text)).toBe(10);
    for (const max of [10, 11, 500]) {
      expect(enforceCeiling(text, ledger(a, b, c, d), max)).toEqual({ max_lines: max, lines_before: 10, lines_after: 10, archived: [], human_lines: 6, warning: null });
    }
  });

  it('a missing MEMORY.md is 0 lines', () => {
    expect(enforceCeiling(undefined, ledger(a), 10)).toMatchObject({ lines_before: 0, lines_after: 0, archived: [], human_lines: 0, warning: null });
  });

  it('over the ceiling, archives the lowest-weight rules first, just enough to fit', () => {
    const text = memory([a, b, c, d]);
    expect(enforceCeiling(text, ledger(a, b, c, d), 9)).toMatchObject({ lines_before: 10, lines_after: 9, archived: ['r-00000b'], warning: null });
    expect(enforceCeiling(text, ledger(a, b, c, d), 8).archived).toEqual(['r-00000b', 'r-00000d']);
    const outcome = enforceCeiling(text, ledger(a, b, c, d), 7);
    expect(outcome).toMatchObject({ lines_after: 7, archived: ['r-00000b', 'r-00000d', 'r-00000c'], human_lines: 6 });
    // The outcome's line count is what removing those bullets really gives.
    expect(countLines(removeRules(text, new Set(outcome.archived)))).toBe(7);
  });

  it('counts CRLF files and files without a final newline the same way', () => {
    const crlf = memory([a, b, c, d], '\r\n');
    expect(enforceCeiling(crlf, ledger(a, b, c, d), 8)).toMatchObject({ lines_before: 10, lines_after: 8, archived: ['r-00000b', 'r-00000d'] });
    const noFinal = memory([a, b, c, d]).replace(/\n$/, '');
    expect(enforceCeiling(noFinal, ledger(a, b, c, d), 9)).toMatchObject({ lines_before: 10, archived: ['r-00000b'] });
  });

  it('on equal weights, the rule reinforced longest ago goes first, then the smaller id', () => {
    const old = entry({ id: 'r-0000f1', weight: 0.3, last_reinforced: '2025-01-02T00:00:00.000Z' });
    const older = entry({ id: 'r-0000f2', weight: 0.3, last_reinforced: '2025-01-01T12:00:00.000Z' });
    const sameAsOldY = entry({ id: 'r-0000e9', weight: 0.3, last_reinforced: '2025-01-02T00:00:00.000Z' });
    const heavier = entry({ id: 'r-000001', weight: 0.31, last_reinforced: '2020-01-01T00:00:00.000Z' });
    // Without last_reinforced, an entry counts from its creation.
    const legacy = entry({ id: 'r-0000aa', weight: 0.3, last_reinforced: undefined, created: '2025-01-01T06:00:00.000Z' });
    const rules = [heavier, old, older, sameAsOldY, legacy];
    const text = memory(rules); // 11 lines
    expect(enforceCeiling(text, ledger(...rules), 6).archived).toEqual(['r-0000aa', 'r-0000f2', 'r-0000e9', 'r-0000f1', 'r-000001']);
    expect(enforceCeiling(text, ledger(...rules), 9).archived).toEqual(['r-0000aa', 'r-0000f2']);
  });

  it('on equal weights, superseded rules go first, then unused, then ordinary, then validated ones', () => {
    const effectiveness = (verdict: 'unused' | 'working' | 'measuring') => ({ before_per_day: 1, after_per_day: 0, change: -1, verdict, days_since_adoption: 20, tool_calls_since: 0 });
    // The validated rule was reinforced longest ago and has the smallest id: rank still comes first.
    const validated = entry({ id: 'r-000010', weight: 1, status: 'validated', last_reinforced: '2024-01-01T00:00:00.000Z' });
    const ordinary = entry({ id: 'r-000020', weight: 1, status: 'active', effectiveness: effectiveness('measuring'), last_reinforced: '2024-06-01T00:00:00.000Z' });
    const legacy = entry({ id: 'r-000030', weight: 1, status: undefined, effectiveness: undefined, last_reinforced: '2024-07-01T00:00:00.000Z' });
    const unused = entry({ id: 'r-000040', weight: 1, status: 'active', effectiveness: effectiveness('unused'), last_reinforced: '2025-01-01T00:00:00.000Z' });
    const refined = entry({ id: 'r-000050', weight: 1, status: 'refined', last_reinforced: '2025-02-01T00:00:00.000Z' });
    const invalidated = entry({ id: 'r-000060', weight: 1, status: 'invalidated', last_reinforced: '2025-01-15T00:00:00.000Z' });
    const rules = [validated, ordinary, legacy, unused, refined, invalidated];
    const text = memory(rules); // 12 lines
    expect(enforceCeiling(text, ledger(...rules), 6).archived).toEqual(['r-000060', 'r-000050', 'r-000040', 'r-000020', 'r-000030', 'r-000010']);
    // Weight still comes before rank: a lighter validated rule goes before a heavier superseded one.
    const lightValidated = { ...validated, weight: 0.5 };
    expect(enforceCeiling(text, ledger(lightValidated, ordinary, legacy, unused, refined, invalidated), 11).archived).toEqual(['r-000010']);
  });

  it('on equal weight and rank, rules written tonight go before the rules a flood of them would push out', () => {
    const TONIGHT = '2026-11-22T03:00:00.000Z';
    // The real rule was written last night and not reinforced since; the flood is tonight's.
    const real = entry({ id: 'r-ffffff', created: '2026-11-21T03:00:00.000Z', last_reinforced: '2026-11-21T03:00:00.000Z' });
    const flood = Array.from({ length: 20 }, (_, i) => entry({ id: `r-0000${(i + 16).toString(16)}`, created: TONIGHT, last_reinforced: TONIGHT }));
    const text = memory([real, ...flood]); // 27 lines
    const outcome = enforceCeiling(text, ledger(real, ...flood), 10, TONIGHT);
    expect(outcome.archived).toHaveLength(17);
    expect(outcome.archived).not.toContain(real.id);
    expect(removeRules(text, new Set(outcome.archived))).toContain(real.id);
    // A lighter (decayed) older rule still goes first: the flood rule only wins ties.
    const worn = { ...real, weight: 0.4 };
    expect(enforceCeiling(text, ledger(worn, ...flood), 26, TONIGHT).archived).toEqual([real.id]);
    // Without knowing tonight, the longest unreinforced goes first, as before.
    expect(enforceCeiling(text, ledger(real, ...flood), 26).archived).toEqual([real.id]);
  });

  it('a rule without a recorded weight counts as weight 1', () => {
    const fresh = entry({ id: 'r-000f00', weight: undefined });
    const worn = entry({ id: 'r-000f01', weight: 0.99 });
    expect(enforceCeiling(memory([fresh, worn]), ledger(fresh, worn), 7).archived).toEqual(['r-000f01']);
  });

  it('never chooses pinned rules, skill-target rules, rules not in the file, or rules not in a target state', () => {
    const pinned = entry({ id: 'r-00a001', weight: 0, pinned: true, state: 'pinned' });
    const pinnedActive = entry({ id: 'r-00a002', weight: 0, pinned: true });
    const skill = entry({ id: 'r-00a003', weight: 0, target: 'skill:git' });
    const gone = entry({ id: 'r-00a004', weight: 0 }); // in the ledger, not in the file
    const archived = entry({ id: 'r-00a005', weight: 0, state: 'archived' });
    const decaying = entry({ id: 'r-00a006', weight: 0.45, state: 'decaying' });
    const active = entry({ id: 'r-00a007', weight: 0.5 });
    const inFile = [pinned, pinnedActive, skill, archived, decaying, active];
    const text = memory(inFile); // 12 lines
    const all = ledger(...inFile, gone);
    expect(enforceCeiling(text, all, 11).archived).toEqual(['r-00a006']);
    const outcome = enforceCeiling(text, all, 10);
    expect(outcome).toMatchObject({ archived: ['r-00a006', 'r-00a007'], lines_after: 10, warning: null });
  });

  it('human text alone over the ceiling: a warning, and nothing archived', () => {
    const human = Array.from({ length: 12 }, (_, i) => `human line ${i}`).join('\n');
    const text = `${human}\n## Derived Rules\n${renderRule({ id: a.id, text: a.text })}\n${renderRule({ id: b.id, text: b.text })}\n`;
    const outcome = enforceCeiling(text, ledger(a, b), 10);
    expect(outcome).toMatchObject({ lines_before: 15, lines_after: 15, archived: [], human_lines: 13 });
    expect(outcome.warning).toMatch(/13 lines of human text, over the 10-line ceiling/);
    // Human text exactly at the ceiling: the rules go, no warning.
    expect(enforceCeiling(text, ledger(a, b), 13)).toMatchObject({ archived: ['r-00000b', 'r-00000a'], lines_after: 13, warning: null });
  });

  it('a derived-looking bullet inside a code fence is human text, never archived', () => {
    const fenced = `${HUMAN}\`\`\`\n${renderRule({ id: b.id, text: b.text })}\n\`\`\`\n${renderRule({ id: a.id, text: a.text })}\n`;
    const outcome = enforceCeiling(fenced, ledger(a, b), 9);
    expect(outcome).toMatchObject({ lines_before: 10, human_lines: 9, archived: ['r-00000a'], lines_after: 9 });
  });

  it('property: archives a shortest prefix of the candidates in (weight, rank, last_reinforced, id) order', () => {
    const ruleArb = fc.record({
      weight: fc.option(fc.integer({ min: 0, max: 4 }).map((n) => n / 4), { nil: undefined }),
      day: fc.integer({ min: 1, max: 3 }),
      pinned: fc.boolean(),
      skill: fc.boolean(),
      state: fc.constantFrom<RuleState>('active', 'active', 'decaying', 'pinned', 'archived'),
      status: fc.constantFrom<RuleStatus | undefined>(undefined, 'active', 'validated', 'refined', 'invalidated'),
      verdict: fc.constantFrom<EffectivenessVerdict | null>(null, 'unused', 'working', 'measuring'),
      inFile: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 12 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 24 }), (specs, humanExtra, max) => {
        const rules = specs.map((s, i) => {
          // A rule in state pinned always has the pinned flag (a pinned flag in another state is tolerated too).
          const pinned = s.pinned || s.state === 'pinned';
          return entry({
            id: `r-${(0xabc000 + ((i * 7919) % 4096)).toString(16)}`,
            weight: s.weight,
            last_reinforced: `2025-01-0${s.day}T00:00:00.000Z`,
            pinned,
            state: pinned && s.state !== 'archived' && s.state !== 'decaying' ? 'pinned' : s.state,
            target: s.skill ? 'skill:git' : 'memory',
            ...(s.status ? { status: s.status } : {}),
            effectiveness: s.verdict ? { before_per_day: 1, after_per_day: 0, change: -1, verdict: s.verdict, days_since_adoption: 20, tool_calls_since: 0 } : null,
          });
        });
        const inFile = rules.filter((_, i) => specs[i]!.inFile);
        const text = `${HUMAN}${'human\n'.repeat(humanExtra)}${inFile.map((r) => `${renderRule({ id: r.id, text: r.text })}\n`).join('')}`;
        const outcome = enforceCeiling(text, ledger(...rules), max);
        // Superseded first, then unused, then the rest, validated last.
        const rank = (r: LedgerEntry) => (r.status === 'refined' || r.status === 'invalidated' ? 0 : r.status === 'validated' ? 3 : r.effectiveness?.verdict === 'unused' ? 1 : 2);
        const key = (r: LedgerEntry) => [r.weight ?? 1, rank(r), r.last_reinforced!, r.id] as const;
        const before = (x: LedgerEntry, y: LedgerEntry) => {
          const [p, q] = [key(x), key(y)];
          for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i]! < q[i]!;
          return false;
        };
        const candidates = inFile.filter((r) => r.target === 'memory' && !r.pinned && (r.state === 'active' || r.state === 'decaying')).sort((x, y) => (before(x, y) ? -1 : 1));
        expect(outcome.lines_before).toBe(6 + humanExtra + inFile.length);
        expect(outcome.human_lines).toBe(6 + humanExtra);
        if (outcome.human_lines > max) {
          expect(outcome.archived).toEqual([]);
          expect(outcome.warning).not.toBeNull();
          return;
        }
        const need = Math.max(0, outcome.lines_before - max);
        // A warning exactly when archiving every candidate still leaves the file over the ceiling.
        expect(outcome.warning === null).toBe(candidates.length >= need);
        expect(outcome.archived).toEqual(candidates.slice(0, Math.min(need, candidates.length)).map((r) => r.id));
        expect(outcome.lines_after).toBe(outcome.lines_before - outcome.archived.length);
        expect(countLines(removeRules(text, new Set(outcome.archived)))).toBe(outcome.lines_after);
        if (candidates.length >= need) expect(outcome.lines_after).toBeLessThanOrEqual(max);
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});

describe('enforceCeiling with hand-made lines', () => {
  const human = 'h1\nh2\nh3\nh4\nh5\nh6\nh7\n## Derived Rules\n';
  const entry = (id: string, extra: Partial<LedgerEntry>): LedgerEntry =>
    ({ id, target: 'memory', state: 'active', pinned: false, created: '2025-01-01T00:00:00.000Z', weight: 0.5, ...extra }) as LedgerEntry;

  it('counts every bullet of a hand-duplicated id, so it archives no more than needed', () => {
    const text = `${human}- a <!-- rule:r-111111 -->\n- a again <!-- rule:r-111111 -->\n- b <!-- rule:r-222222 -->\n`;
    const rules = { 'r-111111': entry('r-111111', { weight: 0.1 }), 'r-222222': entry('r-222222', { weight: 0.2 }) };
    const outcome = enforceCeiling(text, rules, 9);
    expect(outcome.archived).toEqual(['r-111111']);
    expect(outcome.lines_after).toBe(9);
    expect(countLines(removeRules(text, new Set(outcome.archived)))).toBe(9);
  });

  it('warns when pinned rules keep the file over the ceiling', () => {
    const text = human + [0, 1, 2, 3].map((i) => `- p${i} <!-- rule:r-00000${i} -->\n`).join('');
    const rules = Object.fromEntries([0, 1, 2, 3].map((i) => [`r-00000${i}`, entry(`r-00000${i}`, { state: 'pinned', pinned: true })]));
    const outcome = enforceCeiling(text, rules, 10);
    expect(outcome.archived).toEqual([]);
    expect(outcome.warning).toMatch(/12 lines, over its 10-line ceiling/);
  });
});
