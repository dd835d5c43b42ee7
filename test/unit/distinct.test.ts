import { describe, expect, it } from 'vitest';
import { DistinctCounter } from '../../pipeline/stages/distinct.js';

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
});
