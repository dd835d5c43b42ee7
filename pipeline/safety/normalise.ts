import { createRequire } from 'node:module';

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
 * the soft hyphen, bidi embeddings, overrides and isolates, the BOM and interlinear annotation marks.
 */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/g;
const NEEDS_STRIP = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/;

/** The text without ANSI codes and invisible characters: what is stored and shown. */
export function stripInvisible(text: string): string {
  if (!NEEDS_STRIP.test(text)) return text;
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

/** A base64 run long enough to hide a secret (also base64url). */
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;
/** At most this many runs are decoded per text (hostile input may hold thousands). */
const MAX_BASE64_RUNS = 16;

/** Each decodable base64 run as its own view: every decoded character maps to the whole run. */
function base64Views(text: string, base: View | null): View[] {
  const views: View[] = [];
  BASE64_RUN.lastIndex = 0;
  let tried = 0;
  for (let m = BASE64_RUN.exec(text); m !== null && tried < MAX_BASE64_RUNS; m = BASE64_RUN.exec(text)) {
    // Paths and names are runs of this alphabet too: only a run with a digit or `+`/`=` is decoded.
    if (!/[\d+=]/.test(m[0])) continue;
    tried += 1;
    const decoded = decodeBase64Text(m[0]);
    if (decoded === null) continue;
    const b = new ViewBuilder(base);
    b.push(decoded, m.index, m.index + m[0].length);
    views.push(b.view());
  }
  return views;
}

/** The UTF-8 text a base64 run encodes, or null when it is not mostly printable text. */
export function decodeBase64Text(run: string): string | null {
  const bytes = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length < 12) return null;
  let printable = 0;
  for (const byte of bytes) if ((byte >= 32 && byte < 127) || byte === 9 || byte === 10 || byte === 13) printable += 1;
  return printable / bytes.length >= 0.9 ? bytes.toString('utf8') : null;
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

/** The length of the token run ending before `end` (read backwards), and whether it holds a letter and a digit. */
function runBefore(text: string, end: number): { length: number; mixed: boolean } {
  let i = end;
  let digit = false;
  let letter = false;
  while (i > 0 && end - i < MAX_RUN && TOKEN_CHAR.test(text[i - 1]!)) {
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
  while (i < text.length && i - start < MAX_RUN && TOKEN_CHAR.test(text[i]!)) {
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
    while (before > 0 && nl - before < 8 && GAP_CHAR.test(text[before - 1]!)) before -= 1;
    // An escaped `\n` before the real line break (a JSON string that was wrapped).
    if (text[before - 1] === 'n' && text[before - 2] === '\\') before -= 2;
    if (before < 8 || !TOKEN_CHAR.test(text[before - 1]!)) continue;
    let after = nl + 1;
    while (after < text.length && after - nl < 8 && GAP_CHAR.test(text[after]!)) after += 1;
    if (after >= text.length || !TOKEN_CHAR.test(text[after]!)) continue;
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
export function decodedViews(text: string, base64 = true): View[] {
  const views: View[] = [];
  let read: View | null = NON_ASCII.test(text) ? readerView(text) : null;
  if (text.includes('\\')) read = unescapeView(read?.text ?? text, read);
  if ((read?.text ?? text).includes('%') && /%[0-9a-fA-F]{2}/.test(read?.text ?? text)) read = percentView(read?.text ?? text, read);
  if (read !== null && read.text !== text) views.push(read);
  else read = null;
  let last = read;
  if (wrapped(read?.text ?? text)) {
    const joined = joinedView(read?.text ?? text, read);
    views.push(joined);
    last = joined;
  }
  if (base64 || last !== null) views.push(...base64Views(last?.text ?? text, last));
  return views;
}

/** The text as detectors read it (no map): stripped, NFKC, confusable skeleton. */
export function normalise(text: string): string {
  const stripped = stripInvisible(text);
  return /[^\x00-\x7f]/.test(stripped) ? (readerView(stripped)?.text ?? stripped) : stripped;
}
