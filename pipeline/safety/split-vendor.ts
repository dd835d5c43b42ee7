import { entropy, TRUNCATED_PREFIXES, type Finding } from './secrets.js';

/**
 * A vendor token cut into pieces (`ghp_RF2q~M4ur…`, `github_p at_rF35h 2wOF…`, `ghp~_ct+Xa.…` with the
 * separators changing, one piece per path segment `/srv/ghp_RF2q/M4ur…/…`, the prefix's own `_` dropped:
 * `ghp gWILSKHJE y9Jz…`): each piece is too short for any detector, and the cut can fall inside the prefix.
 * The text is read as runs of pieces (letters, digits, `_` and `-`, 1 to MAX_PIECE) between separators (1 to
 * 3 other characters, no line break). Where the pieces, joined, start a vendor prefix at a piece, the rest of
 * the run is the token's body, without the words that end the run (`… for origin`); it is a secret when it
 * reads as a random body: with the prefix as documented, 8 characters of it; with the prefix's punctuation
 * missing (a looser match, so more is asked), 20 characters and the entropy of random text.
 */
const VENDOR_PREFIX = new RegExp(`(?:${TRUNCATED_PREFIXES})`, 'y');
/** The same prefixes with their `_`, `-` and `.` optional (`ghp` for `ghp_`, `skant` for `sk-ant-`). */
const LOOSE_PREFIX = new RegExp(`(?:${TRUNCATED_PREFIXES.replace(/_|-|\\\./g, (p) => `${p}?`)})`, 'y');
const MAX_PIECE = 24;
const MAX_SEPARATOR = 3;
/** Enough for every vendor's body: a body is read this far past its prefix. */
const MAX_BODY = 200;

const isPieceCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
const isSeparatorCode = (c: number): boolean => !isPieceCode(c) && c !== 10 && c !== 13;
/** A piece that is a word of prose (`for`, `Origin`, `CONNECT`), not a piece of a random body. */
const WORD = /^[A-Za-z]?[a-z]{2,}$|^[A-Z]{2,}$/;

/** Every split vendor token in `text`, as source ranges from its first piece to its last. */
export function splitVendorFindings(text: string): Finding[] {
  const out: Finding[] = [];
  let pieces: [number, number][] | null = null;
  for (let i = 0; i < text.length; i += 1) {
    // A piece starts here and may start a prefix (its first two characters, or its only one): most pieces of a text are not read further.
    if (!isPieceCode(text.charCodeAt(i)) || (i > 0 && isPieceCode(text.charCodeAt(i - 1)))) continue;
    const second = i + 1 < text.length && isPieceCode(text.charCodeAt(i + 1)) ? text[i + 1]! : '';
    if (second === '' ? !PREFIX_FIRSTS.has(text[i]!) : !PREFIX_HEADS.has(text[i]! + second)) continue;
    pieces ??= piecesOf(text);
    const p = pieces.findIndex(([start]) => start === i);
    const run = runFrom(text, pieces, p);
    if (run.length < 2) continue;
    const found = vendorIn(text, run);
    if (found !== null) {
      out.push(found);
      i = found.end - 1;
    }
  }
  return out;
}

/** The first two characters of every prefix, and the first one (a one-character piece may start one). */
const PREFIX_HEADS = new Set(['gh', 'gi', 'gl', 'gs', 'np', 'py', 'ps', 'xo', 'xa', 'sk', 'sh', 'sn', 'sb', 'rk', 'r8', 'wh', 'hf', 'hv', 'do', 'dc', 'fi', 'li', 'AK', 'AS', 'AI', 'AT', 'ya']);
const PREFIX_FIRSTS = new Set([...PREFIX_HEADS].map((head) => head[0]!));

/** The pieces of `text` as `[start, end)`. */
function piecesOf(text: string): [number, number][] {
  const pieces: [number, number][] = [];
  for (let i = 0; i < text.length; ) {
    if (!isPieceCode(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    let end = i;
    while (end < text.length && isPieceCode(text.charCodeAt(end))) end += 1;
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
  // The body's pieces, without the words that end the run.
  let last = run.length - 1;
  while (last > 0 && WORD.test(text.slice(run[last]![0], run[last]![1]))) last -= 1;
  let bodyEnd = 0;
  for (let k = 0; k <= last; k += 1) bodyEnd += run[k]![1] - run[k]![0];
  // A token that stands whole in the first piece is the other detectors' (and a run needs a cut).
  if (last === 0 || prefix >= bodyEnd) return null;
  const body = joined.slice(prefix, bodyEnd);
  const enough = loose ? body.length >= 20 && entropy(body) >= 4 : body.length >= 8;
  if (!enough || !randomBody(body)) return null;
  // Without the prefix's punctuation, half the pieces after the first, at least, are no words: a path of
  // names (`npm/node_modules/node-gyp/CODE_OF_CONDUCT`) is not a body.
  const rest = run.slice(1, last + 1).map(([start, end]) => text.slice(start, end));
  if (loose && rest.filter((piece) => !wordish(piece)).length * 2 < rest.length) return null;
  return { start: run[0]![0], end: run[last]![1], kind: 'secret' };
}

/** Words, acronyms and small numbers joined by `_` or `-` (`node_modules`, `CODE_OF_CONDUCT`, `v1`), or two characters at most. */
function wordish(piece: string): boolean {
  return piece.length <= 2 || piece.split(/[-_]+/).every((part) => part === '' || /^[A-Za-z]?[a-z]+$|^[A-Z]+$|^\d{1,4}$|^[a-z]{1,3}\d{1,2}$/.test(part));
}

/**
 * Whether a token's body is not joined prose (`ghp_ is the prefix of …`): not mostly lower-case letters,
 * and a digit or upper-case letters in it, as a random body of any vendor's alphabet has.
 */
export function randomBody(body: string): boolean {
  const letters = body.replace(/[^A-Za-z0-9]/g, '');
  const lower = letters.replace(/[^a-z]/g, '').length;
  return letters.length > 0 && lower <= letters.length * 0.7 && (/\d/.test(letters) || /[A-Z][^A-Z]*[A-Z]/.test(letters));
}

const MARKER = /\[REDACTED:[a-z0-9_]+\]/g;

/**
 * The rest of a token after a redaction marker, cut off by a separator (`[REDACTED:slack_token]/-5500…-x/AlJn…`):
 * a shape took the first piece before the pieces could be joined. Pieces right after a marker continue its
 * secret when none is a word (`expired at …`, `for CONNECT …` follow a marker in prose) and, joined, they mix
 * both cases as a random body does.
 */
export function markerTails(text: string): [start: number, end: number][] {
  const tails: [number, number][] = [];
  if (!text.includes('[REDACTED:')) return tails;
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
    const after = m.index + m[0].length;
    if (after >= text.length || !isSeparatorCode(text.charCodeAt(after)) || text.startsWith('[REDACTED:', after)) continue;
    const rest = text.slice(after);
    const pieces = piecesOf(rest);
    if (pieces.length === 0 || pieces[0]![0] > MAX_SEPARATOR || !allSeparators(rest, 0, pieces[0]![0])) continue;
    const run = runFrom(rest, pieces, 0);
    const words = run.map(([start, end]) => rest.slice(start, end));
    if (run.length === 0 || words.some((piece) => WORD.test(piece))) continue;
    const joined = words.join('');
    if (joined.length >= 8 && /[a-z]/.test(joined) && /[A-Z]/.test(joined) && randomBody(joined)) tails.push([after, after + run[run.length - 1]![1]]);
  }
  return tails;
}

function allSeparators(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (!isSeparatorCode(text.charCodeAt(i))) return false;
  return true;
}
