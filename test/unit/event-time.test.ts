import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../pipeline/telemetry/event.js';
import { EventScanner } from '../../pipeline/telemetry/event-scanner.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** What parseTimestamp must give for Date.parse's answer: only times in years 1970–9999 are event times. */
const expectedOf = (ms: number) => (Number.isNaN(ms) || ms < 0 || ms > Date.UTC(9999, 11, 31, 23, 59, 59, 999) ? null : ms);

describe('parseTimestamp', () => {
  it('agrees with Date.parse on canonical UTC timestamps of years 1970–9999, out-of-range fields included (the fast path)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 34 }),
        fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }),
        fc.option(fc.integer({ min: 0, max: 999 })),
        (y, mo, d, h, mi, s, ms) => {
          const text = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${ms === null ? '' : `.${pad(ms, 3)}`}Z`;
          expect(parseTimestamp(text)).toBe(expectedOf(Date.parse(text)));
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
        expect(parseTimestamp(text)).toBe(expectedOf(Date.parse(text)));
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

  it('refuses times outside years 1970–9999, as numbers and as strings, in both readers', () => {
    const outside = [8.64e15, 1e20, Date.UTC(10000, 0, 1), Number.MAX_VALUE, '+010000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z'];
    for (const value of outside) expect(parseTimestamp(value), String(value)).toBeNull();
    expect(parseTimestamp(Date.UTC(9999, 11, 31, 23, 59, 59, 999))).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp('9999-12-31T23:59:59.999Z')).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    expect(parseTimestamp(0)).toBe(0);
    // The event scanner (the reader of large nights) takes the same times.
    const scanner = new EventScanner();
    const line = (timestamp: unknown) => Buffer.from(JSON.stringify({ timestamp, tool_name: 'Bash', input_hash: 'h', exit_code: 1, duration_ms: 1 }));
    for (const value of [8.64e15, 1e20, '1969-12-31T23:59:59.999Z']) {
      const bytes = line(value);
      expect(scanner.scan(bytes, 0, bytes.length), String(value)).toBe(false);
    }
    const good = line('2026-11-20T10:00:00.000Z');
    expect(scanner.scan(good, 0, good.length)).toBe(true);
  });
});
