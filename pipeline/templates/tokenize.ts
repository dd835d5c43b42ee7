/**
 * A message as raw tokens: whitespace-separated words, with a quoted string that spans spaces kept as one
 * token (`pathspec 'my file' did not match` has as many tokens as `pathspec 'x' did not match`, so the
 * two can share a template). Log text is attacker-controlled: a message is cut to `maxMessageLength`
 * characters and `maxTokens` tokens before anything else looks at it, and what was cut becomes one `<*>`.
 */
export const WILDCARD = '<*>';

export interface TokenLimits {
  readonly maxMessageLength: number;
  readonly maxTokens: number;
}

/** A quoted string longer than this many tokens is left split: an unclosed quote must not swallow a line. */
const MAX_QUOTED_SPAN = 16;

export function tokenize(message: string, limits: TokenLimits): string[] {
  const cut = message.length > limits.maxMessageLength;
  const words = splitWords(cut ? message.slice(0, limits.maxMessageLength + 1) : message);
  // The last word of a cut message is a fragment (the extra character read tells whether the cut fell
  // inside a word): it is part of what was cut.
  if (cut && words.length > 0) words.pop();
  const tokens = joinQuoted(words);
  const rest = cut || tokens.length > limits.maxTokens;
  if (rest && tokens.length >= limits.maxTokens) tokens.length = Math.max(0, limits.maxTokens - 1);
  if (rest) tokens.push(WILDCARD);
  return tokens;
}

/** Split on runs of whitespace (ASCII and Unicode spaces), without a regex: this runs once per new message. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      if (start >= 0) words.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) words.push(text.slice(start));
  return words;
}

export function isSpace(c: number): boolean {
  if (c <= 32) return true;
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
    || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function joinQuoted(words: string[]): string[] {
  const tokens: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const quote = openQuote(words[i]!);
    const end = quote === null ? -1 : closingWord(words, i, quote);
    if (end < 0) {
      tokens.push(words[i]!);
    } else {
      tokens.push(words.slice(i, end + 1).join(' '));
      i = end;
    }
  }
  return tokens;
}

/** `'my`, `"View`, `tag="View`, `(‘x`: a word that opens a quote it does not close. */
const OPENING = /^(?:[([{]|[\w.-]+[=:])?(["'`])/;

function openQuote(word: string): string | null {
  const m = OPENING.exec(word);
  if (!m) return null;
  const quote = m[1]!;
  return word.indexOf(quote, m[0].length) >= 0 ? null : quote;
}

/** The index of the word that closes `quote` (the quote followed only by closing punctuation), or -1. */
function closingWord(words: string[], from: number, quote: string): number {
  const last = Math.min(words.length - 1, from + MAX_QUOTED_SPAN);
  for (let j = from + 1; j <= last; j++) {
    const k = words[j]!.indexOf(quote);
    if (k >= 0) return /^[\])}.,;:!?]*$/.test(words[j]!.slice(k + 1)) ? j : -1;
  }
  return -1;
}
