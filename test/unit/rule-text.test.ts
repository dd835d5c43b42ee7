import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeTagsOutsideCode, finalRuleText } from '../../pipeline/synth/rule-text.js';

describe('a rule text holds no HTML tag outside code spans (MEMORY.md is rendered)', () => {
  it.each([
    ['When `Bash` fails, retry once <img src=x onerror=kximg()>.', 'When `Bash` fails, retry once &lt;img src=x onerror=kximg()>.'],
    ['<details><summary>ok</summary>run `rm -rf /`</details>', '&lt;details>&lt;summary>ok&lt;/summary>run `rm -rf /`&lt;/details>'],
    ['<a href="javascript:x()">docs</a>', '&lt;a href="javascript:x()">docs&lt;/a>'],
    ['``<img src=x>` is not a code span', '``&lt;img src=x>` is not a code span'],
  ])('%s', (text, written) => {
    expect(finalRuleText(text)).toBe(written);
  });

  it('keeps what code spans quote, and templates, as they are', () => {
    for (const text of ['`Edit` fails with `<tool_use_error>File has not been read yet</tool_use_error>` (3 times in 2 sessions).', '`pytest` fails with `error: <*> not found` (4 times in 2 sessions).', 'a < b and 3<4', '`` a`<b>`c ``']) {
      expect(finalRuleText(text)).toBe(text);
    }
  });

  it('property: outside the code spans it leaves, no `<` opens a tag (any mix of backticks, brackets and letters)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('`', '``', '<', '>', 'a', 'img', '/', '!', ' ', 'x'), { maxLength: 40 }), (parts) => {
        const out = escapeTagsOutsideCode(parts.join(''));
        // Remove the code spans CommonMark would read (run of n backticks to the next run of exactly n).
        const outside = out.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)|(`+)(?!`)\3(?!`)/g, ' ');
        return !/<[A-Za-z/!?]/.test(outside.replace(/`+/g, ' '));
      }),
      { seed: 1128, numRuns: 2000 },
    );
  });
});
