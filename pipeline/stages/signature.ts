/**
 * The informative line of an error message, so a rule quotes "ModuleNotFoundError: No module named
 * 'x'" rather than a banner such as "=== test session starts ===" or "Traceback (most recent call last):".
 */
import { redact } from '../synth/redact.js';

const NOISE = [
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

export function signatureOf(message: string | undefined): string | null {
  if (!message) return null;
  const lines = message
    .replace(/<\/?tool_use_error>/g, '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !NOISE.some((pattern) => pattern.test(line)));
  const chosen = lastMatch(lines, EXCEPTION_LINE) ?? lines.find((line) => ERROR_WORDS.test(line)) ?? lines[0];
  return chosen === undefined ? null : normalize(chosen);
}

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

function normalize(line: string): string {
  // Redact before cutting: a secret cut below its pattern's length would no longer be recognised.
  return maskHomePaths(redact(line))
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b[0-9a-f]{12,}\b/gi, '<hex>')
    .replace(/\s+/g, ' ')
    .slice(0, 160);
}

function lastMatch(lines: string[], pattern: RegExp): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) if (pattern.test(lines[i]!)) return lines[i];
  return undefined;
}
