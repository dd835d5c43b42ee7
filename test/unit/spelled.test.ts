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

  it('in the older alphabets, glued together, or between arrows, quotes and pluses', () => {
    const RAF = ['able', 'baker', 'charlie', 'dog', 'easy', 'fox', 'george', 'how', 'item', 'jig', 'king', 'love', 'mike', 'nan', 'oboe', 'peter', 'queen', 'roger', 'sugar', 'tare', 'uncle', 'victor', 'william', 'xray', 'yoke', 'zebra'];
    const DIN = ['anton', 'berta', 'caesar', 'dora', 'emil', 'friedrich', 'gustav', 'heinrich', 'ida', 'julius', 'kaufmann', 'ludwig', 'martha', 'nordpol', 'otto', 'paula', 'quelle', 'richard', 'samuel', 'theodor', 'ulrich', 'viktor', 'wilhelm', 'xanthippe', 'ypsilon', 'zeppelin'];
    const word = (alphabet: string[], ch: string): string => (/\d/.test(ch) ? DIGITS[Number(ch)]! : alphabet[ch.toLowerCase().charCodeAt(0) - 97]!);
    for (let i = 0; i < 12; i += 1) {
      const token = body(`spelled-other-${i}`, 14, 'abcdefghijklmnopqrstuvwxyz0123456789');
      const alphabet = i % 2 === 0 ? RAF : DIN;
      const words = [...token].map((ch) => word(alphabet, ch));
      const spelled = [words.join(' -> '), words.map((w) => `'${w}'`).join(' '), words.join(' + '), words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')][i % 4]!;
      // The quotes around the first and last word may stay.
      expect(redact(`error: read back ${spelled} (call)`).replace(/'/g, ''), spelled).toBe('error: read back [REDACTED:secret] (call)');
    }
  });

  it('leaves prose with a few of the words alone', () => {
    for (const kept of [
      'echo $HOME failed: delta too large for golf course hotel booking',
      'alpha release 2 of the india team, bravo',
      'step one, two, three, four, five, six, seven, eight done',
      'Mike and Victor pushed to the sierra branch; tango deploy at nine',
      'error: kilo lima mike: unknown units',
      'How easy it was: the dog and the fox love George, Peter and the Queen',
      'Otto, Emil, Dora and Paula signed; Richard and Martha by 2 and 3 of them',
      'tests: able to fetch, easy mode, item 4 of 9, king 1 and queen 2 done',
    ])
      expect(redact(kept)).toBe(kept);
  });
});
