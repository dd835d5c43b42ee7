import { beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { body } from '../fixtures/attacks/parts.js';

beforeAll(async () => {
  await loadSecretRuleSet();
});

const NATO = ['alfa', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'x-ray', 'yankee', 'zulu'];
const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** A token spelled one of several ways: markers for capitals, digits as words or digits, separators. */
function spell(token: string, style: number): string {
  const sep = [' ', ', ', '-', ' / ', '; '][style % 5]!;
  const words = [...token].map((ch) => {
    if (/\d/.test(ch)) return style % 2 === 0 ? DIGITS[Number(ch)]! : ch;
    if (ch === '_') return 'underscore';
    const word = NATO[ch.toLowerCase().charCodeAt(0) - 97]!;
    if (ch === ch.toLowerCase()) return style % 3 === 0 ? `small ${word}` : word;
    return [`capital ${word}`, word.toUpperCase(), `uppercase ${word}`, `cap ${word}`, `${word[0]!.toUpperCase()}${word.slice(1)}`][style % 5]!;
  });
  return words.join(sep);
}

describe('a token spelled out in words', () => {
  it('is redacted whole, in any of the spellings a transcript uses', () => {
    for (let i = 0; i < 40; i += 1) {
      const token = body(`spelled-${i}`, 12 + (i % 20));
      const spelled = spell(token, i);
      const out = redact(`error: token read back: ${spelled} (support call)`);
      expect(out, spelled).toBe('error: token read back: [REDACTED:secret] (support call)');
    }
  });

  it('leaves prose with a few of the words alone', () => {
    for (const kept of [
      'echo $HOME failed: delta too large for golf course hotel booking',
      'alpha release 2 of the india team, bravo',
      'step one, two, three, four, five, six, seven, eight done',
      'Mike and Victor pushed to the sierra branch; tango deploy at nine',
      'error: kilo lima mike: unknown units',
    ])
      expect(redact(kept)).toBe(kept);
  });
});
