import { describe, expect, it } from 'vitest';
import { DistinctCounter } from '../../pipeline/ingest/distinct.js';

describe('DistinctCounter', () => {
  it('is exact up to its limit, duplicates included', () => {
    const counter = new DistinctCounter(1024, 5);
    for (let round = 0; round < 3; round++) for (let i = 0; i < 1000; i++) counter.add(`h${i}`);
    expect(counter.size).toBe(1000);
    expect(counter.first()).toEqual(['h0', 'h1', 'h10', 'h100', 'h101']);
  });

  it('past the limit, estimates the count within 5% (3 standard errors) and still knows the smallest values', () => {
    const counter = new DistinctCounter(1024, 50);
    const values = Array.from({ length: 200_000 }, (_, i) => `input-${(i * 7919) % 200_000}`);
    for (const value of values) counter.add(value);
    for (const value of values.slice(0, 5000)) counter.add(value);
    expect(Math.abs(counter.size - 200_000) / 200_000).toBeLessThan(0.05);
    expect(counter.first()).toEqual([...new Set(values)].sort().slice(0, 50));
  });

  it('never reports fewer than it counted exactly', () => {
    const counter = new DistinctCounter(16, 3);
    for (let i = 0; i < 17; i++) counter.add(`x${i}`);
    expect(counter.size).toBeGreaterThanOrEqual(17);
  });

  it('merged, gives exactly the counter of both streams, whichever side went past its limit', () => {
    const values = Array.from({ length: 3000 }, (_, i) => `v-${(i * 7919) % 1777}-${i % 3}`);
    for (const [limit, cut] of [[4096, 1000], [1024, 100], [1024, 2900], [64, 1500], [64, 10]] as const) {
      const whole = new DistinctCounter(limit, 7);
      for (const value of values) whole.add(value);
      const first = new DistinctCounter(limit, 7);
      const second = new DistinctCounter(limit, 7);
      values.slice(0, cut).forEach((value) => first.add(value));
      values.slice(cut).forEach((value) => second.add(value));
      first.merge(structuredClone(second.toState()));
      // The exact set's hashes come out in table order, which depends on how it grew: compare them as a set.
      const seen = (counter: DistinctCounter) => {
        const state = counter.toState();
        return { size: counter.size, first: counter.first(), ...state, hashes: state.hashes && [...state.hashes].sort((a, b) => a - b) };
      };
      expect(seen(first)).toEqual(seen(whole));
    }
  });

  it('grows its table as values come, and keeps counting exactly across the growth', () => {
    const counter = new DistinctCounter(5000, 3);
    for (let i = 0; i < 4000; i++) counter.add(`k${i}`);
    for (let i = 0; i < 4000; i += 3) counter.add(`k${i}`);
    expect(counter.size).toBe(4000);
    expect(counter.first()).toEqual(['k0', 'k1', 'k10']);
  });
});

