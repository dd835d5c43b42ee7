import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClusterBuilder } from '../../pipeline/ingest/cluster.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';

/**
 * Past max_clusters the night's cluster builder is a Space-Saving sketch: a new cluster replaces the
 * lightest. Whatever the junk (one-offs, pairs, other tools) and wherever it sits in the stream, a
 * cluster with more than N/k of the N events is kept, its count is at most N/k short (exact when the
 * junk came before it), nothing is counted twice and nothing is lost from the totals.
 */

const T0 = Date.parse('2026-11-20T10:00:00Z');

/** Distinct words without digits (the masker would hide digits): a, b, …, z, ab, … */
function word(i: number): string {
  let out = '';
  for (let n = i; ; n = Math.floor(n / 26)) {
    out += String.fromCharCode(97 + (n % 26));
    if (n < 26) return out;
  }
}

function failure(tool: string, message: string, i: number): TelemetryEvent {
  return { timestamp: T0 + i, tool_name: tool, input_hash: `h${i}`, exit_code: 1, duration_ms: 1, error_category: 'api_error', error_message: message, session_id: `s${i % 7}` };
}

/** Builds a night from (tool, message) pairs in order; returns its clusters and what was dropped. */
function night(stream: readonly { tool: string; message: string }[], maxClusters: number) {
  const builder = new ClusterBuilder({ sampleSize: 2, maxClusters });
  stream.forEach(({ tool, message }, i) => builder.add('failure', failure(tool, message, i), T0 + i, { file: 'log', offset: i * 100 }));
  return { clusters: builder.finish(), dropped: builder.overflow, evicted: builder.evicted };
}

const REAL = { tool: 'svc_deploy', message: 'error: deploy rejected: manifest invalid' };

/** Junk shapes: one-off messages, messages seen twice, one-off tool names. */
const junkArb = fc.array(
  fc.record({ shape: fc.constantFrom('message', 'pair', 'tool'), n: fc.nat({ max: 1_000_000 }) }),
  { minLength: 0, maxLength: 400 },
).map((items) => items.flatMap(({ shape, n }) => {
  if (shape === 'tool') return [{ tool: `junk_tool_t${word(n)}`, message: 'error: x' }];
  const one = { tool: 'svc_deploy', message: `error: junk ${word(n)} broke` };
  return shape === 'pair' ? [one, one] : [one];
}));

describe('the night\'s clusters past max_clusters (a heavy-hitters sketch)', () => {
  it('keeps a cluster heavier than N/k, counts it within N/k, and loses no event from the totals', () => {
    fc.assert(
      fc.property(junkArb, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2, max: 30 }), fc.array(fc.nat(), { maxLength: 40 }), (junk, realCount, k, spots) => {
        // The real failure's events land anywhere among the junk.
        const stream = [...junk];
        for (let r = 0; r < realCount; r++) stream.splice(spots[r] === undefined ? stream.length : spots[r]! % (stream.length + 1), 0, REAL);
        const { clusters, dropped } = night(stream, k);
        const n = stream.length;
        expect(clusters.length).toBeLessThanOrEqual(k);
        expect(clusters.reduce((total, c) => total + c.count, 0) + dropped).toBe(n);
        if (realCount > n / k) {
          const real = clusters.find((c) => c.tool_name === REAL.tool && c.samples.some((s) => s.message === REAL.message));
          expect(real, `${realCount} of ${n} events, k=${k}`).toBeDefined();
          expect(real!.count).toBeLessThanOrEqual(realCount);
          expect(real!.count).toBeGreaterThanOrEqual(realCount - Math.floor(n / k));
        }
      }),
      { seed: 20_261_123, numRuns: 300 },
    );
  });

  it('counts a repeated failure exactly when one-off junk of any shape fills the cap first', () => {
    for (const shape of ['message', 'tool'] as const) {
      const junk = Array.from({ length: 3000 }, (_, i) => ({
        tool: shape === 'tool' ? `junk_tool_t${word(i)}` : 'svc_deploy',
        message: shape === 'message' ? `error: junk ${word(i)} broke` : 'error: x',
      }));
      const { clusters, dropped, evicted } = night([...junk, REAL, REAL, REAL, REAL, REAL], 1000);
      expect(clusters).toHaveLength(1000);
      expect(clusters.find((c) => c.samples.some((s) => s.message === REAL.message))?.count, shape).toBe(5);
      expect(dropped).toBe(2001);
      expect(evicted).toBe(2001);
    }
  });

  it('keeps a failure that alternates with fresh junk after the cap is full of heavier junk (newcomers inherit the lightest weight)', () => {
    // A plain least-frequent eviction loses here: each fresh junk line would push out the real failure,
    // the lightest at 1, before it recurs.
    for (const [k, pairs, rounds] of [[10, 10, 15], [50, 50, 60], [200, 400, 300]] as const) {
      const junk = (i: number) => ({ tool: 'svc_deploy', message: `error: junk ${word(i)} broke` });
      const stream = [
        ...Array.from({ length: pairs }, (_, i) => [junk(i), junk(i)]).flat(),
        ...Array.from({ length: rounds }, (_, r) => [junk(pairs + r), REAL]).flat(),
      ];
      const { clusters } = night(stream, k);
      const real = clusters.find((c) => c.samples.some((s) => s.message === REAL.message));
      expect(real?.count, `k=${k}`).toBeGreaterThanOrEqual(rounds - Math.floor(stream.length / k));
    }
  });

  it('keeps the first clusters exactly, as before, while the night stays under max_clusters', () => {
    const stream = Array.from({ length: 50 }, (_, i) => ({ tool: 'svc_deploy', message: `error: junk ${word(i % 10)} broke` }));
    const { clusters, dropped, evicted } = night(stream, 10);
    expect(dropped).toBe(0);
    expect(evicted).toBe(0);
    expect(clusters.map((c) => c.count)).toEqual(Array(10).fill(5));
  });
});
