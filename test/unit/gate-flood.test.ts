import { describe, expect, it } from 'vitest';
import { clusterId, type Cluster } from '../../pipeline/model/cluster.js';
import { computeGate } from '../../pipeline/stages/gate.js';
import { emptyState } from '../../pipeline/memory/state.js';

/**
 * The gate under a flood: one-off junk templates never form a group rule, a night promotes at most
 * max_new_rules clusters (the heaviest; the rest wait and come the next nights), and at most max_pending
 * clusters are carried over (the heaviest).
 */

const NOW = new Date('2026-11-21T03:00:00Z');
const settings = { min_repeats: 3, window_days: 7, sample_size: 5 };

function word(i: number): string {
  let out = '';
  for (let n = i; ; n = Math.floor(n / 26)) {
    out += String.fromCharCode(97 + (n % 26));
    if (n < 26) return out;
  }
}

/** A template cluster of a tool + category (its family), seen `count` times in `sessions` sessions. */
function templateCluster(tool: string, category: string, template: string, count: number, sessions = 1): Cluster {
  const templateId = `t-${word(template.length * 7919 + template.charCodeAt(template.length - 1) * 31 + count).padEnd(12, 'a').slice(0, 12)}`;
  return {
    id: clusterId('failure', tool, category, `${templateId}:${template}`), kind: 'failure', tool_name: tool, error_category: category,
    count, distinct_inputs: count, input_hashes: [`h-${template}`], sessions: Array.from({ length: sessions }, (_, i) => `s${i}`),
    first_seen: '2026-11-20T01:00:00.000Z', last_seen: '2026-11-20T02:00:00.000Z', days: { '2026-11-20': count }, samples: [], signatures: [],
    baseline_ms: null, template_id: templateId, template, family_id: clusterId('failure', tool, category),
  };
}

const junk = (n: number, shape: (i: number) => string, tool = 'mcp__svc__deploy') => Array.from({ length: n }, (_, i) => templateCluster(tool, 'api_error', shape(i), 1));
const SHAPES: Record<string, (i: number) => string> = {
  'two words': (i) => `error: ${word(i)} collapsed ${word(i * 7 + 1)}`,
  'leading word': (i) => `${word(i + 30)}: request failed`,
  'long line': (i) => `error: ${word(i)} ${'x '.repeat(30)}${word(i + 3)}`,
};

describe('the gate under a flood of one-off templates', () => {
  it.each(Object.entries(SHAPES).flatMap(([name, shape]) => [10, 1000].map((n) => [name, n, shape] as const)))('%s, %i templates seen once each in one family: no group rule', (_, n, shape) => {
    for (const order of [1, -1]) {
      const clusters = junk(n, shape).sort((a, b) => order * (a.id < b.id ? -1 : 1));
      const result = computeGate(clusters, emptyState(), settings, NOW);
      expect(result.promoted).toEqual([]);
      expect(result.held?.singletons_held).toBe(n);
      expect(Object.keys(result.pending)).toHaveLength(n);
    }
  });

  it('a repeated failure among the junk is promoted on its own count, and joined by at most as many one-offs as its events', () => {
    const real = templateCluster('mcp__svc__deploy', 'api_error', 'error: deploy rejected: manifest invalid', 2, 2);
    const result = computeGate([...junk(500, SHAPES['two words']!), real], emptyState(), settings, NOW);
    expect(result.promoted).toHaveLength(1);
    const [group] = result.promoted;
    expect(group!.templates!.map((t) => t.template)[0]).toBe('error: deploy rejected: manifest invalid');
    expect(group!.templates).toHaveLength(3);
    expect(group!.count).toBe(4);
    expect(result.held?.singletons_held).toBe(498);
  });

  it('two templates that each repeated are still promoted together', () => {
    const a = templateCluster('npm_test', 'test_failure', 'FAIL lint', 2);
    const b = templateCluster('npm_test', 'test_failure', 'FAIL typecheck', 2);
    const result = computeGate([a, b], emptyState(), settings, NOW);
    expect(result.promoted.map((c) => c.templates?.map((t) => t.template).sort())).toEqual([['FAIL lint', 'FAIL typecheck']]);
    expect(result.held).toBeUndefined();
  });
});

describe('max_new_rules and max_pending', () => {
  const flood = (n: number) => Array.from({ length: n }, (_, i) => templateCluster('mcp__junk__x', `k${word(i)}`, `error: ${word(i)} broke`, 3));

  it('a night promotes at most max_new_rules clusters, the heaviest first; the rest wait and come on the next nights', () => {
    const real = templateCluster('mcp__svc__deploy', 'api_error', 'error: deploy rejected: manifest invalid', 4, 2);
    const capped = { ...settings, max_new_rules: 50, max_pending: 2000 };
    const first = computeGate([...flood(600), real], emptyState(), capped, NOW);
    expect(first.promoted).toHaveLength(50);
    expect(first.promoted.map((c) => c.id)).toContain(real.id);
    expect(first.held?.rules_deferred).toBe(551);
    expect(Object.keys(first.pending)).toHaveLength(551);
    expect(first.outcomes[flood(600)[599]!.id]).toBe('pending');
    // The next night reads nothing new: the deferred clusters, at the threshold, come 50 at a time.
    const state = { ...emptyState(), pending: first.pending };
    const second = computeGate([], state, capped, new Date('2026-11-21T04:00:00Z'));
    expect(second.promoted).toHaveLength(50);
    expect(Object.keys(second.pending)).toHaveLength(501);
    expect(second.promoted.every((c) => c.count === 3)).toBe(true);
  });

  it('without the setting (a gate built by hand) nothing is held back', () => {
    expect(computeGate(flood(300), emptyState(), settings, NOW).promoted).toHaveLength(300);
  });

  it('carries over at most max_pending clusters, the heaviest', () => {
    const heavy = Array.from({ length: 20 }, (_, i) => templateCluster('mcp__a__b', `h${word(i)}`, `error: ${word(i)} heavy`, 2));
    const light = Array.from({ length: 5000 }, (_, i) => templateCluster('mcp__c__d', `l${word(i)}`, `error: ${word(i)} light`, 1));
    const result = computeGate([...light.slice(0, 2500), ...heavy, ...light.slice(2500)], emptyState(), { ...settings, max_new_rules: 250, max_pending: 100 }, NOW);
    const kept = Object.keys(result.pending);
    expect(kept).toHaveLength(100);
    for (const cluster of heavy) expect(kept).toContain(cluster.id);
    expect(result.held?.pending_dropped).toBe(4920);
  });
});
