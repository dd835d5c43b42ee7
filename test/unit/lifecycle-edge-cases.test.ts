import { describe, expect, it } from 'vitest';
import { removeSkillRules } from '../../pipeline/memory/skills-yaml.js';
import { buildManualPlan } from '../../pipeline/memory/manual.js';
import { evaluateLifecycle } from '../../pipeline/memory/lifecycle-evaluate.js';
import { parseMemory, renderRule } from '../../pipeline/memory/memory-md.js';
import { emptyState, type LedgerEntry, type State } from '../../pipeline/memory/state.js';
import { emptyUsage } from '../../pipeline/telemetry/usage.js';
import { defaultSettings } from '../../pipeline/settings/schema.js';
import { ledgerEntry } from '../helpers/ledger.js';
const DEFAULTS = defaultSettings();

const T0 = '2026-01-01T00:00:00.000Z';
const entry = (over: Partial<LedgerEntry> & { id: string }): LedgerEntry =>
  ledgerEntry({ created: T0, tool_name: 'git_push', error_category: 'git_error', provenance: { ...ledgerEntry({ id: over.id, created: T0 }).provenance, safety: { verdict: 'accept', violations: [], evaluated: [], policy: 'p' } }, ...over });
const settings = { memory_file: 'MEMORY.md', skills_dir: 'skills', archive_file: 'memory/archive.md', state_dir: '.sleep-cycle' };

describe('skill file human text', () => {
  it('archiving the last derived rule of a skill file leaves the human part byte-identical', () => {
    const human = '# Git skill, written by hand\nname: git\ntags:\n- vcs\n- push\nnotes: >\n  Folded text\n  kept as written.\nquoted: \'single\'\n';
    const text = `${human}derived_rules:\n  - id: r-aaaaaa\n    rule: "Pull first."\n    cluster: c-aaaaaa\n`;
    const out = removeSkillRules(text, 'skills/git.yaml', new Set(['r-aaaaaa']));
    expect(out).toBe(`${human}derived_rules: []\n`);
  });
});

describe('manual restore after a crash', () => {
  it('restore run again after a crash that wrote MEMORY.md but not state.json does not duplicate the bullet', () => {
    const rule = entry({ id: 'r-aaaaaa', state: 'archived', state_since: '2026-05-01T00:00:00.000Z' });
    const state: State = { ...emptyState(), rules: { [rule.id]: rule } };
    // The crashed restore already put the bullet back; state.json still says archived.
    const memoryText = `# M\n\n## Derived Rules\n\n${renderRule({ id: rule.id, text: rule.text })}\n`;
    const plan = buildManualPlan({ state, memoryText, skillTexts: {}, lifecycleText: undefined, archiveText: undefined }, 'restore', rule.id,
      { now: new Date('2026-06-01T00:00:00Z'), runId: 'run-x', settings });
    const memory = plan.changes.find((c) => c.role === 'memory');
    const after = memory ? memory.content : memoryText;
    expect(parseMemory(after).rules.filter((r) => r.id === rule.id)).toHaveLength(1);
  });
});

describe('pin/unpin and the safety policy', () => {
  it('a pinned rule the policy blocks leaves memory that night: safety comes before a pin', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const rule = entry({ id: 'r-bbbbbb', state: 'pinned', pinned: true, status: 'validated', pinned_from: 'active',
      effectiveness: { before_per_day: 3, after_per_day: 0, change: -1, verdict: 'working', days_since_adoption: 59, tool_calls_since: 50 } });
    const night = evaluateLifecycle({ rules: { [rule.id]: rule }, recurrences: [], usage: emptyUsage(), edited: [],
      policy: { flagged: { [rule.id]: { severity: 'block', violations: ['block x'] } }, checked: { [rule.id]: 'fp:sha' } } }, DEFAULTS as never, now);
    expect(night.rules[rule.id]).toMatchObject({ state: 'archived', status: 'invalidated', pinned: false });
    expect(night.archived).toEqual([rule.id]);
    // Neither unpin nor restore nor pin brings it back.
    const state: State = { ...emptyState(), rules: { [rule.id]: night.rules[rule.id]! } };
    const input = { state, memoryText: undefined, skillTexts: {}, lifecycleText: undefined, archiveText: undefined };
    for (const action of ['unpin', 'restore', 'pin'] as const) {
      expect(() => buildManualPlan(input, action, rule.id, { now, runId: 'run-y', settings })).toThrow();
    }
  });

  it('pinning a rule the policy warns about does not erase the invalidation', () => {
    const rule = entry({ id: 'r-cccccc', status: 'invalidated', policy_checked: 'fp:sha' });
    const state: State = { ...emptyState(), rules: { [rule.id]: rule } };
    const pinned = buildManualPlan({ state, memoryText: undefined, skillTexts: {}, lifecycleText: undefined, archiveText: undefined }, 'pin', rule.id,
      { now: new Date('2026-03-01T00:00:00Z'), runId: 'run-z', settings }).rule;
    const unpinned = buildManualPlan({ state: { ...state, rules: { [rule.id]: pinned } }, memoryText: undefined, skillTexts: {}, lifecycleText: undefined, archiveText: undefined }, 'unpin', rule.id,
      { now: new Date('2026-03-02T00:00:00Z'), runId: 'run-z2', settings }).rule;
    expect(unpinned.status).toBe('invalidated');
  });
});

describe('touch never moves reinforcement back in time', () => {
  it('touch --now earlier than the last reinforcement keeps the later one', () => {
    const rule = entry({ id: 'r-dddddd', last_reinforced: '2026-06-01T00:00:00.000Z', status: 'active' });
    const state: State = { ...emptyState(), rules: { [rule.id]: rule } };
    const touched = buildManualPlan({ state, memoryText: undefined, skillTexts: {}, lifecycleText: undefined, archiveText: undefined }, 'touch', rule.id,
      { now: new Date('2026-01-15T00:00:00Z'), runId: 'run-t', settings }).rule;
    expect(touched.last_reinforced >= '2026-06-01T00:00:00.000Z').toBe(true);
  });
});
