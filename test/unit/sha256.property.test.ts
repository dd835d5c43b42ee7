import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256OfBytes } from '../../pipeline/model/sha256.js';
import { inputHash } from '../../pipeline/telemetry/input-hash.js';

const native = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256 without node:crypto (the hook hashes input_hash and its settings with it)', () => {
  it('gives the published digests (FIPS 180-4 examples: empty, "abc", the two-block message, a million "a")', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(sha256OfBytes(Buffer.alloc(1_000_000, 'a'))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('equals node:crypto on every length around the block and padding edges (0-300 bytes) on lone surrogates and on the long-text path', () => {
    for (let n = 0; n <= 300; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      expect(sha256OfBytes(bytes)).toBe(native(bytes));
    }
    for (const odd of ['\ud800', 'a\udc00b', '\u{1F600}\ud83d']) expect(sha256Hex(odd)).toBe(native(odd));
    const long = 'x\u00e9\u{1F600}'.repeat(5000);
    expect(sha256Hex(long)).toBe(native(long));
  });

  it('equals node:crypto on any text, as UTF-8 (astral characters included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 200 })), (text) => {
        expect(sha256Hex(text)).toBe(native(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps input_hash what it was: the first 16 hex digits of SHA-256 of the canonical JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const canonical = JSON.stringify(sortDeep(input)) ?? 'null';
        expect(inputHash(input)).toBe(native(canonical).slice(0, 16));
      }),
      { numRuns: 500 },
    );
  });
});

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortDeep((value as Record<string, unknown>)[key])]));
}
