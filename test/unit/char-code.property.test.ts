import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeAt } from '../../pipeline/model/char-code.js';

/**
 * `codeAt` stands for `text.charCodeAt` in the redactor's per-character loops (see char-code.ts): it must
 * read the same code, in range and out of it, whatever representation V8 holds the text in.
 */

const SEED = 20_261_128;

/** The same characters as V8's string kinds: flat, joined, sliced, internalised (a property name), parsed. */
function kinds(text: string): string[] {
  const half = text.length >> 1;
  const joined = text.slice(0, half) + text.slice(half);
  const sliced = `#${text}#`.slice(1, -1);
  const internalised = Object.keys({ [text]: 1 })[0]!;
  const parsed = JSON.parse(JSON.stringify(text)) as string;
  return [text, joined, sliced, internalised, parsed];
}

describe('codeAt', () => {
  it('reads what charCodeAt reads, for every kind of string and every index, past both ends too', () => {
    const text = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));
    fc.assert(
      fc.property(text, fc.integer({ min: -3, max: 90 }), (value, index) => {
        for (const kind of kinds(value)) expect(Object.is(codeAt(kind, index), value.charCodeAt(index))).toBe(true);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('reads UTF-16 code units, as charCodeAt does (a surrogate pair is two)', () => {
    expect([0, 1, 2].map((i) => codeAt('a😀', i))).toEqual([97, 0xd83d, 0xde00]);
    expect(Number.isNaN(codeAt('', 0))).toBe(true);
  });
});
