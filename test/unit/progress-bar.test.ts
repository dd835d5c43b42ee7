import { describe, expect, it } from 'vitest';
import { terminalProgress } from '../../pipeline/cli/progress-bar.js';

describe('terminalProgress', () => {
  const setup = () => {
    const out: string[] = [];
    let t = 0;
    const bar = terminalProgress((text) => out.push(text), () => t);
    return { out, bar, at: (ms: number) => (t = ms) };
  };

  it('shows nothing for a read that is over in a moment', () => {
    const { out, bar, at } = setup();
    bar.start(10_000_000);
    at(500);
    bar.update(10_000_000);
    bar.finish();
    expect(out).toEqual([]);
  });

  it('after a moment, redraws one line at most every 200 ms, then ends it', () => {
    const { out, bar, at } = setup();
    bar.start(200 * 1_048_576);
    at(2000);
    bar.update(50 * 1_048_576);
    at(2100);
    bar.update(60 * 1_048_576);
    at(2300);
    bar.update(100 * 1_048_576);
    bar.finish();
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^\rsleep-cycle: reading \[#{7}-{21}\]  25% 50\/200 MB, 25 MB\/s $/);
    expect(out[1]).toContain(' 50% 100/200 MB');
    expect(out[2]).toBe(`\rsleep-cycle: reading [${'#'.repeat(28)}] 100% 200 MB\n`);
  });
});
