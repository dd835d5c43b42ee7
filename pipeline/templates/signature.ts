/**
 * The informative line of an error message, so a rule quotes "ModuleNotFoundError: No module named
 * 'x'" rather than a banner such as "=== test session starts ===" or "Traceback (most recent call last):".
 */
import { redact } from '../safety/redact.js';

export const NOISE = [
  /^exit code \d+$/i,
  /^traceback \(most recent call last\):?$/i,
  /^[=\-_*#~.+ ]{3,}.*[=\-_*#~.+ ]{3,}$/, // banners: ==== test session starts ====
  /^[=\-_*#~.+ ]+$/,
  /^\s*at\s+\S+/, // stack frames
  /^\s*file "[^"]+", line \d+/i,
  /^welcome to\b/i, // tool banners
  /^platform \S+ -- python/i, // pytest's header
  /^(?:rootdir|cachedir|plugins|configfile|collected|collecting)\b/i,
];
const EXCEPTION_LINE = /^[\w.]*(?:Error|Exception|Failure|Fault|Interrupt|Exit)\b\s*:/;
const ERROR_WORDS = /\b(?:error|fatal|fail|failed|failure|not found|denied|cannot|can't|unable|no such|invalid|does not exist|exceeds?|refused|timed? ?out|missing|unknown|rejected)\b/i;
const HOME_PATH = /(?:\/(?:Users|home)\/|[A-Za-z]:\\Users\\)[^/\\\s'"`]+/g;

/** The signature of a message as a reader sees it: redacted, home paths masked, at most 160 characters. */
export function signatureOf(message: string | undefined): string | null {
  const key = signatureKey(message);
  return key === null ? null : signatureText(key);
}

/**
 * The hot path's half of a signature, computed for every failure: the informative line, redacted, with
 * ids and long hex masked and whitespace collapsed. Such keys stay inside the cluster builder;
 * only `signatureText` of a key is ever shown or stored. The cluster builder computes it once per
 * distinct message, and the redactor memoises lines, so a line shared by many messages is redacted once.
 */
export function signatureKey(message: string | undefined): string | null {
  if (!message) return null;
  const text = message.includes('tool_use_error>') ? message.replace(/<\/?tool_use_error>/g, '') : message;
  // Split on \n alone: the \r of a CRLF is trimmed with the rest of the line's edges.
  const lines = text.includes('\n') ? text.split('\n') : [text];
  // The last exception line, else the first line with an error word, else the first line; noise never
  // counts. Noise is checked only on a line that would be chosen (it is the costly test).
  const chosen = pick(lines, EXCEPTION_LINE, true) ?? pick(lines, ERROR_WORDS, false) ?? pick(lines, null, false);
  // Redacted before ids are masked: masking first cuts a token's hex tail off, and the rest no longer
  // reads as a secret (`SK4ed7…<hex>`). Memoised by the redactor per line.
  return chosen === undefined ? null : maskIds(redact(chosen)).slice(0, KEY_MAX);
}

/** The first (or last) trimmed, non-empty, non-noise line matching `pattern` (any line when null). */
function pick(lines: string[], pattern: RegExp | null, last: boolean): string | undefined {
  for (let k = 0; k < lines.length; k++) {
    const line = lines[last ? lines.length - 1 - k : k]!.trim();
    if (line.length === 0 || (pattern !== null && !pattern.test(line))) continue;
    if (!isNoise(line)) return line;
  }
  return undefined;
}

/**
 * Whether a trimmed line is noise. Every NOISE pattern starts with one of a few characters (a trimmed
 * line has no leading space for `\s*`, and `i` without `u` folds no other character to these ASCII
 * letters), so most lines are cleared by their first character without running the nine patterns.
 */
export function isNoise(line: string): boolean {
  const first = line.charCodeAt(0);
  return first < 128 && NOISE_FIRST[first] === 1 && NOISE.some((noise) => noise.test(line));
}

const NOISE_FIRST = new Uint8Array(128).map((_, c) => ('eEtTafFwWpPrRcC=-_*#~.+'.includes(String.fromCharCode(c)) ? 1 : 0));

/**
 * A key as text fit to show: redacted, then cut. A key that was cut loses its last KEY_MARGIN characters
 * before it is redacted, so a secret the cut split in two is dropped whole rather than shown in part.
 */
export function signatureText(key: string): string {
  const whole = key.length < KEY_MAX ? key : key.slice(0, KEY_MAX - KEY_MARGIN);
  return maskHomePaths(redact(whole)).slice(0, 160);
}

const KEY_MAX = 1024;
const KEY_MARGIN = 256;

/** Home directories name a person: `/home/alice/app` becomes `~/app` everywhere log text is kept. */
export function maskHomePaths(text: string): string {
  return text.replace(HOME_PATH, '~');
}

/**
 * The longest common word prefix of several signatures (at least three words), for clusters whose
 * messages differ only in a path or a number: "ENOENT: no such file or directory, open …".
 */
export function commonPrefix(signatures: string[]): string | null {
  if (signatures.length === 0) return null;
  const split = signatures.map((s) => s.split(' '));
  const first = split[0]!;
  let length = 0;
  while (length < first.length && split.every((words) => words[length] === first[length])) length += 1;
  return length >= 3 ? `${first.slice(0, length).join(' ')} …` : null;
}

/**
 * Ids and long hex become <id> and <hex>, whitespace one space. Each replace runs only when a cheap test
 * says it can change something: most lines have neither, and a replace copies the line.
 */
function maskIds(line: string): string {
  let out = line;
  if (hasHexRun(out)) out = out.replace(UUID, '<id>').replace(LONG_HEX, '<hex>');
  if (mayHaveOddSpace(out)) out = out.replace(/\s+/g, ' ');
  return out;
}

/** Eight hex digits in a row (both a UUID and a long hex word have them); control characters count too. */
function hasHexRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) {
      if (++run >= 8) return true;
    } else {
      run = 0;
    }
  }
  return false;
}

/** Two spaces in a row, an ASCII whitespace other than a space, or any non-ASCII (Unicode spaces). */
function mayHaveOddSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 ? text.charCodeAt(i + 1) === 32 : c < 32 || c >= 127) return true;
  }
  return false;
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const LONG_HEX = /\b[0-9a-f]{12,}\b/gi;


