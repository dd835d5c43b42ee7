import { identifierProblem, isPlainId, placeholder, type IdentifierField } from './identifier.js';
import { decodedViews, sourceRange, stripInvisible } from './normalise.js';
import { redact, shapesMayMatch } from './redact.js';
import { credentialContextMayMatch } from './secrets.js';
import { RedactionMemo } from './redaction-memo.js';

/**
 * A secret is often recognised by its context in one place only: `mysql -pHunterTwoBlue` in the call,
 * then `Access denied (using password HunterTwoBlue)` or a session named after it elsewhere. Each field
 * redacted alone keeps the bare copy. So a value the redactor removes from any field of an event, or
 * from any line of its message, is removed from every field of that event: by construction, whatever
 * shape or context found it.
 */

const MARKER = /\[REDACTED:[a-z0-9_]+\]/g;
const WHOLE_MARKER = /^\s*\[REDACTED:[a-z0-9_]+\]\s*$/;
/** Shorter values are not carried over: a 5-character password is rare, and `admin` everywhere is not. */
const MIN_VALUE = 6;
/**
 * Longer runs are not carried over either: no password is that long, a key block or a token that long is
 * found by its own shape wherever it stands, and a hostile run of 800,000 characters would not compile
 * as a pattern. At most MAX_VALUES values an event (the longest kept).
 */
const MAX_VALUE = 512;
export const MAX_VALUES = 64;
/** Words that introduce a secret and may be part of a redacted run (`Bearer <token>`): never a value. */
const KEY_WORDS = /^(?:bearer|basic|token|password|passwd|passphrase|secret|authorization|identified|apikey|api_key|api-key|private|mnemonic)$/i;
const TEXT_FIELDS = ['input_summary', 'error_message'] as const;
const ID_FIELDS: readonly IdentifierField[] = ['tool_name', 'error_category', 'session_id', 'input_hash'];
/** The fields eventSecretValues reads, in the order their values are listed. */
const SOURCE_FIELDS = [...TEXT_FIELDS, ...ID_FIELDS, 'agent'] as const;

/** The fields of a telemetry event this reads (safety sits below telemetry, so the shape is its own). */
export interface EventFields {
  tool_name: string;
  input_hash: string;
  error_category?: string;
  error_message?: string;
  session_id?: string;
  agent?: string;
  input_summary?: string;
}

/**
 * The runs of `text` that redaction replaced by a marker in `redacted` (`text` without invisible
 * characters, as redact reads it). Null when the two cannot be aligned (a bidi run replaced by `<*>`).
 */
export function redactedRuns(text: string, redacted: string): string[] | null {
  const parts = redacted.split(MARKER);
  if (parts.length === 1) return [];
  if (!text.startsWith(parts[0]!)) return null;
  const runs: string[] = [];
  let at = parts[0]!.length;
  for (let i = 1; i < parts.length; i += 1) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    // A marker stands for at least one character: the next literal part starts after it.
    const next = last ? (text.endsWith(part) ? text.length - part.length : -1) : part === '' ? at : text.indexOf(part, at + 1);
    if (next < at) return null;
    runs.push(text.slice(at, next));
    at = next + part.length;
  }
  return runs;
}

/**
 * What of a redacted run is the secret: the run, its last word (`key=<value>`, `Bearer <value>`) and
 * that word without a short flag glued to it (`-p<value>`).
 */
function valuesOf(run: string): string[] {
  const trimmed = run.trim().replace(/^["'`]+|["'`,;]+$/g, '');
  const words = trimmed.split(/[\s=:,;]+/).filter(Boolean);
  const lastWord = (words.at(-1) ?? '').replace(/^["'`]+|["'`]+$/g, '');
  const unflagged = lastWord.replace(/^-[A-Za-z]/, '').replace(/^["'`]+/, '');
  return [trimmed, lastWord, unflagged].filter((value) => value.length >= MIN_VALUE && value.length <= MAX_VALUE && !KEY_WORDS.test(value) && !value.includes('[REDACTED:'));
}

/**
 * Whether `text` may give a value away by its context (a credential word, a flag, a program that takes a
 * password, a URL's `user:pass@`, a credential file's line): the gates of those detectors and of the
 * regex shapes, tested without redacting. A successful call's command line is read for values only
 * then (most are `sed -n …`, `pytest -q`, paths): redacting every distinct one cost 25 to 45 µs each,
 * several times a line's whole ingest.
 */
export function mayGiveValueAway(text: string): boolean {
  return shapesMayMatch(text) || credentialContextMayMatch(text);
}

/** The secret values redaction finds in `text`. */
export function secretValues(text: string): readonly string[] {
  return VALUES.get(text, findValues);
}

/**
 * Per text: every failure's fields are read here (its message, call, session, tool, category), and
 * they repeat from failure to failure. Most texts hold no secret, and their answer is one shared empty
 * list. Bounded as the redactor's own memo is (log text is attacker-controlled).
 */
const VALUES = new RedactionMemo<readonly string[]>(4_096, 16_384, 1_000_000, (text, values) => values.reduce((n, value) => n + value.length, text.length));
const NONE: readonly string[] = Object.freeze([]);

function findValues(text: string): readonly string[] {
  const runs = redactedRuns(stripInvisible(text), redact(text));
  if (runs === null || runs.length === 0) return NONE;
  // A marker the text already held (a log written by a redacting tool, an import) reads as a run: no value.
  const values = runs.filter((run) => !WHOLE_MARKER.test(run)).flatMap(valuesOf);
  return values.length === 0 ? NONE : values;
}

/**
 * `text` without the copies that only a decoding shows (`\u0048unter2…`, `%48unter2…`, `&#72;unter2…`, look-alike
 * letters): each decoded view the detectors read is searched, and the run of the text a match came from is
 * replaced. Views are built only when the text holds what they decode.
 */
function withoutEncodedCopies(text: string, copies: RegExp): string {
  if (!ENCODED.test(text)) return text;
  const ranges: [number, number][] = [];
  for (const view of decodedViews(text, false)) {
    for (const match of view.text.matchAll(copies)) ranges.push(sourceRange(view, match.index, match.index + match[0].length));
  }
  if (ranges.length === 0) return text;
  // From the end, so earlier offsets stay valid; an overlapping range is merged into the one after it.
  ranges.sort((a, b) => b[0] - a[0]);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const [from, to] of ranges) {
    const end = Math.min(to, limit);
    if (end <= from) continue;
    out = `${out.slice(0, from)}[REDACTED:secret]${out.slice(end)}`;
    limit = from;
  }
  return out;
}

/** What a decoded view reads differently: escapes, percent codes, character references, non-ASCII letters. */
const ENCODED = /[\\%&]|[^\x00-\x7f]/;

/** The secret values redaction finds in any field of `event` (its call, message, identifiers, agent). */
export function eventSecretValues(event: EventFields): string[] {
  // Runs for every failure, and most fields of most events give nothing: the set is made for the first value.
  let found: Set<string> | null = null;
  for (const field of SOURCE_FIELDS) {
    const value = event[field];
    // A digest or UUID is the usual id, and random by design: a source only where it is not one.
    if (typeof value !== 'string' || value === '' || isPlainId(value)) continue;
    const values = secretValues(value);
    if (values.length === 0) continue;
    found ??= new Set<string>();
    for (const secret of values) found.add(secret);
  }
  return found === null ? [] : [...found];
}

/**
 * One pattern for the copies of `values` (null for none), longest first, so a value that holds another
 * is replaced whole. In any case: a copy upper-cased or capitalised by whatever echoed it (`Access
 * denied for HUNTER2BLUE`) is the same secret. The caller bounds how many (see MAX_VALUES).
 */
export function copiesOf(values: Iterable<string>): RegExp | null {
  const kept = [...new Set(values)].filter(isCarried).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  if (kept.length === 0) return null;
  return new RegExp(kept.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
}

/** Whether a value is carried to other fields and events at all (see MIN_VALUE, MAX_VALUE). */
export function isCarried(value: string): boolean {
  return value.length >= MIN_VALUE && value.length <= MAX_VALUE;
}

function holds(copies: RegExp, text: string): boolean {
  copies.lastIndex = 0;
  return copies.test(text);
}

/** `text` with every copy `copies` matches replaced by a marker: literal, or seen only once decoded. */
export function withoutCopies(text: string, copies: RegExp): string {
  const source = holds(copies, text) ? text : stripInvisible(text);
  const literal = holds(copies, source) ? source.replace(copies, '[REDACTED:secret]') : source;
  return withoutEncodedCopies(literal, copies);
}

/**
 * The event with every value redacted in one of its fields removed from all of them, and with the
 * values in `known` (what its session gave away in other events: see ingest/session-secrets.ts):
 * replaced by a marker in the call and the message, and an identifier holding one replaced by its
 * placeholder. `found` is what this event's own fields gave.
 */
export function redactAcrossFields<E extends EventFields>(event: E, known: readonly string[] = NONE, knownCopies: RegExp | null = null): { event: E; found: string[] } {
  const found = eventSecretValues(event);
  // The event's own values first (the longest MAX_VALUES), then its session's (bounded there; `knownCopies`
  // is their pattern when the caller has compiled it: most events give nothing of their own).
  const own = found.length > MAX_VALUES ? [...found].sort((a, b) => b.length - a.length).slice(0, MAX_VALUES) : found;
  const copies = own.length === 0 ? (knownCopies ?? copiesOf(known)) : copiesOf(known.length === 0 ? own : [...own, ...known]);
  if (copies === null) return { event, found };
  let out: E = event;
  for (const field of TEXT_FIELDS) {
    const text = event[field];
    if (typeof text !== 'string') continue;
    const kept = withoutCopies(text, copies);
    if (kept !== text) out = { ...out, [field]: kept };
  }
  for (const field of ID_FIELDS) {
    const id = event[field];
    // One the identifier grammar refuses anyway is left to it: it replaces and counts it (the report says how many).
    if (typeof id === 'string' && holds(copies, stripInvisible(id)) && identifierProblem(field, id) === null) out = { ...out, [field]: placeholder(field, id) };
  }
  return { event: out, found };
}

/** The event with every value redacted in one of its fields removed from all of them. */
export function crossFieldRedact<E extends EventFields>(event: E): E {
  return redactAcrossFields(event).event;
}
