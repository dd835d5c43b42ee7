import { englishPairs } from './english-pairs.js';
import { entropy, TRUNCATED_PREFIXES, type Finding } from './secrets.js';

/**
 * A vendor token cut into pieces (`ghp_RF2q~M4ur…`, `github_p at_rF35h 2wOF…`, `ghp~_ct+Xa.…` with the
 * separators changing, one piece per path segment `/srv/ghp_RF2q/M4ur…/…`, the prefix's own `_` dropped:
 * `ghp gWILSKHJE y9Jz…`): each piece is too short for any detector, and the cut can fall inside the prefix.
 * The text is read as runs of pieces (letters, digits, `_` and `-`, 1 to MAX_PIECE) between separators (1 to
 * MAX_SEPARATOR other characters, no line break). A prefix may also start inside a piece, after its `-` or `_`
 * (`deploy-ghp_…`). Where the pieces, joined, start a vendor prefix at a piece, the rest of
 * the run is the token's body, up to its last piece that is no word or time (not `… for origin`); it is a secret when it
 * reads as a random body: with the prefix as documented, 8 characters of it; with the prefix's punctuation
 * missing (a looser match, so more is asked), 20 characters and the entropy of random text for their length.
 */

/**
 * The cut-short prefixes, and documented ones too short or too common to be read alone but distinctive at the
 * head of a run of random pieces: SendGrid `SG.`, OpenAI `sk-` (legacy, `sk-svcacct-`), Notion `ntn_`, Doppler
 * `dp.pt.`, age `AGE-SECRET-KEY-1`, a JWT's `eyJ`, Heroku `HRKU-`, Vercel `vcp_`
 * (Twilio's `SK` and Mailgun's `key-` are too common at the head of a run: their split forms stay listed leaks).
 */
const SPLIT_PREFIXES = `${TRUNCATED_PREFIXES}|SG\\.|sk-|ntn_|dp\\.pt\\.|AGE-SECRET-KEY-1|eyJ|HRKU-|vcp_`;
const VENDOR_PREFIX = new RegExp(`(?:${SPLIT_PREFIXES})`, 'y');
/** The same prefixes with their `_`, `-` and `.` optional (`ghp` for `ghp_`, `skant` for `sk-ant-`). */
const LOOSE_PREFIX = new RegExp(`(?:${SPLIT_PREFIXES.replace(/_|-|\\\./g, (p) => `${p}?`)})`, 'y');
const MAX_PIECE = 24;
const MAX_SEPARATOR = 8;
/** Enough for every vendor's body: a body is read this far past its prefix. */
const MAX_BODY = 512;

/**
 * A word of prose (`for`, `Origin`) or a date or time; upper case and digits are not (AWS bodies are), nor
 * letters no English word has in a row (`yj`, `zqryp`: the end of a random body).
 */
const TRAILER = /^[A-Za-z]?[a-z]{2,}$|^[\dTZ:.-]+$/;
const trailer = (piece: string): boolean => TRAILER.test(piece) && (!/^[A-Za-z]/.test(piece) || englishPairs(piece.toLowerCase()));

const isPieceCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
/** A piece's character at `i`: a `-` or `_` doubled (`sk_l--ive_--…`) is a separator, not part of a piece. */
function pieceAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (!isPieceCode(c)) return false;
  return !((c === 45 || c === 95) && (text.charCodeAt(i - 1) === c || text.charCodeAt(i + 1) === c));
}
const separatorAt = (text: string, i: number): boolean => !pieceAt(text, i) && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13;

/** Every split vendor token in `text`, as source ranges from its first piece to its last. */
export function splitVendorFindings(text: string): Finding[] {
  const out: Finding[] = [];
  let pieces: [number, number][] | null = null;
  for (let i = 0; i < text.length; i += 1) {
    // A piece starts here and may start a prefix (its first two characters, or its only one): most pieces of a text are not read further.
    if (!pieceAt(text, i) || (i > 0 && pieceAt(text, i - 1) && !glued(text, i))) continue;
    const second = i + 1 < text.length && pieceAt(text, i + 1) ? text[i + 1]! : '';
    if (second === '' ? !PREFIX_FIRSTS.has(text[i]!) : !PREFIX_HEADS.has(text[i]! + second)) continue;
    pieces ??= piecesOf(text);
    const p = pieces.findIndex(([start, end]) => start <= i && i < end);
    const run = runFrom(text, pieces, p);
    if (run.length > 0) run[0] = [i, run[0]![1]];
    if (run.length < 2) continue;
    const found = vendorIn(text, run);
    if (found !== null) {
      out.push(found);
      i = found.end - 1;
    }
  }
  return out;
}

/** A letter right after a piece's `-` or `_`: a prefix glued to a word (`deploy-ghp_…`). */
function glued(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  const c = text.charCodeAt(i);
  return (before === 45 || before === 95) && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122));
}

/** The first two characters of every prefix, and the first one (a one-character piece may start one). */
const PREFIX_HEADS = new Set(['gh', 'gi', 'gl', 'gs', 'np', 'py', 'ps', 'xo', 'xa', 'sk', 'sh', 'sn', 'sb', 'rk', 'r8', 'wh', 'hf', 'hv', 'do', 'dc', 'fi', 'li', 'AK', 'AS', 'AI', 'AT', 'ya', 'SG', 'nt', 'dp', 'AG', 'ey', 'HR', 'vc']);
const PREFIX_FIRSTS = new Set([...PREFIX_HEADS].map((head) => head[0]!));

/** The pieces of `text` as `[start, end)`. */
export function piecesOf(text: string): [number, number][] {
  const pieces: [number, number][] = [];
  for (let i = 0; i < text.length; ) {
    if (!pieceAt(text, i)) {
      i += 1;
      continue;
    }
    let end = i;
    while (end < text.length && pieceAt(text, end)) end += 1;
    pieces.push([i, end]);
    i = end;
  }
  return pieces;
}

/** The pieces from `p` on that follow each other with a separator between (short pieces only), up to MAX_BODY characters. */
function runFrom(text: string, pieces: readonly [number, number][], p: number): [number, number][] {
  const run: [number, number][] = [];
  let length = 0;
  for (let k = p; k < pieces.length && length < MAX_BODY + 32; k += 1) {
    const [start, end] = pieces[k]!;
    if (end - start > MAX_PIECE) break;
    if (k > p) {
      const gap = start - pieces[k - 1]![1];
      if (gap > MAX_SEPARATOR) break;
      if (!allSeparators(text, pieces[k - 1]![1], start)) return run;
    }
    run.push([start, end]);
    length += end - start;
  }
  return run;
}

/** A vendor token whose prefix starts at the run's first piece, or null. */
function vendorIn(text: string, run: readonly [number, number][]): Finding | null {
  const joined = run.map(([start, end]) => text.slice(start, end)).join('');
  let prefix = 0;
  let loose = false;
  VENDOR_PREFIX.lastIndex = 0;
  if (VENDOR_PREFIX.test(joined)) prefix = VENDOR_PREFIX.lastIndex;
  else {
    LOOSE_PREFIX.lastIndex = 0;
    if (!LOOSE_PREFIX.test(joined)) return null;
    prefix = LOOSE_PREFIX.lastIndex;
    loose = true;
  }
  // The body's pieces, without the words and times that end the run (`… expired at 2024-05-01T10:00:00Z`).
  let last = run.length - 1;
  // A short piece of a time (`5`, `7Z`) stays when what stands before it is the body's (`… YS 5`: its last
  // characters), not a date's or a word's.
  const piece = (k: number): string => text.slice(run[k]![0], run[k]![1]);
  while (last > 0 && trailer(piece(last)) && !(/^[\dTZ]{1,3}$/.test(piece(last)) && !trailer(piece(last - 1)))) last -= 1;
  let bodyEnd = 0;
  for (let k = 0; k <= last; k += 1) bodyEnd += run[k]![1] - run[k]![0];
  // A token that stands whole in the first piece is the other detectors' (and a run needs a cut).
  if (last === 0 || prefix >= bodyEnd) return null;
  const body = joined.slice(prefix, bodyEnd);
  // The entropy of random text for its length: 20 random characters of base62 repeat about three (3.9 bits
  // where all distinct give 4.3), so a fixed 4 bits refused about half of 20-character bodies (GitLab's).
  const enough = loose ? body.length >= 20 && entropy(body) >= Math.min(4, Math.log2(body.length) - 0.6) : body.length >= 8;
  if (!enough || !randomBody(body)) return null;
  // Without the prefix's punctuation, half the pieces after the first, at least, are no words: a path of
  // names (`npm/node_modules/node-gyp/CODE_OF_CONDUCT`) is not a body.
  const rest = run.slice(1, last + 1).map(([start, end]) => text.slice(start, end));
  const counted = rest.filter((piece) => piece.length > 2);
  if (loose && counted.filter((piece) => !wordish(piece)).length * 2 < counted.length) return null;
  return { start: run[0]![0], end: run[last]![1], kind: 'secret' };
}

/**
 * Words, acronyms and small numbers joined by `_` or `-` (`node_modules`, `CODE_OF_CONDUCT`, `v1`); pieces of
 * two characters are not counted. A word of 5 letters or more has letters in a row that English words have
 * (`zqryp` is no word; `npm`, `js` are names too short to tell).
 */
function wordish(piece: string): boolean {
  return piece.split(/[-_]+/).every((part) => part === '' || (/^[A-Za-z]?[a-z]+$/.test(part) ? part.length < 5 || englishPairs(part.toLowerCase()) : /^[A-Z]+$|^\d{1,4}$|^[a-z]{1,3}\d{1,2}$/.test(part)));
}

/**
 * Whether a token's body is not joined prose (`ghp_ is the prefix of …`): not mostly lower-case letters,
 * and a digit or upper-case letters in it, as a random body of any vendor's alphabet has.
 */
function randomBody(body: string): boolean {
  const letters = body.replace(/[^A-Za-z0-9]/g, '');
  const lower = letters.replace(/[^a-z]/g, '').length;
  return letters.length > 0 && lower <= letters.length * 0.7 && (/\d/.test(letters) || /[A-Z][^A-Z]*[A-Z]/.test(letters));
}

const MARKER = /\[REDACTED:[a-z0-9_]+\]/g;

/**
 * The rest of a token after a redaction marker, cut off by a separator (`[REDACTED:slack_token]/-5500…-x/AlJn…`):
 * a shape took the first piece before the pieces could be joined. The pieces right after a marker, with up to
 * 3 characters and no blank between them, continue its secret up to a word, a number or time, or a name of
 * words (tailPiece); 6 characters of them at least.
 * What follows a secret in a log (`:54883],E105,TaskAttempt`, `, ROOT_URLCONF=…`, a CSV row) is numbers,
 * words and CamelCase names, and stays.
 */
export function markerTails(text: string): [start: number, end: number][] {
  const tails: [number, number][] = [];
  if (!text.includes('[REDACTED:')) return tails;
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
    const after = m.index + m[0].length;
    if (after >= text.length || !separatorAt(text, after) || text.startsWith('[REDACTED:', after)) continue;
    const rest = text.slice(after);
    const pieces = piecesOf(rest);
    if (pieces.length === 0 || pieces[0]![0] > MAX_SEPARATOR || !allSeparators(rest, 0, pieces[0]![0])) continue;
    if (/[ \t]/.test(rest.slice(0, pieces[0]![0]))) continue;
    const run = runFrom(rest, pieces, 0);
    let kept = 0;
    let length = 0;
    // A blank, or more than 3 characters, between two pieces ends the tail (a table's ` | `, prose's `, `).
    const tight = (k: number): boolean => k === 0 || (run[k]![0] - run[k - 1]![1] <= 3 && !/[ \t]/.test(rest.slice(run[k - 1]![1], run[k]![0])));
    while (kept < run.length && tight(kept) && tailPiece(rest.slice(run[kept]![0], run[kept]![1]))) {
      length += run[kept]![1] - run[kept]![0];
      kept += 1;
    }
    if (kept > 0 && length >= 6) tails.push([after, after + run[kept - 1]![1]]);
  }
  return tails;
}

/** A piece that may continue a token after its marker: not a word or a time (TRAILER), not a name of words without digits (`TaskAttempt`, `ROOT_URLCONF`). */
function tailPiece(piece: string): boolean {
  if (TRAILER.test(piece)) return false;
  return /\d/.test(piece) || !piece.split(/[-_]+/).every((part) => part === '' || namePart(part));
}

/** Words (lower-case letters with a vowel, a capital before them or not), units, upper-case runs and numbers of up to four digits. */
function namePart(part: string): boolean {
  for (const [token] of part.matchAll(NAME_TOKENS)) {
    const c = token.charCodeAt(token.length - 1);
    if (c >= 97 && c <= 122) {
      // A word has a vowel (`Of`, `expand`); a short unit after a number does not (`100ms`, `4kb`).
      if (!VOWEL.test(token) && !UNIT.test(token)) return false;
    } else if (c >= 48 && c <= 57) {
      if (token.length > 4) return false;
    } else if (!(c >= 65 && c <= 90)) return false;
  }
  return true;
}
const NAME_TOKENS = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z\d]/g;
const VOWEL = /[aeiou]/i;
const UNIT = /^(?:ms|ns|us|px|em|pt|kb|mb|gb|tb|hz|[kmshdx])$/;

export function allSeparators(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (!separatorAt(text, i)) return false;
  return true;
}
