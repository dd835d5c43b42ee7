import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestFold, type FoldSegment, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { mergePartial, rangeFold, settledBy, toPartial, type RangeRequest } from '../../pipeline/ingest/merge.js';
import type { Baseline } from '../../pipeline/memory/state.js';
import { BASE, makeLog, splitLines } from '../helpers/night-log.js';

/**
 * A large night is folded in two: the start by the main thread, the end by a worker that cannot know
 * the thresholds settled just before its lines (only those settled in a prelude). Merged, the two must
 * give exactly what one fold over every line in order gives: counts, invalid samples, clusters with
 * their samples and signatures, slow calls, usage and baselines.
 */

const SEED = 20_261_122;
/** Everything a user sees from the fold (and the next night's state). */
function outcome(fold: IngestFold) {
  return {
    lines: fold.lines,
    invalidSamples: fold.invalidSamples,
    window: fold.window,
    latest: fold.takeLatest(),
    usage: fold.usage.finish(fold.toolName),
    overflow: fold.builder.overflow,
    baselines: fold.detector.finish(),
    clusters: fold.builder.finish(),
  };
}

const settingsArb = fc.record({
  sample_size: fc.integer({ min: 1, max: 6 }),
  window_days: fc.constantFrom(7, 2),
  max_clusters: fc.constantFrom(10_000, 12),
  slow_factor: fc.constantFrom(1.5, 2, 3),
  baseline_min_samples: fc.integer({ min: 1, max: 30 }),
  slow_min_ms: fc.constantFrom(0, 1000),
});

const shapeArb = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  lines: fc.integer({ min: 50, max: 2500 }),
  messageVariety: fc.constantFrom(3, 20, 400, 5000),
  inputVariety: fc.constantFrom(5, 3000),
  rareToolAt: fc.integer({ min: 0, max: 2500 }),
  failRate: fc.constantFrom(0.12, 0.6),
  // Hours apart: a night spanning months, so clusters keep only their newest days.
  msPerLine: fc.constantFrom(1000, 3 * 3_600_000),
  categories: fc.constantFrom(1, 3),
});

describe('a night folded in two parts and merged equals one fold in order', () => {
  it('for random nights, split points, preludes and settings', () => {
    let merged = 0;
    let refused = 0;
    fc.assert(
      fc.property(shapeArb, settingsArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), fc.boolean(), (shape, settings: FoldSettings, at, preludeAt, persisted, smallWorkerCap) => {
        const lines = splitLines(makeLog(shape), 4096);
        const segment: FoldSegment = { file: 'logs/telemetry.jsonl', cutoff: shape.seed % 3 === 0 ? BASE + 20_000 : null };
        const baselines: Record<string, Baseline> = persisted ? { Read: { mean_ms: 40, count: 500 }, git_push: { mean_ms: 1500, count: 3 } } : {};

        const whole = new IngestFold(settings, baselines);
        for (const line of lines) whole.line(line, segment);

        const split = Math.floor(at * lines.length);
        const prelude = Math.floor(preludeAt * split);
        const main = new IngestFold(settings, baselines);
        for (const line of lines.slice(0, prelude)) main.line(line, segment);
        const request: RangeRequest = { absolute: '/unused', segment, settings, maxLineBytes: 4096, baselines };
        // Few signatures kept by text (64, not 1,024), so the ones past it are counted by hash too.
        const worker = rangeFold(request, settledBy(main), smallWorkerCap ? 64 : undefined);
        for (const line of lines.slice(split)) worker.line(line, segment);
        for (const line of lines.slice(prelude, split)) main.line(line, segment);

        if (!mergePartial(main, structuredClone(toPartial(worker, 0)))) {
          refused += 1;
          return;
        }
        merged += 1;
        expect(outcome(main)).toEqual(outcome(whole));
      }),
      { seed: SEED, numRuns: 150 },
    );
    // The refusals are the capped cases (max_clusters 12, deferred calls): most splits must merge.
    expect(merged).toBeGreaterThan(refused);
  });

  it('counts the night\'s first signatures exactly even when the worker saw them only past its own cap', () => {
    // No prelude: the worker knows none of the night's signatures, keeps 64 by text, hashes the rest.
    const settings: FoldSettings = { sample_size: 3, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
    const segment: FoldSegment = { file: 'log', cutoff: null };
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const lines = splitLines(makeLog({ seed, lines: 4000, messageVariety: 3000, inputVariety: 10, rareToolAt: 4000, failRate: 0.7, categories: 1 }), 4096);
      const whole = new IngestFold(settings, {});
      for (const line of lines) whole.line(line, segment);
      const split = lines.length >> 1;
      const main = new IngestFold(settings, {});
      const worker = rangeFold({ absolute: '/unused', segment, settings, maxLineBytes: 4096, baselines: {} }, settledBy(main), 64);
      for (const line of lines.slice(split)) worker.line(line, segment);
      for (const line of lines.slice(0, split)) main.line(line, segment);
      expect(mergePartial(main, structuredClone(toPartial(worker, 0)))).toBe(true);
      expect(outcome(main).clusters).toEqual(outcome(whole).clusters);
    }
  });

  it('keeps each cluster\'s newest days exactly when the night spans months', () => {
    const settings: FoldSettings = { sample_size: 3, window_days: 2, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
    const segment: FoldSegment = { file: 'log', cutoff: null };
    for (const seed of [1, 2, 3, 4]) {
      const lines = splitLines(makeLog({ seed, lines: 3000, messageVariety: 20, inputVariety: 10, rareToolAt: 3000, failRate: 0.7, categories: 1, msPerLine: 3 * 3_600_000 }), 4096);
      const whole = new IngestFold(settings, {});
      for (const line of lines) whole.line(line, segment);
      const split = (lines.length * seed) >> 3;
      const main = new IngestFold(settings, {});
      const worker = rangeFold({ absolute: '/unused', segment, settings, maxLineBytes: 4096, baselines: {} }, settledBy(main));
      for (const line of lines.slice(split)) worker.line(line, segment);
      for (const line of lines.slice(0, split)) main.line(line, segment);
      expect(mergePartial(main, structuredClone(toPartial(worker, 0)))).toBe(true);
      const clusters = outcome(main).clusters;
      expect(clusters).toEqual(outcome(whole).clusters);
      // 375 days of events; each cluster (tool, category, masked error line) keeps its 34 newest days
      // (window_days + 32), and counts them all.
      const busiest = clusters.reduce((a, b) => (a.count > b.count ? a : b));
      expect(Object.keys(busiest.days)).toHaveLength(34);
      expect(busiest.count).toBeGreaterThan(Object.values(busiest.days).reduce((n, d) => n + d, 0));
      expect(clusters.reduce((n, c) => n + c.count, 0)).toBeGreaterThan(1000);
    }
  });

  it('refuses, changing nothing, when the two parts together pass max_clusters', () => {
    const settings: FoldSettings = { sample_size: 3, window_days: 7, max_clusters: 2, slow_factor: 2, baseline_min_samples: 2, slow_min_ms: 0 };
    const segment: FoldSegment = { file: 'log', cutoff: null };
    const event = (tool: string, exit: number) => JSON.stringify({ timestamp: new Date(BASE).toISOString(), tool_name: tool, input_hash: 'h', exit_code: exit, duration_ms: 5, error_message: 'boom' });
    const lines = splitLines(`${event('A', 1)}\n${event('B', 1)}\n${event('C', 1)}\n`, 4096);
    const main = new IngestFold(settings, {});
    main.line(lines[0]!, segment);
    main.line(lines[1]!, segment);
    const worker = rangeFold({ absolute: '/unused', segment, settings, maxLineBytes: 4096, baselines: {} }, { thresholds: {}, signatures: {} });
    worker.line(lines[2]!, segment);
    const before = structuredClone(outcome(main));
    const again = new IngestFold(settings, {});
    again.line(lines[0]!, segment);
    again.line(lines[1]!, segment);
    expect(mergePartial(again, toPartial(worker, 0))).toBe(false);
    expect(outcome(again)).toEqual(before);
  });
});
