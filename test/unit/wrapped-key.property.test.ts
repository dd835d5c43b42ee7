import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapped } from '../../pipeline/safety/normalise.js';

/**
 * `wrapped` (key material wrapped over lines) reads the characters around each line break by code; it
 * must answer as the per-character patterns it replaced did, on texts made of line breaks, gaps, token
 * runs with and without digits, and characters just outside both classes.
 */
const TOKEN_CHAR = /[A-Za-z0-9+/=_-]/;
const GAP_CHAR = /[ \t"'+>#*\r\\]/;

function run(text: string, from: number, step: 1 | -1): { length: number; mixed: boolean } {
  let i = from;
  let digit = false;
  let letter = false;
  const at = (k: number) => (step === -1 ? k - 1 : k);
  while ((step === -1 ? i > 0 : i < text.length) && Math.abs(i - from) < 64 && TOKEN_CHAR.test(text[at(i)]!)) {
    const c = text.charCodeAt(at(i));
    if (c >= 48 && c <= 57) digit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letter = true;
    i += step;
  }
  return { length: Math.abs(i - from), mixed: digit && letter };
}

function reference(text: string): boolean {
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    let before = nl;
    while (before > 0 && nl - before < 8 && GAP_CHAR.test(text[before - 1]!)) before -= 1;
    if (text[before - 1] === 'n' && text[before - 2] === '\\') before -= 2;
    if (before < 8 || !TOKEN_CHAR.test(text[before - 1]!)) continue;
    let after = nl + 1;
    while (after < text.length && after - nl < 8 && GAP_CHAR.test(text[after]!)) after += 1;
    if (after >= text.length || !TOKEN_CHAR.test(text[after]!)) continue;
    const left = run(text, before, -1);
    if (left.length < 8) continue;
    const right = run(text, after, 1);
    if (right.length >= 8 && (left.mixed || right.mixed)) return true;
  }
  return false;
}

describe('wrapped', () => {
  it('answers as the per-character patterns did', () => {
    const piece = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\\n', ' ', '\t', '"', "'", '+', '>', '#', '*', '\\', '.', ',', ':', '@', '\u00a0', '\u2028', '\ud83d'),
      fc.string({ unit: fc.constantFrom(...'aZ09+/=_-'), minLength: 1, maxLength: 20 }),
      fc.string({ unit: fc.constantFrom(...'abcXYZ'), minLength: 6, maxLength: 12 }),
    );
    let hits = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        const expected = reference(text);
        if (expected) hits += 1;
        expect(wrapped(text)).toBe(expected);
      }),
      { numRuns: 3000, seed: 20_261_127 },
    );
    // Both answers must occur, or the property proves nothing.
    expect(hits).toBeGreaterThan(50);
  });
});
