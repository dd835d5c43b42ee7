import { describe, expect, it } from 'vitest';
import { clusterId, type Cluster } from '../../pipeline/model/cluster.js';
import { backToPending, computeGate } from '../../pipeline/stages/gate.js';
import { emptyState, type LedgerEntry } from '../../pipeline/memory/state.js';
import { followTemplateMerges } from '../../pipeline/memory/template-merges.js';

const settings = { min_repeats: 3, window_days: 7, sample_size: 5 };
const NOW = new Date('2026-11-21T03:00:00Z');
const FAMILY = clusterId('failure', 'pytest', 'dependency_missing');

function templateCluster(templateId: string, template: string, count: number, day = '2026-11-20'): Cluster {
  return {
    id: clusterId('failure', 'pytest', 'dependency_missing', templateId), kind: 'failure', tool_name: 'pytest', error_category: 'dependency_missing',
    count, distinct_inputs: count, input_hashes: [`h-${templateId}`], sessions: [`s-${templateId}`], first_seen: `${day}T01:00:00.000Z`, last_seen: `${day}T02:00:00.000Z`,
    days: { [day]: count }, samples: [], signatures: [{ text: template, count }], baseline_ms: null, template_id: templateId, template, family_id: FAMILY,
  };
}

const rule = (fields: Partial<LedgerEntry>) => ({ id: 'r-aaaaaa', state: 'active', created: '2026-11-01T00:00:00.000Z', ...fields }) as LedgerEntry;

describe('the gate over templates', () => {
  it('a template seen min_repeats times gets its own rule; one seen less waits', () => {
    const a = templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 3);
    const b = templateCluster('t-bbbbbbbbbbbb', 'No module named <*>', 1);
    const result = computeGate([a, b], emptyState(), settings, NOW);
    expect(result.promoted.map((c) => c.id)).toEqual([a.id]);
    expect(result.promoted[0]).toMatchObject({ template: 'bash: <*>: command not found' });
    expect(Object.keys(result.pending)).toEqual([b.id]);
    expect(result.pending[b.id]).toMatchObject({ template_id: 't-bbbbbbbbbbbb', template: 'No module named <*>', family_id: FAMILY });
  });

  it('templates of one family that reach the threshold only together are promoted together, naming each', () => {
    const a = templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 2);
    const b = templateCluster('t-bbbbbbbbbbbb', 'No module named <*>', 1);
    const result = computeGate([a, b], emptyState(), settings, NOW);
    expect(result.outcomes).toMatchObject({ [a.id]: 'promoted', [b.id]: 'promoted' });
    expect(result.pending).toEqual({});
    expect(result.promoted).toHaveLength(1);
    const [group] = result.promoted;
    expect(group).toMatchObject({ count: 3, template: null, template_id: null, family_id: FAMILY, distinct_inputs: 2 });
    expect(group!.templates).toEqual([
      { id: 't-aaaaaaaaaaaa', template: 'bash: <*>: command not found', count: 2 },
      { id: 't-bbbbbbbbbbbb', template: 'No module named <*>', count: 1 },
    ]);
    expect(group!.id).not.toBe(FAMILY);
  });

  it('a group that gets no rule tonight goes back to pending as its templates, and the next night promotes the same group', () => {
    const a = templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 2);
    const b = templateCluster('t-bbbbbbbbbbbb', 'No module named <*>', 1);
    const first = computeGate([a, b], emptyState(), settings, NOW);
    const [group] = first.promoted;
    // Past the LLM budget (or held, or unwritten): what the plan puts back in pending.
    const back = backToPending(group!, first.groupMembers);
    expect(back.map((item) => [item.id, item.template_id])).toEqual([[a.id, 't-aaaaaaaaaaaa'], [b.id, 't-bbbbbbbbbbbb']]);
    const state = emptyState();
    state.pending = Object.fromEntries(back.map((item) => [item.id, item]));
    const next = computeGate([], state, settings, new Date('2026-11-22T03:00:00Z'));
    expect(next.promoted.map((c) => c.id)).toEqual([group!.id]);
    expect(next.promoted[0]!.templates?.map((t) => t.template)).toEqual(['bash: <*>: command not found', 'No module named <*>']);
    // A cluster that is not a group goes back as itself.
    const single = computeGate([templateCluster('t-cccccccccccc', 'pytest: error', 3)], emptyState(), settings, NOW);
    expect(backToPending(single.promoted[0]!, single.groupMembers).map((item) => item.template_id)).toEqual(['t-cccccccccccc']);
  });

  it('a rule written for the templates it names covers each of them, and no other', () => {
    const a = templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 4);
    const c = templateCluster('t-cccccccccccc', 'pytest: error: unrecognized arguments', 3);
    const state = emptyState();
    state.rules['r-aaaaaa'] = rule({ cluster_id: clusterId('failure', 'pytest', 'dependency_missing', 'group:x'), covers: [a.id] });
    const result = computeGate([a, c], state, settings, NOW);
    expect(result.outcomes[a.id]).toBe('covered');
    expect(result.recurrences.map((r) => r.cluster_id)).toEqual([a.id]);
    expect(result.outcomes[c.id]).toBe('promoted');
  });

  it('a rule written before templates (for tool + category) keeps covering every template of its family', () => {
    const a = templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 4);
    const c = templateCluster('t-cccccccccccc', 'pytest: error: unrecognized arguments', 3);
    const state = emptyState();
    state.rules['r-aaaaaa'] = rule({ cluster_id: FAMILY });
    const result = computeGate([a, c], state, settings, NOW);
    expect(result.outcomes).toMatchObject({ [a.id]: 'covered', [c.id]: 'covered' });
    expect(result.promoted).toEqual([]);
    expect(result.recurrences.map((r) => r.rule_id)).toEqual(['r-aaaaaa', 'r-aaaaaa']);
  });

  it('a pattern a human burned before templates stays burned for every template of the family', () => {
    const state = emptyState();
    state.burned[FAMILY] = { rule_id: 'r-aaaaaa', reason: 'deleted by a human', at: '2026-11-01T00:00:00.000Z', until: null };
    const result = computeGate([templateCluster('t-aaaaaaaaaaaa', 'bash: <*>: command not found', 5)], state, settings, NOW);
    expect(Object.values(result.outcomes)).toEqual(['burned']);
  });
});

describe('templates that generalise take what was keyed by the ones they absorbed', () => {
  it('moves pending counts, rules and burns to the new template, summing pending days', () => {
    const oldA = templateCluster('t-aaaaaaaaaaaa', 'FAIL a.test.ts', 1, '2026-11-19');
    const oldB = templateCluster('t-bbbbbbbbbbbb', 'FAIL b.test.ts', 1, '2026-11-20');
    const state = emptyState();
    for (const c of [oldA, oldB]) state.pending[c.id] = { ...c, days: c.days } as never;
    state.rules['r-aaaaaa'] = rule({ cluster_id: oldA.id, tool_name: 'pytest', error_category: 'dependency_missing', template_id: 't-aaaaaaaaaaaa' });
    state.burned[oldB.id] = { rule_id: null, reason: 'rejected', at: '2026-11-01T00:00:00.000Z', until: null };
    state.rules['r-bbbbbb'] = rule({ id: 'r-bbbbbb', cluster_id: oldB.id, tool_name: 'pytest', error_category: 'dependency_missing', template_id: 't-bbbbbbbbbbbb' });
    const merged = new Map([['t-aaaaaaaaaaaa', 't-midmidmidmid'], ['t-midmidmidmid', 't-cccccccccccc'], ['t-bbbbbbbbbbbb', 't-cccccccccccc']]);
    const next = followTemplateMerges(state, merged);
    const to = clusterId('failure', 'pytest', 'dependency_missing', 't-cccccccccccc');
    expect(Object.keys(next.pending)).toEqual([to]);
    expect(next.pending[to]).toMatchObject({ id: to, template_id: 't-cccccccccccc', days: { '2026-11-19': 1, '2026-11-20': 1 } });
    expect(next.rules['r-aaaaaa']).toMatchObject({ cluster_id: to, template_id: 't-cccccccccccc' });
    expect(Object.keys(next.burned)).toEqual([to]);
    expect(followTemplateMerges(state, new Map())).toBe(state);
  });
});
