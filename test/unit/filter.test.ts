import { describe, expect, it } from 'vitest';
import { isFailure, SlowDetector, type SlowCall } from '../../pipeline/stages/filter.js';
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
});
