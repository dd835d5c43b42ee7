import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonFlat, inputHash } from '../../pipeline/telemetry/input-hash.js';

describe('canonical JSON without recursion (an input nested deeper than the stack)', () => {
  it('property: the same text as the recursive form for any JSON value (index-like keys, unicode, nesting)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '10', '2', '01', '-1', '4294967294', '4294967295', '__proto__', 'raw'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 5 })),
    })).value;
    fc.assert(fc.property(json, (value) => canonicalJsonFlat(value) === canonicalJson(value)), { seed: 1128, numRuns: 3000 });
  });

  it('hashes an input 300,000 levels deep, and the same input the same way', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}`);
    const arrays = JSON.parse(`${'['.repeat(300_000)}${']'.repeat(300_000)}`);
    expect(inputHash(deep)).toMatch(/^[0-9a-f]{16}$/);
    expect(inputHash(deep)).toBe(inputHash(JSON.parse(`${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}`)));
    expect(inputHash(arrays)).not.toBe(inputHash(deep));
    expect(canonicalJson(deep).slice(0, 12)).toBe('{"a":{"a":{"');
  });
});
