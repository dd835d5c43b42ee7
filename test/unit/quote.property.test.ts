import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { draftOffline } from '../../pipeline/synth/offline.js';
import { shortenAtWord } from '../../pipeline/synth/quote.js';
import { clusterId, type PromotedCluster } from '../../pipeline/model/cluster.js';

/** Error-like text: words, numbers in brackets, punctuation and runs of spaces. */
const token = fc.oneof(
  fc.stringMatching(/^[a-z]{1,12}$/),
  fc.integer({ min: 0, max: 10_000_000 }).map(String),
  fc.integer({ min: 0, max: 99_999 }).map((n) => `(${n})`),
  fc.constantFrom('error:', 'tokens,', "'x.py'", '--', '/a/b/c.txt', '3.14', 'E17;', ':'),
);
const textArb = fc.tuple(fc.array(token, { minLength: 1, maxLength: 40 }), fc.array(fc.constantFrom(' ', '  ', '\t'), { minLength: 40, maxLength: 40 }))
  .map(([words, gaps]) => words.map((word, i) => (i === 0 ? word : `${gaps[i]}${word}`)).join(''));

/** The longest run of whole words a cut may keep, by brute force: every space is a candidate cut. */
function longestFit(text: string, max: number): number {
  let best = 0;
  for (let w = 0; w < text.length; w++) {
    if (!/\s/.test(text[w]!)) continue;
    const words = text.slice(0, w).replace(/[\s,;:.]+$/, '');
    if (words.length > 0 && words.length + 1 <= max) best = Math.max(best, words.length);
  }
  return best;
}

describe('shortenAtWord (property)', () => {
  it('keeps text that fits; else whole words, then an ellipsis, within max; never a cut inside a word or number', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 120 }), (text, max) => {
        const short = shortenAtWord(text, max);
        if (text.length <= max) {
          expect(short).toBe(text);
          return;
        }
        if (short === null) {
          expect(longestFit(text, max)).toBe(0);
          return;
        }
        expect(short.length).toBeLessThanOrEqual(max);
        expect(short.endsWith('…')).toBe(true);
        const words = short.slice(0, -1);
        expect(text.startsWith(words)).toBe(true);
        // The kept words end at a word boundary of the original: ending punctuation, then a space.
        expect(text.slice(words.length)).toMatch(/^[,;:.]*\s/);
        expect(words).toMatch(/[^\s,;:.]$/);
        // Every token kept is a whole token of the original (the last one less its ending punctuation).
        const kept = words.split(/\s+/);
        const original = text.split(/\s+/);
        kept.slice(0, -1).forEach((word, i) => expect(word).toBe(original[i]));
        expect(original[kept.length - 1]!.replace(/[,;:.]+$/, '')).toBe(kept.at(-1));
        // And as many of them as fit.
        expect(words.length).toBe(longestFit(text, max));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('the quote in an offline rule', () => {
  it('is cut after a whole word, never inside a number', () => {
    const text = 'MCP tool "list_pull_requests" response (65906 tokens) exceeds maximum allowed tokens (25000). Please use pagination, filtering, or limit parameters to reduce the response size.';
    const cluster: PromotedCluster = {
      id: clusterId('failure', 'mcp__github__list_pull_requests', 'too_large'), kind: 'failure', tool_name: 'mcp__github__list_pull_requests', error_category: 'too_large',
      count: 4, distinct_inputs: 4, input_hashes: [], sessions: [], first_seen: '', last_seen: '', days: {}, samples: [],
      signatures: [{ text, count: 4 }], baseline_ms: null, carried_over: 0,
    };
    const draft = draftOffline({ cluster, target: { kind: 'memory' }, ruleId: 'r-abc123' });
    expect(draft.text).toContain(`("MCP tool 'list_pull_requests' response (65906 tokens) exceeds maximum allowed tokens…")`);
    expect(draft.text).not.toMatch(/\d…/);
  });

  it.each([
    ['exceeds maximum allowed tokens (25000). Please use', 40, 'exceeds maximum allowed tokens (25000)…'],
    ['exceeds maximum allowed tokens (25000). Please use', 38, 'exceeds maximum allowed tokens…'],
    ['a, b, c, d', 6, 'a, b…'],
    ['Loading... done', 10, 'Loading…'],
    ['unbreakable_identifier_longer_than_max and more', 10, null],
    ['fits', 4, 'fits'],
  ])('%s in %i characters: %s', (text, max, expected) => {
    expect(shortenAtWord(text, max)).toBe(expected);
  });
});
