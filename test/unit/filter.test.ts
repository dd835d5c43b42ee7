import { describe, expect, it } from 'vitest';
import { isFailure, SlowDetector, type SlowCall } from '../../pipeline/ingest/filter.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';

const call = (duration_ms: number, overrides: Partial<TelemetryEvent> = {}): TelemetryEvent => ({
  timestamp: '2026-11-20T00:00:00Z', tool_name: 'npm_test', input_hash: 'h', exit_code: 0, duration_ms, ...overrides,
});

function judge(durations: number[], baselines = {}, options = { slowFactor: 2, minSamples: 10, minMs: 0 }) {
  const slow: SlowCall[] = [];
  const detector = new SlowDetector(baselines, options, (found) => slow.push(found));
  durations.forEach((d, i) => detector.observe(call(d), i, 'f', i));
  const next = detector.finish();
  return { slow: slow.map((s) => s.event.duration_ms), next };
}

describe('filter', () => {
  it('keeps non-zero exits as failures, except benign ones', () => {
    expect(isFailure(call(1, { exit_code: 1 }))).toBe(true);
    expect(isFailure(call(1, { exit_code: 1, error_category: 'benign' }))).toBe(false);
    expect(isFailure(call(1))).toBe(false);
  });

  it('judges a new tool against the median of its first calls, so slow calls cannot raise their own bar', () => {
    // The mean of the first ten is 2,600 ms: judged against it, none of the 5,000 ms calls would be slow.
    const { slow } = judge([5000, 1000, 5000, 1000, 5000, 1000, 5000, 1000, 1000, 1000, 1100, 4000]);
    expect(slow.sort()).toEqual([4000, 5000, 5000, 5000, 5000]);
  });

  it('uses the persisted baseline once it has enough samples, then folds tonight into the running mean', () => {
    const { slow, next } = judge([150, 250, 100], { npm_test: { mean_ms: 100, count: 50 } });
    expect(slow).toEqual([250]);
    expect(next.npm_test).toEqual({ mean_ms: 103.77, count: 53 });
  });

  it('does not judge a tool with too few samples, and never calls a sub-minimum call slow', () => {
    expect(judge([100, 900, 100]).slow).toEqual([]);
    expect(judge([100, 300], { npm_test: { mean_ms: 100, count: 50 } }, { slowFactor: 2, minSamples: 10, minMs: 1000 }).slow).toEqual([]);
  });

  it('judges at most 10,000 distinct tools a night and keeps at most 10,000 baselines: a log that invents tool names cannot grow memory or state', () => {
    const slow: SlowCall[] = [];
    const persisted = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`old_${i}`, { mean_ms: 100, count: 5 + (i % 3) }]));
    const detector = new SlowDetector(persisted, { slowFactor: 2, minSamples: 1, minMs: 0 }, (found) => slow.push(found));
    for (let i = 0; i < 10_005; i++) detector.observe(call(100, { tool_name: `new_${i}` }), i, 'f', i);
    // Tool 10,001 and later: counted as untracked, never judged, never a tally.
    detector.observe(call(9_000, { tool_name: 'new_10004' }), 1, 'f', 1);
    detector.observe(call(9_000, { tool_name: 'new_0' }), 1, 'f', 1);
    expect(detector.untracked).toBe(6);
    expect(slow.map((s) => s.event.tool_name)).toEqual(['new_0']);
    const next = detector.finish();
    expect(Object.keys(next)).toHaveLength(10_000);
    // The most used stay: the persisted ones with 7 and 6 samples before tonight's tools with 1 or 2.
    expect(next['old_2']).toEqual({ mean_ms: 100, count: 7 });
    expect(next['new_0']).toBeUndefined();
  });

  it('a later part that left calls unjudged past 10,000 tools cannot be absorbed, even when the tool names agree', () => {
    const options = { slowFactor: 2, minSamples: 1, minMs: 0 };
    const first = new SlowDetector({}, options, () => {});
    const later = new SlowDetector({}, { ...options, deferUnsettled: true }, () => {});
    for (let i = 0; i < 10_000; i++) {
      first.observe(call(100, { tool_name: `t_${i}` }), i, 'f', i);
      later.observe(call(100, { tool_name: `t_${i}` }), i, 'f', i);
    }
    expect(first.canAbsorb(later.toState())).toBe(true);
    later.observe(call(100, { tool_name: 'one_too_many' }), 1, 'f', 1);
    expect(later.untracked).toBe(1);
    expect(first.canAbsorb(later.toState())).toBe(false);
  });
});

