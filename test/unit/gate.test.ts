import { describe, expect, it } from 'vitest';
import { clusterId, type Cluster } from '../../pipeline/model/cluster.js';
import { computeGate } from '../../pipeline/stages/gate.js';
import { emptyState, type LedgerEntry, type State } from '../../pipeline/memory/state.js';

const settings = { min_repeats: 3, window_days: 7, sample_size: 5 };
const NOW = new Date('2026-11-21T03:00:00Z');
const ID = clusterId('failure', 'npm_test', 'test_failure');

function cluster(days: Record<string, number>): Cluster {
  const count = Object.values(days).reduce((a, b) => a + b, 0);
  return {
    id: ID, kind: 'failure', tool_name: 'npm_test', error_category: 'test_failure', count, distinct_inputs: count,
    input_hashes: ['a'], sessions: ['s1'], first_seen: `${Object.keys(days)[0]}T01:00:00.000Z`, last_seen: `${Object.keys(days).at(-1)}T02:00:00.000Z`,
    days, samples: [], signatures: [{ text: 'FAIL x', count }], baseline_ms: null,
  };
}

function withPending(days: Record<string, number>): State {
  const c = cluster(days);
  const state = emptyState();
  state.pending[ID] = { id: ID, kind: 'failure', tool_name: 'npm_test', error_category: 'test_failure', days, input_hashes: ['b'], sessions: ['s0'], first_seen: c.first_seen, last_seen: c.last_seen, samples: [], signatures: c.signatures };
  return state;
}

describe('gate', () => {
  it('promotes a cluster that reaches min_repeats tonight', () => {
    const result = computeGate([cluster({ '2026-11-20': 3 })], emptyState(), settings, NOW);
    expect(result.outcomes[ID]).toBe('promoted');
    expect(result.promoted[0]).toMatchObject({ count: 3, carried_over: 0 });
    expect(result.pending).toEqual({});
  });

  it('carries a sub-threshold cluster over and promotes it when it recurs inside the window', () => {
    const first = computeGate([cluster({ '2026-11-19': 2 })], emptyState(), settings, new Date('2026-11-20T03:00:00Z'));
    expect(first.outcomes[ID]).toBe('pending');
    const state = { ...emptyState(), pending: first.pending };
    const second = computeGate([cluster({ '2026-11-20': 1 })], state, settings, NOW);
    expect(second.outcomes[ID]).toBe('promoted');
    expect(second.promoted[0]).toMatchObject({ count: 3, carried_over: 2, distinct_inputs: 1 });
    expect(second.promoted[0]!.sessions).toEqual(['s1']);
  });

  it('forgets carried-over days that left the window', () => {
    const state = withPending({ '2026-11-10': 2 });
    const result = computeGate([cluster({ '2026-11-20': 1 })], state, settings, NOW);
    expect(result.outcomes[ID]).toBe('pending');
    expect(result.pending[ID]!.days).toEqual({ '2026-11-20': 1 });
    expect(computeGate([], { ...emptyState(), pending: result.pending }, settings, new Date('2026-12-01T00:00:00Z')).pending).toEqual({});
  });

  it('records a recurrence instead of proposing again when an active rule covers the cluster', () => {
    const state = emptyState();
    state.rules['r-aaaaaa'] = { id: 'r-aaaaaa', cluster_id: ID, state: 'active' } as LedgerEntry;
    const result = computeGate([cluster({ '2026-11-20': 4 })], state, settings, NOW);
    expect(result.outcomes[ID]).toBe('covered');
    expect(result.promoted).toEqual([]);
    expect(result.recurrences).toEqual([{ rule_id: 'r-aaaaaa', cluster_id: ID, count: 4, last_seen: '2026-11-20T02:00:00.000Z' }]);
  });

  it('never proposes a burned pattern again', () => {
    const state = emptyState();
    state.burned[ID] = { rule_id: 'r-bbbbbb', reason: 'deleted by a human', at: '2026-11-19T00:00:00Z' };
    const result = computeGate([cluster({ '2026-11-20': 9 })], state, settings, NOW);
    expect(result.outcomes[ID]).toBe('burned');
    expect(result.promoted).toEqual([]);
    expect(result.pending).toEqual({});
  });

  describe('older history read tonight (an import, after live events moved the newest one to today)', () => {
    const TODAY = new Date('2026-11-20T10:00:00Z');

    it('three failures within a week of each other in June: promoted, counted as of their own time', () => {
      const result = computeGate([cluster({ '2026-06-01': 1, '2026-06-03': 2 })], emptyState(), settings, NOW, { reference: TODAY });
      expect(result.outcomes[ID]).toBe('promoted');
      expect(result.promoted[0]).toMatchObject({ count: 3, carried_over: 0, days: { '2026-06-01': 1, '2026-06-03': 2 } });
      expect(result.olderUncounted).toBeUndefined();
      expect(result.expired).toBe(0);
    });

    it('the busiest span counts, not the whole history', () => {
      const result = computeGate([cluster({ '2026-05-01': 1, '2026-06-01': 1, '2026-06-05': 1, '2026-06-08': 1, '2026-07-01': 1 })], emptyState(), settings, NOW, { reference: TODAY });
      expect(result.promoted[0]).toMatchObject({ count: 3, days: { '2026-06-01': 1, '2026-06-05': 1, '2026-06-08': 1 } });
    });

    it('spread further apart than the window: pending, nothing carried, and counted as uncounted from its first day', () => {
      const result = computeGate([cluster({ '2026-06-01': 1, '2026-07-01': 1, '2026-08-01': 1 })], emptyState(), settings, NOW, { reference: TODAY });
      expect(result.outcomes[ID]).toBe('pending');
      expect(result.promoted).toEqual([]);
      expect(result.pending[ID]?.days ?? {}).toEqual({});
      expect(result.olderUncounted).toEqual({ count: 3, from: '2026-06-01' });
      expect(result.expired).toBe(3);
    });

    it('a wider window counts them (the advice the notice gives)', () => {
      const result = computeGate([cluster({ '2026-06-01': 1, '2026-07-01': 1, '2026-08-01': 1 })], emptyState(), { ...settings, window_days: 365 }, NOW, { reference: TODAY });
      expect(result.promoted[0]).toMatchObject({ count: 3 });
    });

    it('recent events below the threshold are judged on the window before the newest event, as before', () => {
      const result = computeGate([cluster({ '2026-11-19': 1, '2026-11-20': 1 })], emptyState(), settings, NOW, { reference: TODAY });
      expect(result.outcomes[ID]).toBe('pending');
      expect(result.pending[ID]!.days).toEqual({ '2026-11-19': 1, '2026-11-20': 1 });
      expect(result.olderUncounted).toBeUndefined();
    });
  });
});
