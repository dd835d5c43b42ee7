/**
 * Generic masking: the parts of a token that are variables by their class alone become `<*>`, with the
 * same rules for every log (no per-source patterns). A token is split at structural punctuation
 * (`rhost=10.0.0.1` → `rhost`, `=`, `10.0.0.1`) and each piece is judged on its own, so a key, a bracket
 * or a quote around a value survives (`rhost=<*>`, `[<*>]`, `'<*>'`). Pieces that are variables:
 * - numbers, addresses, times and versions (digits with punctuation, no letters): `42`, `10.0.0.1`, `-7`;
 * - a number joined to a word by punctuation: `blk_123`, `node-12`, `attempt_1_m_2` (but not `ssh2`,
 *   `e1000`, `TS2307`, `log4j`, where digits are part of the name);
 * - hexadecimal: `0x1f`, or six or more hex digits with a digit among them (`9f4ef63`); code points
 *   (`U+002A`);
 * - random-looking ids: eight or more characters that switch between letters and digits three times
 *   (`jA9JBVPb007417`), or sixteen or more with both;
 * - paths and URLs: `/etc/x`, `~/x`, `./x`, `C:\x`, `a/b/c`, `src/x.ts`, `https://…`;
 * - the content of a quoted string: `'foo'`, `"View Lock"`, and all of a token that is one quoted string
 *   (`'*'`, `')'`, `'[::1]'`), punctuation inside included.
 * A weekday or month name next to a number is part of a date (`Fri Jun 17 07:07:00 2005`), and values
 * in a row are one value (`IRQs 3 4 5` and `IRQs 3 4 5 7` share `IRQs <*>`). A program naming itself
 * at the head of a line keeps its name and masks its version (`python3:` → `python<*>:`).
 * Everything else stays literal; whether a literal word is a variable is learnt by the miner from the
 * values it sees at that position, where a joined name (`__main__.Book`, `my_app`) weighs like a value.
 */
import { maskProgramVersion } from './names.js';
import { WILDCARD } from './tokenize.js';

export function maskTokens(raw: readonly string[]): string[] {
  const masked = raw.map(maskToken);
  if (raw.length > 0) masked[0] = maskProgramVersion(raw[0]!) ?? masked[0]!;
  for (let i = 0; i < raw.length; i++) {
    if (masked[i] !== WILDCARD && isDateWord(raw[i]!) && nearDate(raw, i)) masked[i] = WILDCARD;
  }
  // Values in a row are one value of varying length (`IRQs 3 4 5 7`, `at Fri Jun 17 07:07:00 2005`).
  return masked.filter((t, i) => !(t === WILDCARD && masked[i - 1] === WILDCARD));
}

/** Plain words (the common case) skip the piece split. */
const PLAIN_WORD = /^[A-Za-z]+[.,:;!?]?$/;

export function maskToken(token: string): string {
  if (PLAIN_WORD.test(token)) return token;
  // A token that is one quoted string is a value whatever it holds: `'*'`, `']'`, `'[::1]'`, `"a b".`
  const quoted = QUOTED_TOKEN.exec(token);
  if (quoted) return `${quoted[1]}${WILDCARD}${quoted[1]}${quoted[2]}`;
  // A URL is one value, though its `:` would split it.
  const text = token.includes('://') ? token.replace(URL, WILDCARD) : token;
  const pieces = splitPieces(text);
  let changed = false;
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = pieces[i]!;
    if (piece === '' || piece === WILDCARD_BODY) continue;
    if (isQuoted(pieces, i) || isVariable(piece)) {
      pieces[i] = WILDCARD + trailingStop(piece);
      changed = true;
    }
  }
  const out = changed || text !== token ? collapse(pieces.join('')) : token;
  // A quoted string joined across spaces must never reach a template whole: templates split on spaces.
  return /\s/.test(out) ? WILDCARD : out;
}

/** A quote, content without that quote, the same quote, then closing punctuation only. */
const QUOTED_TOKEN = /^(["'`])(?:(?!\1).)+\1([\])}.,;:!?]*)$/s;

/** The look-behind starts a scheme only where one can start, so a long word is scanned once, not once per letter. */
const URL = /(?<![\w+.-])[A-Za-z][\w+.-]*:\/\/[^\s'"`<>()[\]{}]*/g;

/** `*`: what is left between the delimiters `<` and `>` of a `<*>` already in the text. */
const WILDCARD_BODY = '*';
const DELIMITERS = new Set([...'()[]{}<>=,;:"\'`|@']);

/** Alternating pieces and delimiters: even indexes are content (possibly empty), odd ones a delimiter. */
function splitPieces(token: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < token.length; i++) {
    if (DELIMITERS.has(token[i]!)) {
      pieces.push(token.slice(start, i), token[i]!);
      start = i + 1;
    }
  }
  pieces.push(token.slice(start));
  return pieces;
}

function isQuoted(pieces: string[], i: number): boolean {
  const before = pieces[i - 1];
  return (before === '"' || before === "'" || before === '`') && pieces[i + 1] === before;
}

/** Sentence punctuation after a value (`… exists.`) is not part of it. */
function trailingStop(piece: string): string {
  let end = piece.length;
  while (end > 0 && '.!?'.includes(piece[end - 1]!)) end--;
  return piece.slice(end);
}

const HEX = /^[-+]?0x[0-9a-f]+$/i;
/** A Unicode code point as Python and the standard write it: `U+002A`, `U+1F600`. */
const CODE_POINT = /^U\+[0-9A-F]{4,6}$/i;
const HEX_RUN = /^[0-9a-f]{6,}$/i;
const JOINED_NUMBER = /(?:^|[^A-Za-z0-9])\d+(?:$|[^A-Za-z0-9])/;

export function isVariable(piece: string): boolean {
  const core = piece.slice(0, piece.length - trailingStop(piece).length);
  if (core === '') return false;
  const digits = /\d/.test(core);
  // Numbers, addresses, times, versions: digits with punctuation and no letter (two linear tests: one
  // regex for it would backtrack quadratically on a long run of digits before a letter).
  if (digits && !/[A-Za-z]/.test(core)) return true;
  if (HEX.test(core) || CODE_POINT.test(core) || isPath(core)) return true;
  if (!digits) return false;
  if (HEX_RUN.test(core) || JOINED_NUMBER.test(core)) return true;
  return isRandomId(core);
}

/**
 * Letters and digits (the caller saw a digit) mixed the way generated ids mix them: long, or switching
 * between letters and digits three times or more (`jA9JBVPb007417`); a name with a number in it
 * switches once or twice (`e1000`, `utf8mb4`, `sha256sum`).
 */
function isRandomId(core: string): boolean {
  if (!/[A-Za-z]/.test(core)) return false;
  if (core.length >= 16) return true;
  if (core.length < 8) return false;
  let switches = 0;
  for (let i = 1; i < core.length; i++) if (isDigit(core.charCodeAt(i)) !== isDigit(core.charCodeAt(i - 1))) switches++;
  return switches >= 3;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

const FILE_EXTENSION = /\.[A-Za-z0-9]{1,8}$/;

function isPath(core: string): boolean {
  if (core.includes('://')) return true;
  if (core.length > 1 && /^(?:~|\.{1,2})?[/\\][^/\\]/.test(core)) return true;
  if (/^[A-Za-z]:\\/.test(core)) return true;
  let slashes = 0;
  for (let i = 0; i < core.length; i++) if (core[i] === '/' || core[i] === '\\') slashes++;
  return slashes >= 2 || (slashes === 1 && FILE_EXTENSION.test(core));
}

/** `<*>:<*>:<*>` (a time, an address and port) is one value. */
function collapse(text: string): string {
  return text.includes('>:<') || text.includes('>@<') ? text.replace(/<\*>(?:[:@]<\*>)+/g, WILDCARD) : text;
}

const DATE_WORDS = new Set(
  ('mon tue wed thu fri sat sun monday tuesday wednesday thursday friday saturday sunday jan feb mar apr may jun '
    + 'jul aug sep sept oct nov dec january february march april june july august september october november december').split(' '),
);

function isDateWord(token: string): boolean {
  return token.length <= 10 && DATE_WORDS.has(token.replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, '').toLowerCase());
}

/** A date word next to a number, or next to another date word that is next to a number (`Fri Jun 17`). */
function nearDate(raw: readonly string[], i: number): boolean {
  const numberAt = (j: number) => j >= 0 && j < raw.length && /^\W*\d/.test(raw[j]!);
  const dateAt = (j: number) => j >= 0 && j < raw.length && isDateWord(raw[j]!);
  return numberAt(i - 1) || numberAt(i + 1) || (dateAt(i + 1) && numberAt(i + 2)) || (dateAt(i - 1) && numberAt(i - 2));
}
