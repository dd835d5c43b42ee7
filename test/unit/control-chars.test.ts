import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripControls } from '../../pipeline/model/control-chars.js';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

describe('stripControls', () => {
  it.each([
    ['a colour', 'error: \u001b[31mred\u001b[0m text', 'error: red text'],
    ['a cursor move and clear line', 'ok\u001b[2K\u001b[1Gfake line', 'okfake line'],
    ['an OSC 8 link', 'see \u001b]8;;https://evil.example\u0007docs\u001b]8;;\u0007 now', 'see docs now'],
    ['a window title (OSC ended by ESC \\)', '\u001b]0;pwned\u001b\\title', 'title'],
    ['a DCS string', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['a C1 CSI', 'a\u009b31mb', 'ab'],
    ['a lone ESC at the end', 'end\u001b', 'end'],
    ['a carriage return that rewrites the line', 'all good\rFAILED', 'all goodFAILED'],
    ['bidi overrides and isolates', 'access\u202e\u2066 granted\u2069\u202c', 'access granted'],
    ['NUL, BEL, backspace, DEL', 'a\u0000b\u0007c\u0008d\u007fe', 'abcde'],
  ])('removes %s', (_, input, expected) => {
    expect(stripControls(input)).toBe(expected);
  });

  it('keeps newlines, tabs, CRLF and every printable character', () => {
    expect(stripControls('a\tb\r\nc\nd — ü 日本 `code`')).toBe('a\tb\r\nc\nd — ü 日本 `code`');
  });

  it('leaves no control character, for any input, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '\r', '\u001b', '[', ']', '3', 'm', '\u0007', '\\', '\u009b', '\u202e', '\u0000', 'P', ';') }), (text) => {
        const out = stripControls(text);
        expect(out).not.toMatch(CONTROL);
        expect(stripControls(out)).toBe(out);
      }),
      { numRuns: 2000, seed: 5 },
    );
  });
});
