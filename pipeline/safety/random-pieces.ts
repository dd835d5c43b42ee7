import { englishPairs } from './english-pairs.js';
import { entropy, type Finding } from './secrets.js';
import { allSeparators, piecesOf } from './split-vendor.js';

/**
 * A token cut into pieces with nothing to name it: the body without its prefix, the pieces in another
 * order, the prefix in another field, a vendor the split reader (split-vendor.ts) has no prefix for, base32
 * or hex groups. Each piece is too short for any detector, and no prefix anchors the run. What anchors it
 * instead is what the pieces are: ordinary text cut at its separators is words, numbers, units and names
 * of words; a random token cut anywhere is pieces that mix letters and digits, or cases out of CamelCase
 * order. So a window of pieces is a secret when, joined, it is long and random (several classes of
 * character, the entropy of random text) and most of it is such pieces. One reading for every vendor and
 * every order: nothing here knows a vendor.
 *
 * A window also runs down a column (one piece alone on each line: a token wrapped at a few columns), and
 * is asked less where something else anchors it: right after a redaction marker (the rest of a token a
 * shape took the head of).
 */

/** Pieces longer than this are whole tokens: the other detectors' (and a UUID, a path's part: not pieces). */
const MAX_PIECE = 24;
const MAX_SEPARATOR = 8;
/** A window needs this many pieces (two pieces and a separator are a name and its value more often than a cut token). */
const MIN_PIECES = 3;
/** The length each of two halves needs to stand for a token cut in two. */
const MIN_HALF = 10;
/** Joined characters a window needs alone, and with an anchor before it. */
const MIN_JOINED = 20;
const MIN_ANCHORED = 8;
/**
 * Joined characters a window of four or more groups of one length (4 and up) needs: a seed or a key shown
 * in groups (`5qgw wr5g i6hm vzj4`, as authenticator apps and licence keys print them).
 */
const MIN_GROUPED = 16;
function groupsOfOneLength(pieces: readonly string[]): boolean {
  return pieces.length >= 4 && pieces[0]!.length >= 4 && pieces.every((piece) => piece.length === pieces[0]!.length);
}
/**
 * Groups of one length that read as a random alphabet: no word among them, two classes of character,
 * the entropy of random text for its length, few vowels, nothing repeated. The groups' regular shape is
 * what a name or a sentence does not have; the rest asks less than a window of pieces of any length.
 */
function readsAsGroups(joined: string, kinds: readonly PieceKind[], pieces: readonly string[]): boolean {
  // A group of digits among them is the token's (`jPPq-3999-KJNH-1041`), and so is one group in three that
  // happens to read as a word (`sbwi`: four random letters have English pairs about one time in six).
  // A code word with a number and no vowel (`TCN6`, `HB62`) is a random group too.
  const words = kinds.filter((kind, i) => kind === 'word' && /[aeiouy]/i.test(pieces[i]!)).length;
  if (words * 3 >= pieces.length) return false;
  const classes = Number(/[a-z]/.test(joined)) + Number(/[A-Z]/.test(joined)) + Number(/\d/.test(joined));
  return classes >= 2 && entropy(joined) >= Math.log2(joined.length) - 0.9 && vowelShare(joined) < 0.3 && !repeatsFour(joined);
}
/** Hex digits a window of hex pieces needs alone: hex tokens have 32 or more, digests cut short in a table fewer. */
const MIN_HEX = 32;
/** Upper-case letters and digits a window of them needs alone (base32 of 15 bytes). */
const MIN_UPPER = 24;


/**
 * Whether one part of an identifier (a session id cut at `-`, `_`, `.`, `:`, `+`) reads as a piece of a token:
 * 12 letters and digits or more, read as a window of one piece would be (`run-czkakQQeaYzPglU-0`).
 */
export function readsAsRandomPart(part: string): boolean {
  if (part.length < 12 || !/^[A-Za-z0-9]+$/.test(part)) return false;
  return reads(part, [part], [partKind(part)], false, true);
}

/**
 * Whether the gaps between the pieces are one short separator (up to 3: ` - `, ` / `), the same each time
 * or two in turn (`ab12-cd34 ef56-gh78`): how groups are printed, not a sentence's punctuation.
 */
function evenlySeparated(text: string, run: readonly [number, number][]): boolean {
  const gaps = run.slice(1).map(([start], k) => text.slice(run[k]![1], start));
  return gaps.every((gap, k) => gap.length <= 3 && (gap === gaps[k % 2] || gap === gaps[0]));
}
/** Whether the parts of an identifier (`6MA7_NYX3_…`) are four or more groups of one length that read as a seed or key. */
export function readsAsGroupedToken(parts: readonly string[]): boolean {
  return groupsOfOneLength(parts) && readsAsGroups(parts.join(''), parts.map(partKind), parts);
}

/**
 * Every random run of pieces in `text`, as source ranges from its first random piece to its last. With
 * `anchored`, every window is read as one right after an anchor (8 characters are enough): the texts of an
 * event whose identifier was refused for carrying a piece of a token (the rest of it may stand here).
 */
export function randomPieceFindings(text: string, anchored = false): Finding[] {
  if (!mayHoldPieces(text)) return [];
  const pieces = piecesOf(text);
  const marked = text.includes('[REDACTED:');
  const out: Finding[] = [];
  let run: [number, number][] = [];
  const flush = (): void => {
    // A run with no piece that mixes classes (most runs: words and numbers) holds no window: its pieces are not judged.
    if (run.length > 0 && MIXED.test(text.slice(run[0]![0], run[run.length - 1]![1]))) {
      for (const f of windowsOf(text, run, anchored, marked, anchored)) out.push(f);
    }
    run = [];
  };
  for (let k = 0; k < pieces.length; k += 1) {
    const [start, end] = pieces[k]!;
    if (end - start > MAX_PIECE) {
      flush();
      continue;
    }
    if (run.length > 0 && !joins(text, run[run.length - 1]!, [start, end])) flush();
    run.push([start, end]);
  }
  flush();
  for (const f of groupFindings(text)) out.push(f);
  return out;
}

/**
 * Groups of letters and digits printed as a seed or a licence key is (`wbua-sbwi-bsxy-i6rh`, `TCN6-BQZ7
 * 5M3J-45WT HB62`, `ab3d - x9kq - …`): four or more of one length (4 to 8), evenly separated, that read as
 * a random alphabet (readsAsGroups). Read on the text itself, whatever its pieces are (a `-` is inside one).
 */
const GROUPS = /(?<![A-Za-z0-9])[A-Za-z0-9]{4,8}(?:[ \t\-_/.:]{1,3}[A-Za-z0-9]{4,8}){3,}(?![A-Za-z0-9])/g;
function groupFindings(text: string): Finding[] {
  const out: Finding[] = [];
  GROUPS.lastIndex = 0;
  for (let m = GROUPS.exec(text); m !== null; m = GROUPS.exec(text)) {
    // The stretches of groups of one length in the match (`… wbua-sbwi-bsxy-i6rh rejected`: the four of 4).
    const groups = [...m[0].matchAll(/[A-Za-z0-9]+/g)];
    for (let from = 0; from < groups.length; ) {
      let to = from + 1;
      while (to < groups.length && groups[to]![0].length === groups[from]![0].length) to += 1;
      if (to - from >= 4) {
        const stretch = groups.slice(from, to);
        const gaps = stretch.slice(1).map((g, k) => m![0].slice(stretch[k]!.index + stretch[k]![0].length, g.index));
        const even = gaps.every((gap, k) => gap === gaps[k % 2] || gap === gaps[0]);
        if (even && readsAsGroupedToken(stretch.map((g) => g[0]))) {
          const last = stretch[stretch.length - 1]!;
          out.push({ start: m.index + stretch[0]!.index, end: m.index + last.index + last[0].length, kind: 'secret' });
        }
      }
      from = to;
    }
  }
  return out;
}

/**
 * Whether `text` holds a column: three lines in a row, each one piece alone (a token wrapped at a few
 * columns). The redactor reads such a text whole, not line by line (redact.ts isLineLocal).
 */
export function holdsColumn(text: string): boolean {
  let inRow = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    inRow = COLUMN_LINE.test(text.slice(start, end)) ? inRow + 1 : 0;
    if (inRow >= 3) return true;
    start = end + 1;
  }
  return false;
}
const COLUMN_LINE = /^[ \t]*(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{2,24}[ \t\r]*$/;


/**
 * A cheap test before the pieces are read: a digit and a letter, or both cases, somewhere in the text,
 * and at least MIN_PIECES - 1 separators. Most log lines pass; the test only spares the ones that cannot hold a window.
 */
function mayHoldPieces(text: string): boolean {
  return text.length >= MIN_ANCHORED && MIXED.test(text);
}
/**
 * Every window that reads as random holds two classes of character, and its random or hex pieces mix them
 * inside a piece (a letter beside a digit, a capital after lower case); base32 pieces without digits stand
 * beside ones with them. A text with no such pair holds no window.
 */
const MIXED = /[A-Za-z]\d|\d[A-Za-z]|[a-z][A-Z]/;

/** Whether the gap between two pieces separates pieces of one token: a short separator on a line, or a column's line break. */
function joins(text: string, before: readonly [number, number], after: readonly [number, number]): boolean {
  // One character that is no piece's and no line break (the usual gap): a separator.
  if (after[0] - before[1] === 1 && text.charCodeAt(before[1]) !== 10 && text.charCodeAt(before[1]) !== 13) return true;
  const gap = text.slice(before[1], after[0]);
  if (!gap.includes('\n') && !gap.includes('\r')) return gap.length <= MAX_SEPARATOR && allSeparators(text, before[1], after[0]);
  // A column: only blanks and one line break between, the piece before ends its line (a label may come
  // first: `String: npm_NL`), the one after is alone on its own.
  return /^[ \t]*\r?\n[ \t]*$/.test(gap) && blank(text.slice(text.lastIndexOf('\n', after[0] - 1) + 1, after[0])) && blank(restOfLine(text, after[1]));
}

const blank = (s: string): boolean => /^[ \t\r]*$/.test(s);
function restOfLine(text: string, from: number): string {
  const nl = text.indexOf('\n', from);
  return text.slice(from, nl === -1 ? text.length : nl);
}

/**
 * What a piece is: part of a random token; hex digits (a digest, an address, a short commit id: ids
 * logs are full of, and part of a token only among hex pieces alone); a word (or a number, unit, name of
 * words); or neither (short).
 */
type PieceKind = 'random' | 'hex' | 'word' | 'neutral';

export function pieceKind(piece: string): PieceKind {
  // Logs repeat their words: each piece is judged once (a bounded memo, emptied when full).
  let kind = KINDS.get(piece);
  if (kind === undefined) {
    if (KINDS.size >= MAX_KINDS) KINDS.clear();
    kind = judgePiece(piece);
    KINDS.set(piece, kind);
  }
  return kind;
}
const KINDS = new Map<string, PieceKind>();
const MAX_KINDS = 50_000;

function judgePiece(piece: string): PieceKind {
  const parts = piece.split(/[-_]+/).filter((part) => part !== '');
  if (parts.length <= 1) return partKind(parts[0] ?? '');
  // Parts that are each a letter code and a number (`R10-M1-N2`, `x86-64`, `utf-8`): a location or version, a name.
  if (parts.every((part) => /^[A-Za-z]{0,4}\d{1,4}$|^[a-z]{1,8}$/.test(part)) && parts.some((part) => /\d/.test(part))) return 'word';
  const kinds = parts.map(partKind);
  if (kinds.includes('random')) return 'random';
  if (kinds.includes('hex')) return 'hex';
  // Words and short parts (`R25-M1-N2`, `log-v2`): a name.
  return kinds.includes('word') ? 'word' : 'neutral';
}

/**
 * One part of a piece (cut at `-` and `_`). Numbers, units, versions, a word of one case or capitalised
 * are words; upper case with digits (base32, an id) is a candidate from 6 characters, and so is a part that
 * mixes cases or holds letters and digits (a CamelCase name too: the window's letters tell them apart).
 */
function partKind(part: string): PieceKind {
  if (/^\d+$/.test(part) || /^0x[0-9a-fA-F]+$/.test(part)) return 'word';
  if (part.length <= 3) return 'neutral';
  if ((/^[0-9a-f]+$/.test(part) || /^[0-9A-F]+$/.test(part)) && /\d/.test(part)) return 'hex';
  if (UNIT_NUMBER.test(part) || VERSION.test(part)) return 'word';
  const lower = /[a-z]/.test(part);
  const digit = /\d/.test(part);
  // Upper case alone: an acronym (`HTTP`: neither), a word in capitals (`ENOENT`, `INVALIDCONFIGURATION`:
  // vowels), base32 (few vowels) or an id with digits.
  if (!lower) {
    if (part.length < 6) return 'neutral';
    return digit || vowelShare(part) < 0.3 ? 'random' : 'word';
  }
  // Letters of one case, or capitalised: a word when every pair of letters in it is one English words have.
  if (!digit && !/[A-Z]/.test(part.slice(1))) return englishPairs(part.toLowerCase()) ? 'word' : 'neutral';
  return 'random';
}


/** A number with its unit or ordinal (`100ms`, `4kb`, `3rd`, `64bit`). */
const UNIT_NUMBER = /^\d+(?:ms|ns|us|px|em|pt|kb|mb|gb|tb|kib|mib|gib|hz|khz|mhz|bit|bits|st|nd|rd|th|[kmshdxb])$/i;
/**
 * A version, a name or code word with a number (`v1`, `utf8`, `sha256`, `welcome3`, `E123`; lower-case
 * letters before the number hold a vowel, or are one: `h264`, not `vzj4`), dimensions (`128x256x1`).
 */
const VERSION = /^(?:v\d+|[a-z]?[a-z]*[aeiouy][a-z]*\d{1,4}|[a-z]\d{1,4}|[A-Z]{1,4}\d{1,4}|\d+(?:x\d+)+)$/;

/**
 * A piece's kind where it stands: right after a backslash, its first letter is an escape's (`\n5:`, `\tfoo`),
 * and `u` or `x` with hex digits is an escape whole (`\u192c\u3a09`): a JSON or C string written out.
 */
function kindAt(text: string, start: number, end: number): PieceKind {
  const piece = text.slice(start, end);
  // Bytes written out (`FF:F2:9F:16`, a MAC address, a hex dump) are data, not a token's pieces.
  if (/^[0-9A-Fa-f]{2}$/.test(piece) && (text[start - 1] === ':' || text[end] === ':')) return 'word';
  if (text[start - 1] !== '\\') return pieceKind(piece);
  if (/^[ux][0-9a-fA-F]{2}/.test(piece)) return 'word';
  return /^[ntrbf]./.test(piece) ? pieceKind(piece.slice(1)) : pieceKind(piece);
}

/** Windows of `run` (consecutive joined pieces) that read as random tokens. */
function windowsOf(text: string, run: readonly [number, number][], anchored: boolean, marked: boolean, everywhere = false): Finding[] {
  if (run.length < (anchored ? 1 : 2)) return [];
  const kinds = run.map(([start, end]) => kindAt(text, start, end));
  const out: Finding[] = [];
  // A window ends at two words in a row, or at a word of more than 8 characters (an accidental word in a
  // random body, `Abcdef`, is one short piece between random ones).
  let from = 0;
  for (let k = 0; k <= run.length; k += 1) {
    const ends = k === run.length || (kinds[k] === 'word' && (run[k]![1] - run[k]![0] > 8 || kinds[k + 1] === 'word' || k + 1 === run.length));
    if (!ends) continue;
    // The word that ends it goes with it (windowAt trims words off the edges, and keeps a hex token's last group).
    const to = Math.min(k + 1, run.length);
    const found = from < k ? windowAt(text, run.slice(from, to), kinds.slice(from, to), anchored && (from === 0 || everywhere), marked, everywhere) : null;
    if (found !== null) out.push(found);
    from = k + 1;
  }
  return out;
}

/**
 * A redaction marker right before `start`, glued or with one separator between (`[REDACTED:secret] 1a62
 * 0b9f …`): the rest of a token a shape took the head of. A cell after it (`` ` | ` ``) is not.
 */
function afterMarker(text: string, start: number): boolean {
  const i = text[start - 1] === ']' ? start : text[start - 2] === ']' && allSeparators(text, start - 1, start) ? start - 1 : -1;
  return i !== -1 && MARKER_END.test(text.slice(Math.max(0, i - 40), i));
}
const MARKER_END = /\[REDACTED:[a-z0-9_]+\]$/;

/** The window's random stretch (from its first random piece to its last), when it reads as a token. */
function windowAt(text: string, run: readonly [number, number][], kinds: readonly PieceKind[], anchored: boolean, marked: boolean, everywhere = false): Finding | null {
  let first = 0;
  let last = run.length - 1;
  // The edges are where the token starts and ends: not a word, nor a short piece of lower-case letters (`bad token …`).
  const edge = (k: number): boolean => kinds[k] === 'word' || (kinds[k] === 'neutral' && /^(?:[a-z]+|\d+)$/.test(text.slice(run[k]![0], run[k]![1])));
  while (first <= last && edge(first)) first += 1;
  while (last >= first && edge(last)) last -= 1;
  // Hex groups: a group of digits or of hex letters alone (`261062`, `df`) is the token's too, at its edges.
  const hexPiece = (k: number): boolean => /^[0-9a-fA-F]+$/.test(text.slice(run[k]![0], run[k]![1]));
  if (first <= last && run.slice(first + 1, last + 1).every((_, i) => hexPiece(first + 1 + i))) {
    while (last + 1 < run.length && hexPiece(last + 1)) last += 1;
  }
  // An anchor holds for pieces right after it (the text's start, a marker), not for a sentence that goes on past it.
  anchored = (anchored && (first === 0 || everywhere)) || (marked && afterMarker(text, run[first]?.[0] ?? 0));
  // Two random halves of 10 or more (`7km4M26eOim27Wh:XZjyi9wPFE5E0Pg`): a token cut in two, each half under a whole token's length.
  const halves = !anchored && last - first === 1 && [first, last].every((k) => kinds[k] === 'random' && run[k]![1] - run[k]![0] >= MIN_HALF);
  if (first > last || (last - first + 1 < (anchored ? 1 : MIN_PIECES) && !halves)) return null;
  const pieces = run.slice(first, last + 1).map(([start, end]) => text.slice(start, end));
  const joined = pieces.join('');
  // Groups are printed with one separator between each two (`5qgw wr5g …`, `A1B2-C3D4-…`).
  const grouped = groupsOfOneLength(pieces) && evenlySeparated(text, run.slice(first, last + 1));
  if (joined.replace(/[-_]/g, '').length < (anchored ? MIN_ANCHORED : grouped ? MIN_GROUPED : MIN_JOINED)) return null;
  if (!reads(joined, pieces, kinds.slice(first, last + 1), anchored, halves) && !(grouped && readsAsGroups(joined, kinds.slice(first, last + 1), pieces))) return null;
  // A number glued to the token's first piece by one character is its head (a Telegram bot's id: `967097 9746:AA…`).
  let head = first;
  while (head > 0 && /^\d+$/.test(text.slice(run[head - 1]![0], run[head - 1]![1])) && run[head]![0] - run[head - 1]![1] <= 1) head -= 1;
  return { start: run[head]![0], end: run[last]![1], kind: 'secret' };
}

/**
 * Whether joined pieces read as a random token. Hex pieces alone: 32 hex digits (a hex token's length),
 * the entropy of random hex. Otherwise two classes of character (lower case, upper case, digits), the
 * entropy of random text, few characters in words, pieces that do not repeat, and the letters of a random
 * alphabet rather than of names: names and prose (`setLightsOn`, `IdoTransportMgr`, `-dNOPAUSE`) have a
 * vowel in about every third letter and change class (case, digit) about once a word; random text has a
 * vowel in about one letter of five and changes class every other character (base62), or keeps few vowels
 * (base32, base36).
 */
function reads(joined: string, pieces: readonly string[], kinds: readonly PieceKind[], anchored: boolean, single = false): boolean {
  const letters = joined.replace(/[-_]/g, '');
  const lower = /[a-z]/.test(letters);
  const upper = /[A-Z]/.test(letters);
  const digit = /\d/.test(letters);
  if (Number(lower) + Number(upper) + Number(digit) < 2) return false;
  // A short prefix of other letters before hex digits is a vendor's (Twilio's `SK`, `AC`): the rest is judged as hex.
  const body = letters.replace(/^[G-Zg-z]{1,4}(?=[0-9a-fA-F]+$)/, '');
  const hex = /^[0-9a-f]+$/.test(body) || /^[0-9A-F]+$/.test(body);
  const bits = entropy(letters);
  if (hex) return entropy(body) >= 3.2 && (anchored ? body.length >= MIN_ANCHORED : body.length >= MIN_HEX && kinds.filter((k) => k !== 'word').length >= MIN_PIECES);
  // The entropy of random text for its length (a short text cannot reach its alphabet's: 15 characters at most log2(15)).
  if (bits < (anchored ? 3 : Math.min(3.6, Math.log2(letters.length) - 0.6))) return false;
  let wordChars = 0;
  for (let i = 0; i < pieces.length; i += 1) if (kinds[i] === 'word') wordChars += pieces[i]!.length;
  if (wordChars * 4 > joined.length) return false;
  // A name repeated (`Slf4jLogger … Slf4jLogger`, `ddcMD/ddcMD1/ddcMDbglV`) is not the parts of one token:
  // four characters in a row occur twice in random text of this length about once in ten thousand.
  if (!anchored && repeatsFour(letters)) return false;
  // Letters and changes of the pieces that are not words (`Window` next to `ca98d5` says nothing of it).
  const rest = pieces.filter((_, i) => kinds[i] !== 'word');
  // One random piece among short words is a token of its own with its command (`DjAylAA9t4 psql -h db -U`),
  // the other detectors' to judge: the rest of a cut token holds 12 characters besides its longest piece.
  const restLetters = rest.join('').replace(/[-_]/g, '').length;
  if (!anchored && !single && restLetters - Math.max(...rest.map((piece) => piece.replace(/[-_]/g, '').length)) < 12) return false;
  const vowels = vowelShare(rest.join(''));
  const changes = classChanges(rest);
  if (anchored) return vowels < 0.32 && (changes >= 0.25 || !lower);
  // Upper case and digits (base32, serials): 24 characters, few vowels.
  if (!lower) return vowels < 0.25 && letters.length >= (single ? 12 : MIN_UPPER);
  // Hex pieces among others (`dd61d0952749 | 1 KiB | a07307511f67c9dc`): ids next to words, judged as hex above or not at all.
  let hexChars = 0;
  for (let i = 0; i < pieces.length; i += 1) if (kinds[i] === 'hex') hexChars += pieces[i]!.length;
  if (hexChars * 2 > joined.length) return false;
  // Fewer changes with fewer vowels: base36, pairs; their digits (two at least) set them apart from names of
  // abbreviations, which change class only at a word (`mLctn`, `mCardSernum`, `mType`).
  const digits = (rest.join('').match(/\d/g)?.length ?? 0) >= 2;
  const english = englishShare(rest);
  return changes >= 0.5 || (changes >= 0.35 && (vowels < 0.36 || english < 0.75)) || (changes >= 0.25 && digits && (vowels < 0.25 || (english < 0.6 && vowels < 0.3)));
}

function repeatsFour(text: string): boolean {
  const seen = new Set<string>();
  for (let i = 0; i + 4 <= text.length; i += 1) {
    const four = text.slice(i, i + 4);
    if (seen.has(four)) return true;
    seen.add(four);
  }
  return false;
}

/** The share of pairs of letters in a row (inside a piece, either case) that English words have (englishPairs). */
function englishShare(pieces: readonly string[]): number {
  let pairs = 0;
  let english = 0;
  for (const piece of pieces) {
    const lower = piece.toLowerCase();
    for (let i = 1; i < lower.length; i += 1) {
      const a = lower.charCodeAt(i - 1);
      const b = lower.charCodeAt(i);
      if (a < 97 || a > 122 || b < 97 || b > 122) continue;
      pairs += 1;
      if (englishPairs(lower.slice(i - 1, i + 1))) english += 1;
    }
  }
  return pairs === 0 ? 1 : english / pairs;
}

/** The share of vowels among the letters. */
function vowelShare(text: string): number {
  let letters = 0;
  let vowels = 0;
  for (const c of text.toLowerCase()) {
    if (c < 'a' || c > 'z') continue;
    letters += 1;
    if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') vowels += 1;
  }
  return letters === 0 ? 0 : vowels / letters;
}

/**
 * How often the class (lower case, upper case, digit) changes from one character to the next inside a
 * piece, but for a capital followed by lower case: CamelCase names change class once a word, random text
 * (base62) about every other character.
 */
function classChanges(pieces: readonly string[]): number {
  let pairs = 0;
  let changes = 0;
  for (const piece of pieces) {
    for (let i = 1; i < piece.length; i += 1) {
      const a = classOf(piece.charCodeAt(i - 1));
      const b = classOf(piece.charCodeAt(i));
      if (a === 3 || b === 3) continue;
      pairs += 1;
      // A capital that starts a word of a name (`SendPacket`: after no other capital, before lower case): not counted.
      if (a !== b && !(a === 1 && b === 0 && (i < 2 || classOf(piece.charCodeAt(i - 2)) !== 1))) changes += 1;
    }
  }
  return pairs === 0 ? 0 : changes / pairs;
}

const classOf = (c: number): number => (c >= 97 && c <= 122 ? 0 : c >= 65 && c <= 90 ? 1 : c >= 48 && c <= 57 ? 2 : 3);
