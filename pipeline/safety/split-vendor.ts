import type { View } from './normalise.js';
import { TRUNCATED_PREFIXES } from './secrets.js';

/**
 * A vendor token cut into pieces by a separator (`ghp_RF2q~M4ur…`, `github_p at_rF35h 2wOF…`, one piece per
 * path segment `/srv/ghp_RF2q/M4ur…/…`): the pieces are too short for any detector, the separator can be
 * anything, and the cut can fall inside the vendor's prefix. The text is read as runs of pieces (letters,
 * digits, `_` and `-`, 1 to MAX_PIECE) joined by one separator (1 to 3 other characters, no line break),
 * the same all along the run; where a vendor prefix starts at a piece of a run once its pieces are joined,
 * the view joins them (the separators dropped) and the vendor shapes alone read it: a joined run of ordinary
 * words is prose to a generic detector, but it never takes a vendor's exact shape.
 */
const VENDOR_PREFIX = new RegExp(`(?:${TRUNCATED_PREFIXES})`, 'y');
const MAX_PIECE = 24;
const MAX_SEPARATOR = 3;
/** Enough for every vendor's body; a longer run is read in parts (a view of a hostile run stays small). */
const MAX_RUN = 256;

const isPieceCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
const isSeparatorCode = (c: number): boolean => !isPieceCode(c) && c !== 10 && c !== 13;

/** The view of `text` with every split run that starts a vendor token joined, or none. */
export function splitVendorViews(text: string): View[] {
  const joins: [start: number, end: number][][] = [];
  let i = 0;
  while (i < text.length) {
    const run = runAt(text, i);
    if (run === null) {
      i = nextPiece(text, i);
      continue;
    }
    const start = vendorStart(text, run);
    if (start !== -1) {
      joins.push(run.slice(start));
      i = run[run.length - 1]![1];
    } else {
      // The run's last piece may start the next run (under another separator).
      i = run[run.length - 1]![0];
    }
  }
  if (joins.length === 0) return [];
  let out = '';
  const from: number[] = [];
  let last = 0;
  const keep = (start: number, end: number): void => {
    out += text.slice(start, end);
    for (let k = start; k < end; k += 1) from.push(k);
  };
  for (const pieces of joins) {
    keep(last, pieces[0]![0]);
    for (const [start, end] of pieces) keep(start, end);
    last = pieces[pieces.length - 1]![1];
  }
  keep(last, text.length);
  return [{ text: out, from, to: from.map((k) => k + 1) }];
}

/** The start of the next piece after the one (or the separators) at `i`. */
function nextPiece(text: string, i: number): number {
  let k = i;
  while (k < text.length && isPieceCode(text.charCodeAt(k))) k += 1;
  while (k < text.length && !isPieceCode(text.charCodeAt(k))) k += 1;
  return k;
}

/** The pieces (`[start, end)`) of the run of two or more that starts at `i`, or null. */
function runAt(text: string, i: number): [number, number][] | null {
  const pieceEnd = (start: number): number => {
    let k = start;
    while (k < text.length && isPieceCode(text.charCodeAt(k))) k += 1;
    return k;
  };
  if (i > 0 && isPieceCode(text.charCodeAt(i - 1))) return null;
  let end = pieceEnd(i);
  if (end === i || end - i > MAX_PIECE) return null;
  const pieces: [number, number][] = [[i, end]];
  let k = end;
  while (k < text.length && k - end < MAX_SEPARATOR && isSeparatorCode(text.charCodeAt(k))) k += 1;
  const separator = text.slice(end, k);
  if (separator === '') return null;
  for (let length = end - i; length < MAX_RUN && text.startsWith(separator, end); ) {
    const start = end + separator.length;
    const next = pieceEnd(start);
    if (next === start || next - start > MAX_PIECE) break;
    pieces.push([start, next]);
    length += next - start;
    end = next;
  }
  return pieces.length >= 2 ? pieces : null;
}

/** The index of the first piece of `run` at which, the pieces joined, a vendor prefix starts; -1 when none. */
function vendorStart(text: string, run: readonly [number, number][]): number {
  const joined = run.map(([start, end]) => text.slice(start, end)).join('');
  let offset = 0;
  for (let p = 0; p < run.length - 1; p += 1) {
    VENDOR_PREFIX.lastIndex = offset;
    if (VENDOR_PREFIX.test(joined)) return p;
    offset += run[p]![1] - run[p]![0];
  }
  return -1;
}

/**
 * Whether a vendor shape found in a joined view is a token and not joined prose (`ghp_ is the prefix of …`
 * joins to a github shape): its body, after the prefix, is not mostly lower-case letters, and holds a digit
 * or upper-case letters, as a random body of any vendor's alphabet does.
 */
export function randomBody(found: string): boolean {
  VENDOR_PREFIX.lastIndex = 0;
  const body = VENDOR_PREFIX.test(found) ? found.slice(VENDOR_PREFIX.lastIndex) : found;
  const letters = body.replace(/[^A-Za-z0-9]/g, '');
  const lower = letters.replace(/[^a-z]/g, '').length;
  return letters.length > 0 && lower <= letters.length * 0.7 && (/\d/.test(letters) || /[A-Z][^A-Z]*[A-Z]/.test(letters));
}

const MARKER = /\[REDACTED:[a-z0-9_]+\]/g;
const WORD = /^[A-Za-z]?[a-z]{2,}$|^[A-Z]{2,}$/;

/**
 * The rest of a token after a redaction marker, cut off by a separator (`[REDACTED:slack_token]/-5500…-x/AlJn…`):
 * a shape took the first piece before the pieces could be joined. Pieces joined by one separator right after
 * a marker continue its secret when none is a word (`expired at …`, `for CONNECT …` follow a marker in
 * prose) and, joined, they mix both cases and digits as a random body does.
 */
export function markerTails(text: string): [start: number, end: number][] {
  const tails: [number, number][] = [];
  if (!text.includes('[REDACTED:')) return tails;
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
    const after = m.index + m[0].length;
    if (after >= text.length || !isSeparatorCode(text.charCodeAt(after)) || text.startsWith('[REDACTED:', after)) continue;
    // A run read from the marker's last character: the marker stands as the first piece.
    const run = runAt(`x${text.slice(after)}`, 0);
    if (run === null) continue;
    const pieces = run.slice(1).map(([start, end]) => text.slice(after + start - 1, after + end - 1));
    if (pieces.some((piece) => WORD.test(piece))) continue;
    const joined = pieces.join('');
    if (joined.length >= 8 && /\d/.test(joined) && /[a-z]/.test(joined) && /[A-Z]/.test(joined) && randomBody(joined)) tails.push([after, after + run[run.length - 1]![1] - 1]);
  }
  return tails;
}
