import { englishPairs, nonEnglishPairs } from './english-pairs.js';
import { redact } from './redact.js';
import { CASE_PIECES, readsAsRandomName } from './identifier.js';
import { pieceKind } from './random-pieces.js';
import { redactAnchoredPieces } from './redact-findings.js';

/**
 * A secret split across the events of one session: `… part one ghp_AbC1…` then `… part two xYz9…`.
 * The first half ends its text, and the detectors see it (a vendor prefix, a random run); the second
 * half alone is a short run with nothing to name it. So the half that ends an event marks its session,
 * and the session's next failures (CONTINUED_FAILURES, up to the one that holds the rest) are read as the
 * rest of a token: every run of 8 or more token characters in them that reads as no word (below) is
 * redacted, however short. The state (which sessions end with a secret) is the ingest fold's; these are
 * its pure parts.
 */

/** A text that ends with a redaction (trailing punctuation aside). */
const ENDS_REDACTED = /\[REDACTED:[a-z0-9_]+\][\s.,;:!?)"'\]}>\u2026]*$/;
const TOKEN_CHAR = /[A-Za-z0-9+/=_-]/;
/** What may follow a token at the end of a text: blanks, closing punctuation, `!`, `…`, a JSON body's `"}`. */
const TRAILING = /[\s.,;:!?)"'\]}>\u2026]/;

/** The run of token characters the text ends with (trailing punctuation aside), read backwards: linear. */
function lastRun(text: string): string {
  let end = text.length;
  while (end > 0 && isTrailing(text.charCodeAt(end - 1))) end -= 1;
  let start = end;
  while (start > 0 && end - start < 400 && isTokenChar(text.charCodeAt(start - 1))) start -= 1;
  return text.slice(start, end);
}

/**
 * TRAILING and TOKEN_CHAR by character code: a table for ASCII, the pattern itself for the rest (`\s`
 * holds Unicode spaces). This runs on every failure; a regex test per character cost more than the rest.
 */
const TRAILING_ASCII = new Uint8Array(128).map((_, c) => (TRAILING.test(String.fromCharCode(c)) ? 1 : 0));
const TOKEN_ASCII = new Uint8Array(128).map((_, c) => (TOKEN_CHAR.test(String.fromCharCode(c)) ? 1 : 0));
const isTrailing = (c: number): boolean => (c < 128 ? TRAILING_ASCII[c] === 1 : TRAILING.test(String.fromCharCode(c)));
/** TOKEN_CHAR is ASCII only. */
const isTokenChar = (c: number): boolean => c < 128 && TOKEN_ASCII[c] === 1;

/**
 * Whether `text` ends with a secret (a marker already, or its last line, redacted, ends with one). Cheap
 * for most texts: the redactor runs only when the text ends with a run of 8 or more that reads as a token.
 */
export function endsWithSecret(text: string): boolean {
  // The marker's own text first: a plain substring search, where the pattern would try every `[`.
  const tail = text.length > 600 ? text.slice(-600) : text;
  if (tail.includes('[REDACTED:') && ENDS_REDACTED.test(tail)) return true;
  const run = lastRun(text);
  if (run.length < 8 || !restOfToken(run)) return false;
  // The end of the last line is enough to see whether it ends with a secret (a megabyte line is not redacted
  // twice); the last line with something on it (a text may end with a line break).
  let end = text.length;
  while (end > 0 && isTrailing(text.charCodeAt(end - 1))) end -= 1;
  const lastLine = text.slice(Math.max(text.lastIndexOf('\n', end - 1) + 1, end - 2000), end);
  return ENDS_REDACTED.test(redact(lastLine));
}

/** Token runs of 8 or more: each is a candidate rest of a secret. Look-behind: tried once per run. */
const RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{8,}/g;

/**
 * The rest of a token, however short its cut left it: letters and digits, or both cases (a word of one
 * case is the sentence around it). Only read in the event after one that ended with a secret.
 */
function restOfToken(run: string): boolean {
  return /[A-Za-z]/.test(run) && (/\d/.test(run) || (/[a-z]/.test(run) && /[A-Z]/.test(run)));
}

/**
 * The rest of a token that happens to be letters of one case (`OKNFVDVDQY`): it does not read as English,
 * two letters in a row or more occur in no common word. About one in 3,000 cuts of a base62 token leaves
 * such a rest; random letters read so 82 % of the time at 8, 95 % over 8 to 19. Of the 3,032 one-case
 * words of ../shared/data, 36 do (`subcommands`, `dhcpoffer`, `irqbalance`), and it is read only in the
 * event after one that ended with a secret; `workflow` (one pair, `kf`) does not.
 */
function oneCaseRest(run: string): boolean {
  return /^(?:[a-z]{8,}|[A-Z]{8,})$/.test(run) && nonEnglishPairs(run.toLowerCase()) >= 2;
}

/**
 * Failures of a session read as the rest of a token after one ended with a secret: the next one, and
 * after it, up to the one that holds the rest, two more, read more strictly (`auth failed ghp_…`, then
 * `file not found` from another tool, then the rest).
 */
export const CONTINUED_FAILURES = 3;

/**
 * `text` with every run that reads as the rest of a token redacted: the failures that follow one ending
 * with a secret. In the next failure, every run of letters and digits or of both cases (restOfToken) and
 * every run of one case that reads as no English (oneCaseRest). In the later ones (`later`), of the first
 * kind only those that are no name of words (nameOfWords: `TypeError`, `XMLHttpRequest`, `sha256sum`, `x86_64`,
 * `100ms` stay), so a session's next three errors stay readable.
 */
export function redactContinuation(text: string, later = false): string {
  return text.replace(RUN, (run) => (run !== 'REDACTED' && (restOfToken(run) ? !later || !nameOfWords(run) : oneCaseRest(run)) ? '[REDACTED:secret]' : run));
}

/**
 * Whether a run read as the rest of a token is worth remembering as its session's secret (a copy elsewhere
 * in the night goes too): one of letters and digits or of both cases that is no name of words. A word of
 * one case or a name read so in the next failure (`subcommands`, `TypeError`) is redacted there only.
 */
export function restWorthKeeping(run: string): boolean {
  return restOfToken(run) && !nameOfWords(run);
}

/**
 * A run that is a name of words: split at `_ - + / =`, digits and case changes, every piece is a word of
 * three letters or more with a vowel and letter pairs English words have, a two-letter word, or one
 * acronym of one to five capitals; one number a part, with a unit or a letter next to one
 * (`x86`, `v2`) once, or a number with its unit (`100ms`, `3rd`); a capitalised word or a date whole. Hex with digits is a digest or a token's rest, never a name. The rest
 * of a random token rarely reads so: pieces of one or two letters, pairs no word has.
 */
function nameOfWords(run: string): boolean {
  if (/\d/.test(run) && (/^[0-9a-f]+$/.test(run) || /^[0-9A-F]+$/.test(run))) return false;
  // A capitalised word (`Retrying`, `Algorithm`: pairs the word list lacks) or a date (`2025-08-06T17`).
  if (/^[A-Z][a-z]+$/.test(run) || /^\d{4}-\d\d-\d\d(?:T\d\d)?$/.test(run)) return true;
  let acronyms = 0;
  let shortByNumber = 0;
  for (const part of run.split(/[-_+/=]+/)) {
    // One number a part (`python3`, `sha256sum`, `OAuth2Client`), at its start only with a unit (`100ms`).
    const numbers = part.match(/\d+/g)?.length ?? 0;
    if (numbers > 1 || (/^\d/.test(part) && !UNIT_NUMBER.test(part))) return false;
    for (const stretch of part.split(/(\d+)/)) {
      if (stretch === '' || /^\d/.test(stretch)) continue;
      const pieces = stretch.match(CASE_PIECES) ?? [];
      if (pieces.every((piece) => /^[A-Z]{1,5}$/.test(piece) || isWord(piece))) {
        acronyms += pieces.filter((piece) => /^[A-Z]{1,5}$/.test(piece)).length;
        if (acronyms > 1) return false;
        continue;
      }
      // Letters next to a number: a version's or an architecture's letter (`v1`, `x86`), once a run.
      if (stretch.length > 3 || part === stretch || !/^[a-z]+$|^[A-Z]$/.test(stretch)) return false;
      shortByNumber += 1;
      if (shortByNumber > 1) return false;
    }
  }
  return true;
}
const UNIT_NUMBER = /^\d+(?:ms|ns|us|s|m|h|d|x|k|b|kb|mb|gb|px|st|nd|rd|th|bit)?$/;
function isWord(piece: string): boolean {
  const lower = piece.toLowerCase();
  return piece.length === 2 ? SHORT_WORDS.has(lower) : piece.length >= 3 && /[aeiouy]/.test(lower) && englishPairs(lower);
}
const SHORT_WORDS = new Set(['by', 'id', 'of', 'to', 'in', 'on', 'at', 'is', 'it', 'no', 'up', 'or', 'as', 'be', 'do', 'if', 'an', 'ok']);

/**
 * A text of an event one of whose identifiers (its category, tool name, session id) was refused for holding
 * a piece of a token: read as the rest of that token, its windows of pieces read as after an anchor
 * (`auth_<11 hex>` in the category, `401 9f3c2 7ab41 …` in the message), and every piece that reads as no
 * word however short (below).
 */
export function redactAfterRefusedId(text: string): string {
  return redactAnchoredPieces(text).replace(MIXED_PIECE, (piece) => (restPiece(piece) ? '[REDACTED:secret]' : piece));
}

/**
 * A piece of 4 characters or more, of letters with digits or of both cases: in such an event, a group of
 * the token's rest however short (`Oi2D`, `VclH`). A version, a unit or a code (`v12`, `100ms`, `sha256`)
 * and a name of words (`TypeError`, `userID`) stay.
 */
const MIXED_PIECE = /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*(?:\d[A-Za-z]|[A-Za-z]\d|[a-z][A-Z]|[A-Z][a-z]*[A-Z]))[A-Za-z0-9_-]{4,64}(?![A-Za-z0-9_-])/g;
function restPiece(piece: string): boolean {
  if (piece === 'REDACTED') return false;
  return /\d/.test(piece) ? pieceKind(piece) !== 'word' : readsAsRandomName(piece);
}

/** Runs of the other field tried as the rest of a cut token (its first few random-looking ones). */
const MAX_JOINED = 4;

/**
 * A secret split between the two texts of one event: the call (`input_summary`, written first) and its
 * error (`error_message`). Each half alone may be too short to read as anything; the event is one text
 * to its reader. So: when one field ends with a secret, the other's random-looking runs are its rest
 * (as for two failures of a session); otherwise, when one field ends with a random-looking run, each
 * random-looking run of the other is tried as its continuation, and a pair that reads as a secret once
 * joined (`--key AbCd…` + `EfGh…`) is redacted in both fields. Returns the two texts, changed or not.
 */
export function splitAcrossFields(first: string, second: string): [string, string] {
  if (endsWithSecret(first)) return [first, redactContinuation(second)];
  if (endsWithSecret(second)) return [redactContinuation(first), second];
  return joinedRest(first, second) ?? swap(joinedRest(second, first)) ?? [first, second];
}

const swap = (pair: [string, string] | null): [string, string] | null => (pair === null ? null : [pair[1], pair[0]]);

/** `head` ending with a random-looking run that, joined to a run of `tail`, ends with a secret: both redacted. */
function joinedRest(head: string, tail: string): [string, string] | null {
  const run = lastRun(head);
  if (run.length < 8 || !restOfToken(run)) return null;
  // A `key=` the run starts with stays (`refused key=AbCd…`): only its value is the secret's first half.
  const start = head.lastIndexOf(run) + (/^[A-Za-z_-]+=(?=[^=])/.exec(run)?.[0].length ?? 0);
  // A regex of its own: the redactor that endsWithSecret runs may use the shared one.
  const runs = new RegExp(RUN.source, 'g');
  let tried = 0;
  for (let m = runs.exec(tail); m !== null && tried < MAX_JOINED; m = runs.exec(tail)) {
    if (!restOfToken(m[0])) continue;
    tried += 1;
    const end = head.lastIndexOf(run) + run.length;
    if (!endsWithSecret(head.slice(0, end) + m[0])) continue;
    return [`${head.slice(0, start)}[REDACTED:secret]${head.slice(end)}`, `${tail.slice(0, m.index)}[REDACTED:secret]${tail.slice(m.index + m[0].length)}`];
  }
  return null;
}
