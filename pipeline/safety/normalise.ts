import { createRequire } from 'node:module';
import { codeAt } from '../model/char-code.js';

/**
 * One normalisation in front of every detector. Log text hides secrets and words from patterns with
 * characters a reader does not see (ANSI codes, zero-width and bidi marks), with look-alikes (full-width
 * or Cyrillic letters) and with encodings (`\n` or `\u0041` escapes, `%3A`, base64). Detectors run on
 * *views* of the text: the text as a reader reads it, decoded, with a map from every character of the
 * view back to the characters of the text it came from, so a secret found in a view redacts exactly
 * the run of the text that encodes it.
 */

/** CSI and OSC escape sequences (colours, cursor moves, hyperlinks), and other single ESC codes. */
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\u009b[0-?]*[ -/]*[@-~]/g;
/**
 * Characters nobody reads: C0/C1 controls (tab, newline and NEL, a line break, are kept), zero-width characters and joiners,
 * the soft hyphen, bidi embeddings, overrides and isolates, the BOM and interlinear annotation marks, and
 * the tag characters (U+E0000–E007F: invisible, yet a model reads them as the ASCII they mirror) and the
 * supplementary variation selectors (U+E0100–E01EF).
 */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f\udd00-\uddef]/g;
const NEEDS_STRIP = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f\udd00-\uddef]/;

/**
 * Printable ASCII, tabs and line breaks only: nothing for NEEDS_STRIP (every character it names, ESC and
 * CSI included, is a control or not ASCII). Read by character code, so the hook, which strips a few short
 * texts, does not compile that class of ranges.
 */
function printableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c > 0x7e) return false;
  }
  return true;
}

/** The text without ANSI codes and invisible characters: what is stored and shown. */
export function stripInvisible(text: string): string {
  if (printableAscii(text) || !NEEDS_STRIP.test(text)) return text;
  return text.replace(ANSI, '').replace(INVISIBLE, '');
}

/**
 * A view of a text: `text`, and for each of its UTF-16 units the range `[from, to)` of the source text
 * it came from. Ranges of neighbouring units may overlap (a decoded base64 run maps every character to
 * the whole run).
 */
export interface View {
  readonly text: string;
  readonly from: readonly number[];
  readonly to: readonly number[];
}

/** The source range a view's `[start, end)` came from. */
export function sourceRange(view: View, start: number, end: number): [number, number] {
  let from = Number.POSITIVE_INFINITY;
  let to = 0;
  for (let i = start; i < end; i += 1) {
    from = Math.min(from, view.from[i]!);
    to = Math.max(to, view.to[i]!);
  }
  return end > start ? [from, to] : [view.from[start] ?? 0, view.from[start] ?? 0];
}

class ViewBuilder {
  text = '';
  readonly from: number[] = [];
  readonly to: number[] = [];

  constructor(private readonly base: View | null) {}

  /** Appends `piece`, which came from the base's `[start, end)`. */
  push(piece: string, start: number, end: number): void {
    const [from, to] = this.base ? sourceRange(this.base, start, end) : [start, end];
    this.text += piece;
    for (let i = 0; i < piece.length; i += 1) {
      this.from.push(from);
      this.to.push(to);
    }
  }

  view(): View {
    return { text: this.text, from: this.from, to: this.to };
  }
}

let confusables: ReadonlyMap<string, string> | null = null;
/** `confusables` is loaded on the first non-ASCII character (CommonJS: a synchronous require). */
function skeletonMap(): ReadonlyMap<string, string> {
  if (confusables === null) {
    const require = createRequire(import.meta.url);
    const map = (require('confusables') as { confusablesMap: Map<string, string> }).confusablesMap;
    confusables = map;
  }
  return confusables;
}

/** One code point as detectors read it: NFKC, then its confusable skeleton (ASCII is left alone). */
function fold(ch: string): string {
  const nfkc = ch.normalize('NFKC');
  let out = '';
  for (const c of nfkc) out += c.charCodeAt(0) < 128 ? c : (skeletonMap().get(c) ?? c);
  return out;
}

/** NFKC and confusable skeleton, per code point; null when no character reads differently. */
function readerView(text: string): View | null {
  let changed = false;
  for (const ch of text) {
    if (ch.charCodeAt(0) >= 128 && fold(ch) !== ch) {
      changed = true;
      break;
    }
  }
  if (!changed) return null;
  const b = new ViewBuilder(null);
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const n = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + n);
    b.push(cp < 128 ? ch : fold(ch), i, i + n);
    i += n;
  }
  return b.view();
}

const JSON_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: ' ', f: ' ', '"': '"', "'": "'", '\\': '\\', '/': '/' };

/** JSON (and shell) escapes decoded: `\n`, `\t`, `\"`, `\u0041`, `\x41`. */
function unescapeView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\\') {
      const next = text[i + 1] ?? '';
      const u = /^u[0-9a-fA-F]{4}/.test(text.slice(i + 1, i + 6)) ? 6 : /^x[0-9a-fA-F]{2}/.test(text.slice(i + 1, i + 4)) ? 4 : 0;
      if (u > 0) {
        b.push(String.fromCharCode(parseInt(text.slice(i + 2, i + u), 16)), i, i + u);
        i += u;
        continue;
      }
      if (Object.hasOwn(JSON_ESCAPES, next)) {
        b.push(JSON_ESCAPES[next]!, i, i + 2);
        i += 2;
        continue;
      }
    }
    b.push(text[i]!, i, i + 1);
    i += 1;
  }
  return b.view();
}

/**
 * Numeric escapes other languages print: octal (`\147\150`, C, Python bytes, `printf`; `\0147` as
 * `echo -e` writes it) and CSS (`\67 \68 `: one to six hex digits, one blank after ends it). Octal
 * is read first (three octal digits are also valid CSS, and a token in octal is the likelier reading);
 * a CSS escape needs two digits or more and a printable code point (one digit is a control character,
 * and `\d` or `\e` in a regex or a path is no escape).
 */
const OCTAL_ESCAPE = /\\0?([0-3][0-7]{2})(?![0-7])/;
const OCTAL_ESCAPES = new RegExp(OCTAL_ESCAPE.source, 'g');
const CSS_ESCAPE = /\\([0-9a-fA-F]{2,6})[ \t]?/;
const CSS_ESCAPES = new RegExp(CSS_ESCAPE.source, 'g');

/** `text` with each match of `escapes` replaced by the character `decode` gives (null: left as written). */
function escapesView(text: string, base: View | null, escapes: RegExp, decode: (digits: string) => string | null): View {
  const b = new ViewBuilder(base);
  let last = 0;
  escapes.lastIndex = 0;
  for (let m = escapes.exec(text); m !== null; m = escapes.exec(text)) {
    const decoded = decode(m[1]!);
    if (decoded === null) continue;
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    b.push(decoded, m.index, m.index + m[0].length);
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

const octalChar = (digits: string): string => String.fromCharCode(parseInt(digits, 8));
function cssChar(digits: string): string | null {
  const code = parseInt(digits, 16);
  return code >= 0x20 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) && code !== 0x7f ? String.fromCodePoint(code) : null;
}

/** A string literal's prefix right before its opening quote: Python's b r u f (and pairs), SQL's N, bash's `$`. */
const STRING_PREFIX = /(?<![A-Za-z0-9_$])(?:[bBrRuUfF]{1,2}|N|\$)(?=["'])/;
const STRING_PREFIXES = new RegExp(STRING_PREFIX.source, 'g');

/** The text without string literals' prefixes (the quotes stay). */
function unprefixedView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  let last = 0;
  STRING_PREFIXES.lastIndex = 0;
  for (let m = STRING_PREFIXES.exec(text); m !== null; m = STRING_PREFIXES.exec(text)) {
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/**
 * Quoted-printable decoded (`=78=6F=78=62` → `xoxb`, soft line breaks `=` + newline dropped): a mail body
 * or a MIME part pasted into a log. Only runs of 4 codes or more (a `=3D` alone is a sum or a URL's).
 */
function quotedPrintableView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  QP_RUN.lastIndex = 0;
  let last = 0;
  for (let m = QP_RUN.exec(text); m !== null; m = QP_RUN.exec(text)) {
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    for (const code of m[0].matchAll(/=([0-9A-Fa-f]{2})|=\r?\n/g)) {
      if (code[1] !== undefined) b.push(String.fromCharCode(parseInt(code[1], 16)), m.index + code.index!, m.index + code.index! + 3);
    }
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}
const QP_RUN = /(?:=(?:[0-9A-Fa-f]{2}|\r?\n)){4,}/g;
const QP_CODES = /(?:=[0-9A-Fa-f]{2}){4}/;

/** Percent-encoding decoded (`%3A` → `:`); a byte sequence that is not UTF-8 is read byte by byte. */
function percentView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  const run = /(?:%[0-9a-fA-F]{2})+/g;
  let last = 0;
  for (let m = run.exec(text); m !== null; m = run.exec(text)) {
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    let decoded: string;
    try {
      decoded = decodeURIComponent(m[0]);
    } catch {
      decoded = '';
    }
    if (decoded.length === m[0].length / 3) {
      for (let k = 0; k < decoded.length; k += 1) b.push(decoded[k]!, m.index + 3 * k, m.index + 3 * k + 3);
    } else if (decoded !== '') {
      b.push(decoded, m.index, m.index + m[0].length);
    } else {
      for (let k = 0; k < m[0].length; k += 3) b.push(String.fromCharCode(parseInt(m[0].slice(k + 1, k + 3), 16)), m.index + k, m.index + k + 3);
    }
    last = m.index + m[0].length;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/** Rounds of percent-decoding: an encoding applied more often than this is left as it is. */
const PERCENT_ROUNDS = 4;
const PERCENT_CODE = /%[0-9a-fA-F]{2}/;

/** A character reference: `&#103;`, `&#x67;` (the `;` may be missing), or a named one such as `&lowbar;`. */
const HTML_REFERENCE = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8};)/;
const HTML_REFERENCES = /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,8});)/g;
/**
 * HTML's named references for the ASCII characters a token or a credential context is made of (the
 * full table has 2,000 names; a letter or digit has no name, only punctuation does).
 */
const HTML_NAMES: Readonly<Record<string, string>> = {
  excl: '!', quot: '"', QUOT: '"', num: '#', dollar: '$', percnt: '%', amp: '&', AMP: '&', apos: "'", lpar: '(', rpar: ')',
  ast: '*', midast: '*', plus: '+', comma: ',', period: '.', sol: '/', colon: ':', semi: ';', lt: '<', LT: '<', equals: '=',
  gt: '>', GT: '>', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\', rsqb: ']', rbrack: ']', Hat: '^', lowbar: '_',
  UnderBar: '_', grave: '`', DiacriticalGrave: '`', lcub: '{', lbrace: '{', verbar: '|', vert: '|', VerticalLine: '|',
  rcub: '}', rbrace: '}', tilde: '~', nbsp: ' ', NonBreakingSpace: ' ', hyphen: '-', dash: '-', minus: '-', Tab: '\t', NewLine: '\n',
};

/** HTML character references decoded (`&#103;&#104;` → `gh`, `&lowbar;` → `_`); unknown names stay as written. */
function htmlView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  let last = 0;
  HTML_REFERENCES.lastIndex = 0;
  for (let m = HTML_REFERENCES.exec(text); m !== null; m = HTML_REFERENCES.exec(text)) {
    const [, decimal, hexadecimal, name] = m;
    const code = decimal !== undefined ? parseInt(decimal, 10) : hexadecimal !== undefined ? parseInt(hexadecimal, 16) : -1;
    const decoded = code >= 0 ? (code <= 0x10ffff ? String.fromCodePoint(code) : '') : Object.hasOwn(HTML_NAMES, name!) ? HTML_NAMES[name!]! : null;
    if (decoded === null || decoded === '') continue;
    // A numeric reference may end without `;`: take the `;` along when it is there.
    let end = m.index + m[0].length;
    if (code >= 0 && text[end] === ';') end += 1;
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    b.push(decoded, m.index, end);
    last = end;
    HTML_REFERENCES.lastIndex = end;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/**
 * Characters spread out by a separator (`g h p _ 1 2 …`, `g-h-p-…`, `g | h | p`): at least SPACED_MIN
 * single token characters, each followed by the same separator (1 to 3 of space, tab, `.` `,` `:` `;`
 * `|` `/` `\` `*` `~` `-`). Read by hand: a scan that fails skips the run it read, so the text is read
 * once (a pattern with a back-reference would retry inside every run).
 */
const SPACED_MIN = 12;
const SPACED_SEP_MAX = 3;
const isSpacedChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 43 || c === 61;
const isSpacedSep = (c: number): boolean =>
  c === 32 || c === 9 || c === 46 || c === 44 || c === 58 || c === 59 || c === 124 || c === 47 || c === 92 || c === 42 || c === 126 || c === 45;
/**
 * Cheap gate: SPACED_MIN single characters in a row, each followed by 1 to 3 separators (any): one pass
 * of character codes, no regex (a pattern tried at every position costs more than the rest of the views).
 */
function mayHoldSpacedRun(text: string): boolean {
  let lone = 0;
  let gap = 0;
  let run = 0;
  const length = text.length;
  for (let i = 0; i <= length; i += 1) {
    const c = i < length ? codeAt(text, i) : 32;
    if (isSpacedChar(c)) {
      run += 1;
      continue;
    }
    if (run === 1 && gap <= SPACED_SEP_MAX) lone += 1;
    else if (run > 0) lone = run === 1 ? 1 : 0;
    if (run > 0) gap = 0;
    if (lone >= SPACED_MIN) return true;
    run = 0;
    if (isSpacedSep(c)) gap += 1;
    else {
      lone = 0;
      gap = SPACED_SEP_MAX + 1;
    }
  }
  return false;
}

/** Each spread-out run as `[start, end, separator length]`. */
function spacedRuns(text: string): [number, number, number][] {
  const runs: [number, number, number][] = [];
  const char = (i: number): boolean => i >= 0 && i < text.length && isSpacedChar(text.charCodeAt(i));
  for (let i = 0; i < text.length; ) {
    if (!char(i) || char(i - 1)) {
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < text.length && j - i - 1 < SPACED_SEP_MAX && isSpacedSep(text.charCodeAt(j))) j += 1;
    const sep = text.slice(i + 1, j);
    let last = i;
    let count = 1;
    // The next character belongs to the run when the same separator comes before it and a separator (or the end of the run) after it.
    while (sep !== '' && text.startsWith(sep, last + 1) && char(last + 1 + sep.length) && !char(last + 2 + sep.length)) {
      last += 1 + sep.length;
      count += 1;
    }
    if (count >= SPACED_MIN) runs.push([i, last + 1, sep.length]);
    i = last + 1;
  }
  return runs;
}

/** The text with the separators of every spread-out run dropped; null when there is none. */
function spacedView(text: string, base: View | null): View | null {
  if (!mayHoldSpacedRun(text)) return null;
  const runs = spacedRuns(text);
  if (runs.length === 0) return null;
  const b = new ViewBuilder(base);
  let last = 0;
  for (const [start, end, sep] of runs) {
    for (let i = last; i < start; i += 1) b.push(text[i]!, i, i + 1);
    for (let i = start; i < end; i += 1 + sep) b.push(text[i]!, i, Math.min(i + 1 + sep, end));
    last = end;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/**
 * Key material split over lines: a line break (and the indentation or quote-and-plus of a wrapped
 * string) between two token characters is dropped, so `AKIA…\n…` or a PEM body reads as one run.
 */
function joinedView(text: string, base: View | null): View {
  const b = new ViewBuilder(base);
  const gap = /([A-Za-z0-9+/=_-])((?:\\[nr]|[ \t]*["']?[ \t]*\+?[ \t]*["']?)?\r?\n[ \t>#*]*)(?=[A-Za-z0-9+/=_-])/g;
  let last = 0;
  for (let m = gap.exec(text); m !== null; m = gap.exec(text)) {
    const cut = m.index + m[1]!.length;
    for (let i = last; i < cut; i += 1) b.push(text[i]!, i, i + 1);
    last = cut + m[2]!.length;
  }
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/** A base64 run long enough to hide a secret (also base64url; a hex run is one too). */
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;
/**
 * Whether a run of the base64 alphabet may encode something: a digit, `+` or `=`, or both cases (base64 of
 * upper-case text, an AWS key id, often has no digit). Lower-case paths and names are not decoded.
 */
export function mayEncode(run: string): boolean {
  return /[\d+=]/.test(run) || (/[a-z]/.test(run) && /[A-Z]/.test(run));
}

/** At most this many runs are decoded per text (hostile input may hold thousands). */
const MAX_BASE64_RUNS = 16;

/** Each encoded run (base64, base64url or hex) that decodes to text as its own view: every decoded character maps to the whole run. */
function encodedRunViews(text: string, base: View | null): View[] {
  const views: View[] = [];
  BASE64_RUN.lastIndex = 0;
  let tried = 0;
  for (let m = BASE64_RUN.exec(text); m !== null && tried < MAX_BASE64_RUNS; m = BASE64_RUN.exec(text)) {
    // Paths and names are runs of this alphabet too: only a run with a digit or `+`/`=` is decoded.
    if (!mayEncode(m[0])) continue;
    for (const [start, end] of encodedParts(m[0])) {
      if (tried >= MAX_BASE64_RUNS) break;
      tried += 1;
      const run = m[0].slice(start, end);
      // A run of hex digits is read as hex (`xxd -p`, a hex dump of a token file): a digest decodes to
      // random bytes, not text, so it gives no view.
      const decoded = HEX_RUN.test(run) ? decodeHexText(run) : decodeBase64Text(run);
      if (decoded === null) continue;
      const b = new ViewBuilder(base);
      b.push(decoded, m.index + start, m.index + end);
      views.push(b.view());
    }
  }
  return views;
}

/**
 * Where an encoded value may stand in a run, as `[start, end)`: the whole run first; then, as the alphabet
 * also makes paths and names (`/srv/cache/<hex>`, `cache-<hex>`, `~/.x/<base64>`), each long hex stretch in it
 * (both alignments of an odd one) and each segment between `/`, alone and with the rest. Each that decodes to text is a view.
 */
function encodedParts(run: string): [number, number][] {
  const parts: [number, number][] = [[0, run.length]];
  if (HEX_RUN.test(run)) return parts;
  for (const m of run.matchAll(HEX_STRETCH)) {
    const [start, end] = [m.index!, m.index! + m[0].length];
    if (m[0].length % 2 === 0) parts.push([start, end]);
    else parts.push([start + 1, end], [start, end - 1]);
  }
  // A path's segments (16+), each alone and with the rest of the run: base64 may hold `/` itself.
  let start = 0;
  for (let slash = run.indexOf('/'); start < run.length; slash = run.indexOf('/', start)) {
    const end = slash === -1 ? run.length : slash;
    if (end - start >= 16 && !(start === 0 && end === run.length)) {
      parts.push([start, end]);
      if (end < run.length && run.length - start >= 24) parts.push([start, run.length]);
    }
    if (slash === -1) break;
    start = slash + 1;
  }
  return parts;
}

/** A stretch of hex digits long enough to encode a token (12 bytes). */
const HEX_STRETCH = /[0-9a-fA-F]{24,}/g;

const HEX_RUN = /^(?:[0-9a-f]{2})+$|^(?:[0-9A-F]{2})+$/;

/**
 * A token cut into pieces and each piece base64-encoded with its padding (`Z2hwX0FiQ2RFZg== R2hJaktsTW5PcA== …`):
 * each run is too short for a decoded view of its own. Two or more padded runs in a row, with at most 3
 * characters between them, decoded and joined without what stood between them.
 */
const PADDED_RUNS = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{4,}={1,2}(?:[^A-Za-z0-9+/=_\n-]{1,3}[A-Za-z0-9+/_-]{4,}={1,2})+/g;
const PADDED_RUN = /[A-Za-z0-9+/_-]{4,}={1,2}/g;

function paddedPiecesView(text: string, base: View | null): View | null {
  PADDED_RUNS.lastIndex = 0;
  let b: ViewBuilder | null = null;
  let last = 0;
  for (let m = PADDED_RUNS.exec(text); m !== null; m = PADDED_RUNS.exec(text)) {
    const decoded: [string, number, number][] = [];
    for (const piece of m[0].matchAll(PADDED_RUN)) {
      const bytes = Buffer.from(piece[0].replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (![...bytes].every((byte) => byte >= 32 && byte < 127)) break;
      decoded.push([bytes.toString('latin1'), m.index + piece.index!, m.index + piece.index! + piece[0].length]);
    }
    if (decoded.length < 2) continue;
    b ??= new ViewBuilder(base);
    for (let i = last; i < m.index; i += 1) b.push(text[i]!, i, i + 1);
    for (const [piece, start, end] of decoded) b.push(piece, start, end);
    last = decoded[decoded.length - 1]![2];
  }
  if (b === null) return null;
  for (let i = last; i < text.length; i += 1) b.push(text[i]!, i, i + 1);
  return b.view();
}

/** The text an even run of hex digits encodes, or null when it is not printable text. */
export function decodeHexText(run: string): string | null {
  return printableText(Buffer.from(run, 'hex'));
}

/** The bytes as UTF-8 text when at least 12 of them and nine in ten printable ASCII, else null. */
function printableText(bytes: Buffer): string | null {
  if (bytes.length < 12) return null;
  let printable = 0;
  for (const byte of bytes) if ((byte >= 32 && byte < 127) || byte === 9 || byte === 10 || byte === 13) printable += 1;
  return printable / bytes.length >= 0.9 ? bytes.toString('utf8') : null;
}

/** The UTF-8 text a base64 run encodes, or null when it is not mostly printable text. */
export function decodeBase64Text(run: string): string | null {
  return printableText(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/**
 * Key material wrapped over lines: runs of token characters on both sides of a line break (an escaped
 * `\n`, a quote-and-plus of a wrapped string, indentation may sit between), one of them random-looking
 * (letters and digits). Ordinary lines ending and starting with words are not. Read by hand around each
 * line break: a pattern tried at every position of every run would cost far more on long output.
 */
const TOKEN_CHAR = /[A-Za-z0-9+/=_-]/;
const GAP_CHAR = /[ \t"'+>#*\r\\]/;
const MAX_RUN = 64;
/**
 * Both classes are ASCII: tables by character code, read around every line break of every text redacted
 * (a regex test per character cost more than the rest of the check).
 */
const TOKEN_CODES = new Uint8Array(128).map((_, c) => (TOKEN_CHAR.test(String.fromCharCode(c)) ? 1 : 0));
const GAP_CODES = new Uint8Array(128).map((_, c) => (GAP_CHAR.test(String.fromCharCode(c)) ? 1 : 0));
const isTokenCode = (c: number): boolean => c < 128 && TOKEN_CODES[c] === 1;
const isGapCode = (c: number): boolean => c < 128 && GAP_CODES[c] === 1;

/** The length of the token run ending before `end` (read backwards), and whether it holds a letter and a digit. */
function runBefore(text: string, end: number): { length: number; mixed: boolean } {
  let i = end;
  let digit = false;
  let letter = false;
  while (i > 0 && end - i < MAX_RUN && isTokenCode(text.charCodeAt(i - 1))) {
    i -= 1;
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letter = true;
  }
  return { length: end - i, mixed: digit && letter };
}

function runAfter(text: string, start: number): { length: number; mixed: boolean } {
  let i = start;
  let digit = false;
  let letter = false;
  while (i < text.length && i - start < MAX_RUN && isTokenCode(text.charCodeAt(i))) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letter = true;
    i += 1;
  }
  return { length: i - start, mixed: digit && letter };
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Whether a text holds key material wrapped over lines (see above). */
export function wrapped(text: string): boolean {
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    let before = nl;
    while (before > 0 && nl - before < 8 && isGapCode(text.charCodeAt(before - 1))) before -= 1;
    // An escaped `\n` before the real line break (a JSON string that was wrapped).
    if (text[before - 1] === 'n' && text[before - 2] === '\\') before -= 2;
    if (before < 8 || !isTokenCode(text.charCodeAt(before - 1))) continue;
    let after = nl + 1;
    while (after < text.length && after - nl < 8 && isGapCode(text.charCodeAt(after))) after += 1;
    if (after >= text.length || !isTokenCode(text.charCodeAt(after))) continue;
    const left = runBefore(text, before);
    if (left.length < 8) continue;
    const right = runAfter(text, after);
    if (right.length >= 8 && (left.mixed || right.mixed)) return true;
  }
  return false;
}

/**
 * The views detectors read, for a stripped text: the text as a reader reads it (NFKC, skeleton; JSON
 * and percent escapes decoded) when that differs from the text, the same with the lines of a wrapped
 * token joined, and each decodable base64 run. Each is built only when the text holds what it
 * decodes (most log lines need none). The text itself is not among them: callers scan it directly.
 */
function holdsQuote(text: string): boolean {
  return text.includes('"') || text.includes("'");
}

export function decodedViews(text: string, base64 = true): View[] {
  const views: View[] = [];
  let read: View | null = NON_ASCII.test(text) ? readerView(text) : null;
  if (text.includes('\\')) {
    read = unescapeView(read?.text ?? text, read);
    // Octal and CSS escapes, after JSON's (a JSON string holds them with their backslash doubled).
    if (OCTAL_ESCAPE.test(read.text)) read = escapesView(read.text, read, OCTAL_ESCAPES, octalChar);
    if (CSS_ESCAPE.test(read.text)) read = escapesView(read.text, read, CSS_ESCAPES, cssChar);
  }
  // String literals' prefixes dropped (`b'…'`, `rb'…'`, `u'…'`, `$'…'`): a credential context inside a
  // bytes repr reads as it does in plain quotes (`{b'X-Api-Key': b'…'}`).
  // Each pattern below only on a text holding the character every match of it holds (a quote, `%`, `&`):
  // the hook decodes a few short texts, and V8 compiles a regex on its first use.
  if (holdsQuote(read?.text ?? text) && STRING_PREFIX.test(read?.text ?? text)) read = unprefixedView(read?.text ?? text, read);
  // Percent-encoding decoded to a fixed point (`%2567` → `%67` → `g`), at most PERCENT_ROUNDS times.
  for (let round = 0; round < PERCENT_ROUNDS && (read?.text ?? text).includes('%') && PERCENT_CODE.test(read?.text ?? text); round += 1) read = percentView(read?.text ?? text, read);
  if ((read?.text ?? text).includes('&') && HTML_REFERENCE.test(read?.text ?? text)) read = htmlView(read?.text ?? text, read);
  if ((read?.text ?? text).includes('=') && QP_CODES.test(read?.text ?? text)) read = quotedPrintableView(read?.text ?? text, read);
  if (read !== null && read.text !== text) views.push(read);
  else read = null;
  const spaced = spacedView(read?.text ?? text, read);
  if (spaced !== null) {
    views.push(spaced);
    views.push(...encodedRunViews(spaced.text, spaced));
  }
  let last = read;
  if (wrapped(read?.text ?? text)) {
    const joined = joinedView(read?.text ?? text, read);
    views.push(joined);
    last = joined;
  }
  if (base64 || last !== null) views.push(...encodedRunViews(last?.text ?? text, last));
  if ((read?.text ?? text).includes('=')) {
    const pieces = paddedPiecesView(read?.text ?? text, read);
    if (pieces !== null) views.push(pieces);
  }
  return views;
}

/** The text as detectors read it (no map): stripped, NFKC, confusable skeleton. */
export function normalise(text: string): string {
  const stripped = stripInvisible(text);
  return /[^\x00-\x7f]/.test(stripped) ? (readerView(stripped)?.text ?? stripped) : stripped;
}
