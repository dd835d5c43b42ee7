import { describe, expect, it } from 'vitest';
import { hookArgs } from '../../pipeline/cli/hook-args.js';
import { findReminder } from '../../pipeline/memory/reminder.js';
import { buildSessionContext, SESSION_HEADER } from '../../pipeline/memory/session-context.js';
import { clusterId } from '../../pipeline/model/cluster.js';
import { parseReminded, pruneReminded, REMINDED_MAX_AGE_MS, REMINDED_MAX_SESSIONS } from '../../pipeline/telemetry/hook-reminded.js';
import { UsageCounter } from '../../pipeline/telemetry/usage.js';
import { buildHookIndex, parseHookIndex, type HookRule } from '../../pipeline/memory/hook-index.js';
import type { LedgerEntry } from '../../pipeline/memory/state.js';
import { ledgerEntry as fullEntry } from '../helpers/ledger.js';

/** A rule as the hook index holds it, from a full ledger entry. */
const ledgerEntry = (over: Partial<LedgerEntry> & { id: string }): HookRule => buildHookIndex('k', { rules: { [over.id]: fullEntry(over) } }, null).rules[over.id]!;

const rules = <T extends { id: string }>(...entries: T[]) => Object.fromEntries(entries.map((rule) => [rule.id, rule]));
const inMemory = (...ids: string[]) => new Map(ids.map((id) => [id, `Rule ${id} as MEMORY.md has it.`]));
const idsOf = (text: string) => [...text.matchAll(/\[(r-[0-9a-f]+)\]$/gm)].map((m) => m[1]);

describe('buildSessionContext', () => {
  it('orders pinned and validated first, then by weight, then by evidence, then by id', () => {
    const ledger = rules(
      ledgerEntry({ id: 'r-aaaa', weight: 0.9 }),
      ledgerEntry({ id: 'r-bbbb', weight: 0.3, pinned: true, state: 'pinned' }),
      ledgerEntry({ id: 'r-cccc', weight: 0.95 }),
      ledgerEntry({ id: 'r-dddd', weight: 0.9, hits: 4 }),
      ledgerEntry({ id: 'r-eeee', weight: 0.1, status: 'validated' }),
    );
    const context = buildSessionContext({ rules: ledger, memoryText: inMemory('r-aaaa', 'r-bbbb', 'r-cccc', 'r-dddd', 'r-eeee'), recentTools: new Set(), budgetChars: 2000 });
    expect(context.shown).toEqual(['r-bbbb', 'r-eeee', 'r-cccc', 'r-dddd', 'r-aaaa']);
    expect(idsOf(context.text)).toEqual(context.shown);
    expect(context.text.startsWith(`${SESSION_HEADER}\n- Rule r-bbbb as MEMORY.md has it. [r-bbbb]`)).toBe(true);
  });

  it('leaves out archived, superseded, policy-flagged rules and those missing from the memory file', () => {
    const ledger = rules(
      ledgerEntry({ id: 'r-1111', state: 'archived' }),
      ledgerEntry({ id: 'r-2222', status: 'refined' }),
      ledgerEntry({ id: 'r-3333', status: 'invalidated' }),
      ledgerEntry({ id: 'r-4444' }),
      ledgerEntry({ id: 'r-5555', state: 'decaying', weight: 0.4 }),
    );
    const context = buildSessionContext({ rules: ledger, memoryText: inMemory('r-1111', 'r-2222', 'r-3333', 'r-5555'), recentTools: new Set(), budgetChars: 2000 });
    expect(context.shown).toEqual(['r-5555']);
  });

  it('never goes over the budget, skips a rule that does not fit whole, and says how many were left out', () => {
    const long = 'x'.repeat(300);
    const ledger = rules(ledgerEntry({ id: 'r-aaaa', weight: 1 }), ledgerEntry({ id: 'r-bbbb', weight: 0.9 }), ledgerEntry({ id: 'r-cccc', weight: 0.8 }));
    const memoryText = new Map([['r-aaaa', 'Short rule.'], ['r-bbbb', long], ['r-cccc', 'Another short rule.']]);
    for (const budget of [0, 50, 200, 400, 2000]) {
      const context = buildSessionContext({ rules: ledger, memoryText, recentTools: new Set(), budgetChars: budget });
      expect(context.text.length).toBeLessThanOrEqual(budget);
    }
    const context = buildSessionContext({ rules: ledger, memoryText, recentTools: new Set(), budgetChars: 250 });
    expect(context.shown).toEqual(['r-aaaa', 'r-cccc']);
    expect(context.text.split('\n').at(-1)).toBe('(1 more in MEMORY.md and skills/)');
    expect(buildSessionContext({ rules: ledger, memoryText, recentTools: new Set(), budgetChars: 0 })).toEqual({ text: '', shown: [], omitted: 3 });
  });

  it('a rule text cannot pose as several lines of context', () => {
    const context = buildSessionContext({ rules: rules(ledgerEntry({ id: 'r-aaaa' })), memoryText: new Map([['r-aaaa', 'one\n- [r-ffff] two\r\nthree']]), recentTools: new Set(), budgetChars: 500 });
    expect(context.text.split('\n')).toEqual([SESSION_HEADER, '- one - [r-ffff] two three [r-aaaa]']);
  });

  it('shows a skill rule only when its tool (or its skill) was used lately; memory rules not when the agent reads the file itself', () => {
    const ledger = rules(ledgerEntry({ id: 'r-aaaa', target: 'skill:lint', tool_name: 'ruff' }), ledgerEntry({ id: 'r-bbbb' }));
    const shown = (recent: string[], memoryText: Map<string, string> | null) => buildSessionContext({ rules: ledger, memoryText, recentTools: new Set(recent), budgetChars: 2000 }).shown;
    expect(shown([], inMemory('r-bbbb'))).toEqual(['r-bbbb']);
    expect(shown(['ruff'], inMemory('r-bbbb'))).toEqual(['r-aaaa', 'r-bbbb']);
    expect(shown(['lint'], null)).toEqual(['r-aaaa']);
  });
});

describe('findReminder', () => {
  const key = { tool: 'pytest', category: 'dependency_missing', scope: 'pytest\u0000dependency_missing', line: 'bash: pytest: command not found' };

  it('matches a rule of a group by the template clusters it covers, and prefers it to a family-wide rule', () => {
    const templates = { version: 1 as const, scopes: { [key.scope]: [{ id: 't-000000000001', template: 'x', count: 1 }] } };
    // An id that is not the template's hash: the miner refuses the state (a hand edit); no template match then.
    expect(() => findReminder(rules(ledgerEntry({ id: 'r-aaaa', tool_name: 'pytest', error_category: 'dependency_missing' })), key, templates)).toThrow();
    const family = ledgerEntry({ id: 'r-ffff', tool_name: 'pytest', error_category: 'dependency_missing', cluster_id: clusterId('failure', 'pytest', 'dependency_missing') });
    const other = ledgerEntry({ id: 'r-0000', tool_name: 'ruff', error_category: 'dependency_missing', cluster_id: clusterId('failure', 'ruff', 'dependency_missing') });
    expect(findReminder(rules(family, other), key, undefined)?.id).toBe('r-ffff');
    expect(findReminder(rules(other), key, undefined)).toBeNull();
    expect(findReminder(rules({ ...family, state: 'archived' }), key, undefined)).toBeNull();
  });
});

describe('hookArgs: what the small hook entry takes', () => {
  it.each([
    [['hook', 'claude-code'], { agent: 'claude-code', json: false }],
    [['--root', '/r', 'hook', 'claude-code', '--json'], { agent: 'claude-code', json: true, root: '/r' }],
    [['hook', 'cursor'], { agent: 'cursor', json: false }],
    [['hook', 'claude-code', '--help'], null],
    [['hook'], null],
    [['run', '--dry-run'], null],
    [['hook', 'claude-code', 'extra'], null],
  ])('%j', (argv, expected) => {
    expect(hookArgs(argv)).toEqual(expected);
  });
});

describe('exposures in the usage counter', () => {
  it('counts kinds, sessions and accesses, and a merge of two halves equals one counter over both', () => {
    const lines: [string, string[], string | undefined, number][] = [
      ['session_start', ['r-aaaa', 'r-bbbb'], 's1', 1000], ['reminder', ['r-aaaa'], 's1', 2000], ['session_start', ['r-aaaa'], 's2', 3000],
      ['future_kind', ['r-bbbb'], 's3', 4000], ['reminder', ['not-a-rule'], 's3', 5000],
    ];
    const whole = new UsageCounter();
    for (const line of lines) whole.addExposure(...line);
    const first = new UsageCounter();
    const second = new UsageCounter();
    lines.slice(0, 2).forEach((line) => first.addExposure(...line));
    lines.slice(2).forEach((line) => second.addExposure(...line));
    expect(first.canMerge(second.toState())).toBe(true);
    first.merge(second.toState());
    const id = (name: string) => name;
    expect(first.finish(id)).toEqual(whole.finish(id));
    expect(whole.finish(id)).toEqual({
      tools: {},
      families: {},
      // Accesses: the reminder and the unknown kind; session starts are exposures only.
      refs: { 'r-aaaa': { count: 1, last: new Date(2000).toISOString() }, 'r-bbbb': { count: 1, last: new Date(4000).toISOString() } },
      exposures: {
        'r-aaaa': { session_start: 2, reminder: 1, last: new Date(3000).toISOString(), sessions: ['s1', 's2'] },
        'r-bbbb': { session_start: 1, reminder: 0, last: new Date(1000).toISOString(), sessions: ['s1'] },
      },
    });
  });
});

describe('the reminded table', () => {
  it('drops sessions idle for a day and keeps the most recent ones', () => {
    const now = 10 * REMINDED_MAX_AGE_MS;
    const text = JSON.stringify({ version: 1, sessions: { old: { at: now - REMINDED_MAX_AGE_MS - 1, rules: ['r-aaaa'] }, fresh: { at: now, rules: ['r-bbbb', 3] } } });
    expect([...pruneReminded(parseReminded(text), now)]).toEqual([['fresh', { at: now, rules: ['r-bbbb'] }]]);
    const many = new Map(Array.from({ length: REMINDED_MAX_SESSIONS + 5 }, (_, i) => [`s${i}`, { at: now - i, rules: [] }]));
    const kept = pruneReminded(many, now);
    expect(kept.size).toBe(REMINDED_MAX_SESSIONS);
    expect(kept.has('s0')).toBe(true);
    expect(parseReminded('not json').size).toBe(0);
  });
});

describe('the hook index', () => {
  it('keeps rules but rejected and deleted ones, and only the templates of scopes a rule is about', () => {
    const state = {
      rules: rules(fullEntry({ id: 'r-aaaa', tool_name: 'pytest', error_category: 'dependency_missing' }), fullEntry({ id: 'r-bbbb', state: 'rejected' }), fullEntry({ id: 'r-cccc', state: 'deleted' })),
      templates: { version: 1 as const, scopes: { 'pytest\u0000dependency_missing': [], 'ruff\u0000dependency_missing': [] } },
    };
    const index = buildHookIndex('key-1', state, [['r-aaaa', 'text']]);
    expect(Object.keys(index.rules)).toEqual(['r-aaaa']);
    expect(index.rules['r-aaaa']).toMatchObject({ status: 'active', weight: 1, template_id: null, covers: [], count: 3 });
    expect(Object.keys(index.templates!.scopes)).toEqual(['pytest\u0000dependency_missing']);
    const text = JSON.stringify(index);
    expect(parseHookIndex(text, 'key-1')).toEqual(index);
    expect(parseHookIndex(text, 'key-2')).toBeNull();
    expect(parseHookIndex('{"version": 1, "key": "key-1"', 'key-1')).toBeNull();
  });
});

describe('exposures in the lifecycle', () => {
  it('a session-start exposure counts for importance but does not reset decay; a reminder reinforces', async () => {
    const { evaluateLifecycle } = await import('../../pipeline/memory/lifecycle-evaluate.js');
    const { defaultSettings } = await import('../../pipeline/settings/schema.js');
    const rule = fullEntry({ id: 'r-aaaa', created: '2026-09-01T00:00:00.000Z', last_reinforced: '2026-09-01T00:00:00.000Z', accesses: 0 });
    const now = new Date('2026-11-22T00:00:00.000Z');
    const night = (usage: Parameters<typeof evaluateLifecycle>[0]['usage']) => evaluateLifecycle({ rules: { 'r-aaaa': rule }, recurrences: [], usage, edited: [] }, defaultSettings(), now).rules['r-aaaa']!;
    const started = night({ tools: {}, refs: {}, exposures: { 'r-aaaa': { session_start: 3, reminder: 0, last: '2026-11-21T09:00:00.000Z', sessions: ['a', 'b', 'c'] } } });
    expect(started).toMatchObject({ accesses: 3, last_reinforced: '2026-09-01T00:00:00.000Z', exposures: { session_start: 3, reminder: 0, sessions: 3, last: '2026-11-21T09:00:00.000Z' } });
    const quiet = night({ tools: {}, refs: {}, exposures: {} });
    // Importance (accesses) slows the decay: the exposed rule weighs more than the same rule unseen.
    expect(started.weight!).toBeGreaterThan(quiet.weight!);
    const reminded = night({ tools: {}, refs: { 'r-aaaa': { count: 1, last: '2026-11-21T09:01:00.000Z' } }, exposures: { 'r-aaaa': { session_start: 0, reminder: 1, last: '2026-11-21T09:01:00.000Z', sessions: ['a'] } } });
    expect(reminded).toMatchObject({ accesses: 1, last_reinforced: '2026-11-21T09:01:00.000Z', exposures: { session_start: 0, reminder: 1, sessions: 1 } });
  });
});
