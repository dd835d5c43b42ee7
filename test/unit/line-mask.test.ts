import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineMasker, maskVariables } from '../../pipeline/templates/line-mask.js';

/**
 * LineMasker masks one line per digit shape (digits 1-9 written `1`) and puts each line's own digits
 * back: it must give exactly what maskVariables gives, for every line, whatever came before.
 * Lines are built from tokens whose masking depends on their digits in every way masking knows: numbers,
 * versions, hex with and without `0x`, ids, names with digits (`ssh2`, `TS2345`), program versions at a
 * line's head, dates, code points, quoted values, paths, addresses.
 */
const TOKENS = [
  'error', 'failed', 'expected', 'to', 'equal', 'tokens', '(25000).', 'ssh2', 'e1000', 'TS2345:', 'log4j', 'utf8mb4',
  'python3:', 'gcc-12:', 'eth0:', 'pip3', '0x1f', '1x1f', '0x0', 'U+002A', 'u+1F600', '9f4ef63', 'a9f4ef6', 'jA9JBVPb007417',
  'blk_-123', 'node-12', 'attempt_1_m_2', 'Fri', 'Jun', '17', '07:07:00', '2005', "'foo1'", '"a 2 b"', '/tmp/x1.py', 'src/a2.ts:3:7',
  '10.0.0.1:8080', 'v1.2.3', '-7', '+3', '1e9', '3rd', 'IRQs', 'x=5', '[12]', 'id=0a1b2c3d4e5f6a7b', 'https://h/a1?b=2', 'C:\\x9',
];
const DIGITS = '0123456789';

/** A token with each digit replaced by a random one (0 included, so `0x` appears and disappears). */
const variant = (token: string, picks: number[]): string => {
  let k = 0;
  return token.replace(/\d/g, () => DIGITS[picks[k++ % picks.length]!]!);
};

const line = fc
  .tuple(fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 24 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 8 }))
  .map(([tokens, picks]) => tokens.map((t) => variant(t, picks)).join(' '));

describe('LineMasker', () => {
  it('gives what maskVariables gives, line after line', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), (lines) => {
        const masker = new LineMasker();
        for (const text of [...lines, ...lines.map((l) => l.replace(/[1-9]/g, '7'))]) expect(masker.mask(text)).toBe(maskVariables(text));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('masks a shape once and puts each line\'s literal digits back', () => {
    const masker = new LineMasker();
    expect(masker.mask('AssertionError: expected 17 to equal 3')).toBe('AssertionError: expected <*> to equal <*>');
    expect(masker.mask('AssertionError: expected 42 to equal 9')).toBe('AssertionError: expected <*> to equal <*>');
    // Literal digits are the line's own, in their places.
    expect(masker.mask('a.ts(3,7): error TS2345: Argument')).toBe("a.ts(<*>,<*>): error TS2345: Argument");
    expect(masker.mask('a.ts(9,1): error TS7006: Argument')).toBe("a.ts(<*>,<*>): error TS7006: Argument");
    expect(masker.mask('ssh2 failed after 12 tries, sha256sum 3')).toBe('ssh2 failed after <*> tries, sha256sum <*>');
    expect(masker.mask('ssh9 failed after 45 tries, sha512sum 8')).toBe('ssh9 failed after <*> tries, sha512sum <*>');
    // Past nine digits 1-9, and past 81.
    expect(masker.mask('v12345 67891 x2 at 2024-01-02T03:04:05Z')).toBe('v12345 <*> x2 at <*>:05Z');
    expect(masker.mask('v98765 43219 x7 at 2025-11-12T13:14:15Z')).toBe('v98765 <*> x7 at <*>:15Z');
    const many = `x${'12345678'.repeat(11)} y3`;
    expect(masker.mask(many)).toBe(maskVariables(many));
    // `0x` starts a hex value; `1x` does not.
    expect(masker.mask('bad 0x1f')).toBe('bad <*>');
    expect(masker.mask('bad 1x1f')).toBe('bad 1x1f');
  });

  it('masks lines past its bounds without remembering them', () => {
    const masker = new LineMasker(1, 20);
    const long = `failed ${'x'.repeat(30)} 12`;
    expect(masker.mask(long)).toBe(maskVariables(long));
    expect(masker.mask('one 1 ssh2')).toBe('one <*> ssh2');
    expect(masker.mask('two 2 ssh3')).toBe('two <*> ssh3');
    expect(masker.mask('one 5 ssh7')).toBe('one <*> ssh7');
  });
});
