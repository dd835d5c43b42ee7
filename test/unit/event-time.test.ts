import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../pipeline/telemetry/event.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('parseTimestamp', () => {
  it('agrees with Date.parse on canonical UTC timestamps, out-of-range fields included (the fast path)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 34 }),
        fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }),
        fc.option(fc.integer({ min: 0, max: 999 })),
        (y, mo, d, h, mi, s, ms) => {
          const text = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${ms === null ? '' : `.${pad(ms, 3)}`}Z`;
          const expected = Date.parse(text);
          expect(parseTimestamp(text)).toBe(Number.isNaN(expected) ? null : expected);
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('agrees with Date.parse when any one character of a canonical timestamp is replaced', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.boolean(), fc.nat(), fc.constantFrom('/', 'a', ' ', '+', '-', ':', '.', 'T', 'Z', '0', '9', '\u0663', '\u00a0'), (ms, withMs, position, char) => {
        const canonical = new Date(ms).toISOString();
        const base = withMs ? canonical : `${canonical.slice(0, 19)}Z`;
        const at = position % base.length;
        const text = base.slice(0, at) + char + base.slice(at + 1);
        const expected = Date.parse(text);
        expect(parseTimestamp(text)).toBe(Number.isNaN(expected) ? null : expected);
      }),
      { numRuns: 5000, seed: 11 },
    );
  });

  it('still reads other ISO shapes and epoch numbers, and refuses what is not a time', () => {
    expect(parseTimestamp('2026-11-20T10:00:00.000+01:00')).toBe(Date.parse('2026-11-20T09:00:00.000Z'));
    expect(parseTimestamp('2026-11-20T10:00:00.12345Z')).toBe(Date.parse('2026-11-20T10:00:00.123Z'));
    expect(parseTimestamp(1795168800000)).toBe(1795168800000);
    expect(parseTimestamp('2026-11-20T1O:00:00.000Z')).toBeNull();
    expect(parseTimestamp('yesterday at noon')).toBeNull();
    expect(parseTimestamp(-5)).toBeNull();
  });
});
