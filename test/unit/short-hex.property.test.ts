import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { redact, redactUnmemoised } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';

/**
 * `redact` returns a text of 1 to 23 lower-case hex digits unread (see SHORT_HEX in redact.ts): sound only
 * if the full redactor, the maintained rule set loaded, never changes such a text. Held here on every
 * length, on hex built from the words hex can spell and the vendor prefixes it can almost spell, and on
 * the input hashes of the sample log, never on a sample of them.
 */

const SEED = 20_261_128;
const HEX = '0123456789abcdef';

beforeAll(async () => {
  await loadSecretRuleSet();
});

/** Pieces hex can spell: words (`dead`, `beef`, `face`, list words of a seed phrase), halves of vendor prefixes, digit runs. */
const PIECES = ['dead', 'beef', 'cafe', 'face', 'fade', 'feed', 'add', 'dad', 'decade', 'fee', 'ac', 'a3', 'da', 'db', 'e1', 'ab', 'cd', '0', '1', '9', '00', '123456789', 'f', 'e'];
const pieced = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 10 }).map((parts) => parts.join('').slice(0, 23));
const hex = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...HEX), minLength: min, maxLength: max });

describe('a short lower-case hex text is never redacted', () => {
  it('the full redactor leaves every one unchanged, at every length from 1 to 23', () => {
    for (let length = 1; length <= 23; length += 1) {
      fc.assert(fc.property(hex(length, length), (text) => redactUnmemoised(text) === text), { seed: SEED + length, numRuns: 400 });
    }
  });

  it('the full redactor leaves hex built from words and near-prefixes unchanged', () => {
    fc.assert(fc.property(pieced, (text) => redactUnmemoised(text) === text), { seed: SEED, numRuns: 5_000 });
  });

  it('the full redactor leaves every input hash of the sample log unchanged, and redact agrees', () => {
    const hashes = readFileSync(new URL('../../logs/telemetry.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        try {
          return (JSON.parse(line) as { input_hash?: unknown }).input_hash;
        } catch {
          return undefined; // the sample holds invalid lines on purpose
        }
      })
      .filter((hash): hash is string => typeof hash === 'string' && /^[0-9a-f]{1,23}$/.test(hash));
    expect(hashes.length).toBeGreaterThan(10);
    for (const hash of hashes) {
      expect(redactUnmemoised(hash)).toBe(hash);
      expect(redact(hash)).toBe(hash);
    }
  });

  it('covers only what was proved: upper case, 24+ characters and other characters still go to the redactor', () => {
    // A Twilio key is `AC` or `SK` and 32 hex digits: upper case and long, outside the shortcut, and redacted.
    const twilio = `AC${'0123456789abcdef'.repeat(2)}`;
    expect(redact(twilio)).not.toBe(twilio);
    // Hex letters of both cases, 16 to 23 of them with digits, read as a short random token.
    const mixedCase = 'aB3cD4eF5Ab6Cd7Ef8';
    expect(redact(mixedCase)).not.toBe(mixedCase);
    expect(redact(`token=${'ab12'.repeat(5)}`)).not.toContain('ab12ab12');
  });
});
