import { describe, expect, it } from 'vitest';
import { parseState, readState, renderState, type State } from '../../pipeline/memory/state.js';
import { ledgerEntry } from '../helpers/ledger.js';

const PATH = '.sleep-cycle/state.json';
const T = '2026-11-20T10:00:00.000Z';
const evidence = { file: 'logs/telemetry.jsonl', offset: 0, input_hash: 'h1', session_id: null, timestamp: T, duration_ms: 12.5, message: 'fatal: x' };

/** A state with an entry in every section, as a run writes it. */
function fullState(): State {
  return {
    version: 1,
    last_sleep: T,
    cursors: { 'logs/telemetry.jsonl': { path: 'logs/telemetry.jsonl', offset: 120, head_sha: 'aa', tail_sha: 'bb', last_timestamp: T } },
    baselines: { Bash: { mean_ms: 120.5, count: 10 } },
    pending: {
      'c-0a0b0c0d0e0f': {
        id: 'c-0a0b0c0d0e0f', kind: 'failure', tool_name: 'git_push', error_category: 'git_error', days: { '2026-11-20': 2 },
        input_hashes: ['h1'], sessions: ['s-1'], first_seen: T, last_seen: T, samples: [evidence], signatures: [{ text: 'fatal: <*>', count: 2 }], baseline_ms: null,
      },
    },
    rules: { 'r-3f9a1c': ledgerEntry({ id: 'r-3f9a1c', status: 'active', last_reinforced: T, weight: 0.5, effectiveness: null }) },
    burned: { 'c-111111111111': { rule_id: 'r-222222', reason: 'deleted by a human from memory', at: T, until: null } },
    quarantine: {
      'r-333333': { id: 'r-333333', cluster_id: 'c-333333333333', kind: 'failure', tool_name: 'Bash', error_category: null, text: 'x', target: 'memory', reasons: ['policy'], safety_blocked: true, at: T },
    },
    llm_cache: { 'k-1': { text: 'rule', model: 'm', prompt_version: 'v1', notes: [], at: T } },
  };
}

/** The state text with one change made to its parsed form. */
function edited(change: (state: any) => void): string {
  const state = JSON.parse(renderState(fullState()));
  change(state);
  return JSON.stringify(state);
}

describe('state.json schema: what a run writes loads unchanged', () => {
  it('round-trips every section', () => {
    expect(parseState(renderState(fullState()), PATH)).toEqual(fullState());
  });

  it('maps have no prototype: a missing "constructor" or "toString" entry is absent, not a built-in', () => {
    const state = parseState(renderState(fullState()), PATH);
    expect(state.rules.constructor).toBeUndefined();
    expect(state.baselines.toString).toBeUndefined();
    expect(state.pending.hasOwnProperty).toBeUndefined();
  });

  it('a tool named "constructor" is a baseline like any other', () => {
    const state = parseState(edited((s) => (s.baselines.constructor = { mean_ms: 5, count: 1 })), PATH);
    expect(state.baselines.constructor).toEqual({ mean_ms: 5, count: 1 });
  });
});

describe('state.json schema: older files keep loading', () => {
  it('no llm_cache, no last_sleep, rules and quarantine as the first version wrote them: defaults filled', () => {
    const old = {
      version: 1,
      cursors: {},
      rules: {
        'r-3f9a1c': {
          id: 'r-3f9a1c', cluster_id: 'c-3f9a1c000000', kind: 'failure', tool_name: 'git_push', error_category: 'git_error', text: 'Rule.', text_sha: 'abc',
          target: 'memory', state: 'active', created: T, last_seen: T, hits: 0, pinned: false,
          provenance: { synthesizer: 'offline', count: 3, distinct_inputs: 3, sessions: 1, first_seen: T, last_seen: T, evidence: [], safety: { verdict: 'pass', violations: [] } },
        },
      },
      quarantine: { 'r-333333': { id: 'r-333333', cluster_id: 'c-333333333333', tool_name: 'Bash', error_category: null, text: 'x', reasons: [], at: T } },
    };
    const { state, notices } = readState(JSON.stringify(old), PATH);
    expect(notices).toEqual([]);
    expect(state.last_sleep).toBeNull();
    expect(state.llm_cache).toEqual({});
    expect(state.rules['r-3f9a1c']!.provenance).toMatchObject({ safety: { verdict: 'pass', violations: [], evaluated: [], policy: 'unknown' }, model: null, prompt_version: null });
    expect(state.rules['r-3f9a1c']!.last_reinforced).toBeUndefined();
    expect(state.quarantine['r-333333']).toMatchObject({ kind: 'failure', target: 'memory', safety_blocked: true });
  });

  it('an unknown field is kept (a newer minor writer, a field a human added)', () => {
    const state = parseState(edited((s) => (s.rules['r-3f9a1c'].note = 'keep me')), PATH);
    expect(renderState(state)).toContain('"note": "keep me"');
  });
});

describe('state.json schema: a wrong field is E_STATE naming its path, what was expected and found, and the fix', () => {
  const cases: [string, (s: any) => void, RegExp][] = [
    ['a date that is not a date', (s) => (s.rules['r-3f9a1c'].last_reinforced = 'not-a-date'), /rules\.r-3f9a1c\.last_reinforced: expected an ISO-8601 date, found "not-a-date"/],
    ['an impossible date', (s) => (s.rules['r-3f9a1c'].created = '2026-13-45T00:00:00Z'), /rules\.r-3f9a1c\.created: expected an ISO-8601 date/],
    ['a state that does not exist', (s) => (s.rules['r-3f9a1c'].state = 'bogus'), /rules\.r-3f9a1c\.state: expected one of "active", "decaying", "archived", "expired", "deleted", "pinned", "rejected", found "bogus"/],
    ['pinned as a string', (s) => (s.rules['r-3f9a1c'].pinned = 'yes'), /rules\.r-3f9a1c\.pinned: expected true or false, found "yes"/],
    ['a negative cursor offset', (s) => (s.cursors['logs/telemetry.jsonl'].offset = -5), /cursors\["logs\/telemetry\.jsonl"\]\.offset: expected a whole number, 0 or more, found -5/],
    ['a fractional count', (s) => (s.rules['r-3f9a1c'].hits = 1.5), /rules\.r-3f9a1c\.hits: expected a whole number, 0 or more, found 1\.5/],
    ['a weight above 1', (s) => (s.rules['r-3f9a1c'].weight = 2), /rules\.r-3f9a1c\.weight: expected a number from 0 to 1, found 2/],
    ['a missing required field', (s) => delete s.rules['r-3f9a1c'].text, /rules\.r-3f9a1c\.text: expected a string, found nothing \(the field is missing\)/],
    ['a rule filed under another id', (s) => (s.rules['r-3f9a1c'].id = 'r-000000'), /rules\.r-3f9a1c\.id: expected "r-3f9a1c", the key it is filed under, found "r-000000"/],
    ['a rule under the key "constructor"', (s) => (s.rules.constructor = s.rules['r-3f9a1c']), /rules\.constructor: expected a key that is a rule id like r-3f9a1c, found "constructor"/],
    ['a target that walks out of skills/', (s) => (s.rules['r-3f9a1c'].target = 'skill:../../.bashrc'), /rules\.r-3f9a1c\.target: expected "memory" or "skill:<name>"/],
    ['a burn that is not an object', (s) => (s.burned['c-111111111111'] = 'forever'), /burned\.c-111111111111: expected an object, found "forever"/],
    ['a section of the wrong type', (s) => (s.rules = []), /^[^:]+: rules: expected an object mapping a rule id like r-3f9a1c to an object, found \[\]/],
  ];
  for (const [name, change, message] of cases) {
    it(name, () => {
      let thrown: any;
      try {
        parseState(edited(change), PATH);
      } catch (error) {
        thrown = error;
      }
      expect(thrown?.code).toBe('E_STATE');
      expect(thrown.message).toMatch(/^\.sleep-cycle\/state\.json: /);
      expect(thrown.message).toMatch(message);
      expect(thrown.message).toMatch(/Correct (that field|those fields) by hand, or restore the last committed state with "git checkout -- \.sleep-cycle\/state\.json"$/);
    });
  }

  it('a "__proto__" key: an error, and the parsed maps keep their (absent) prototype', () => {
    const text = renderState(fullState()).replace('"rules": {', '"rules": {\n    "__proto__": {"polluted": true},');
    expect(() => parseState(text, PATH)).toThrow(/rules\["__proto__"\]|rules\.__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('every problem is collected; the message shows three and counts the rest', () => {
    const text = edited((s) => {
      s.rules['r-3f9a1c'].pinned = 'yes';
      s.rules['r-3f9a1c'].state = 'bogus';
      s.rules['r-3f9a1c'].hits = -1;
      s.rules['r-3f9a1c'].created = 'yesterday';
      s.last_sleep = 42;
    });
    expect(() => parseState(text, PATH)).toThrow(/; and 2 more\. Correct those fields/);
  });

  it('a secret in a wrong field does not reach the message', () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    expect(() => parseState(edited((s) => (s.rules['r-3f9a1c'].hits = token)), PATH)).toThrow(/rules\.r-3f9a1c\.hits: expected a whole number, 0 or more, found "(?!ghp_)/);
  });
});

describe('state.json schema: derived data the next nights rebuild is skipped and reported, not fatal', () => {
  it('a bad pending cluster, baseline or cache entry is left out with a notice naming it; the rest loads', () => {
    const text = edited((s) => {
      s.pending['c-0a0b0c0d0e0f'].days = { soon: 1 };
      s.baselines.Bash.count = 'many';
      s.baselines.git_push = { mean_ms: 300, count: 4 };
      s.llm_cache['k-1'].at = 'never';
    });
    const { state, notices } = readState(text, PATH);
    expect(state.pending).toEqual({});
    expect(state.baselines).toEqual({ git_push: { mean_ms: 300, count: 4 } });
    expect(state.llm_cache).toEqual({});
    expect(state.rules['r-3f9a1c']).toBeDefined();
    expect(notices).toEqual([
      `${PATH}: baselines.Bash.count: expected a whole number, 0 or more, found "many": that entry was left out (the next nights rebuild it).`,
      `${PATH}: pending.c-0a0b0c0d0e0f.days.soon: expected a key that is a day (YYYY-MM-DD), found "soon": that entry was left out (the next nights rebuild it).`,
      `${PATH}: llm_cache.k-1.at: expected an ISO-8601 date, found "never": that entry was left out (the next nights rebuild it).`,
    ]);
  });
});
