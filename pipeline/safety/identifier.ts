import { sha256Hex } from '../model/sha256.js';
import { decodeHexText } from './normalise.js';
import { redact } from './redact.js';
import { readsAsGroupedToken, readsAsRandomPart } from './random-pieces.js';
import { looksLikeSecretPart, looksLikeSecretToken, runVendors, tokenRuns, type Finding } from './secrets.js';

/**
 * Identifiers from a log (tool names, error categories, session ids, input hashes) key maps, name
 * clusters and stand in rule texts, so they follow a grammar instead of being cleaned up: one that
 * fails it, or holds a URL, a flag, a secret, instruction-like words or a prototype property name, is
 * replaced as a whole by a hashed placeholder (`tool-3f2a9c`). Nothing of it survives, and two
 * different bad names stay two placeholders.
 */

export type IdentifierField = 'tool_name' | 'error_category' | 'session_id' | 'input_hash' | 'agent';

const PLACEHOLDER_PREFIX: Record<IdentifierField, string> = { tool_name: 'tool', error_category: 'category', session_id: 'session', input_hash: 'input', agent: 'agent' };

/**
 * Tool names and categories: a letter, then letters, digits and `_ . : -` in words (`git_push`,
 * `mcp__github__list_prs`, `python3.11`, `not_read_first`), at most 64 characters.
 */
const NAME = /^[A-Za-z][A-Za-z0-9]*(?:(?:__?|[.:+-])[A-Za-z0-9]+)*$/;
/** Categories may also start with a digit (`404`). */
const CATEGORY = /^[A-Za-z0-9][A-Za-z0-9]*(?:(?:__?|[.:+-])[A-Za-z0-9]+)*$/;
/** Hex of 12 bytes or more that decodes to printable text. */
function hexText(raw: string): boolean {
  return raw.length >= 24 && /^[0-9a-f]+$/i.test(raw) && decodeHexText(raw) !== null;
}

/** Hex digests and UUIDs: the usual input hashes and session ids, accepted without further checks. */
const PLAIN_ID = /^(?:[0-9a-f]{8,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** Whether an id is a hex digest or a UUID (a secret only when it appears as one elsewhere, see cross-field.ts). */
export function isPlainId(raw: string): boolean {
  // A digest is random bytes: hex that decodes to text (`70617373776f72643d…` is `password=…`) is an
  // encoding, not a digest, and goes through the checks (found by a helper's attacks, eleventh session).
  return PLAIN_ID.test(raw) && !hexText(raw);
}
/**
 * Our own input hashes are 16 hex digits (telemetry/input-hash.ts). A session id or an input hash from
 * another logger that holds a longer hex run (`<40 hex>`, `sess-<40 hex>`, `sha256:<64 hex>`, `<16>-<16>`, either case) has the
 * shape of a key as well as a digest (40 hex: a Datadog app key, 64: a Sentry token), and nothing tells
 * the two apart: it is stored as 16 hex digits of its SHA-256. The same id gives the same digest at the
 * hook and at night, so sessions and inputs are still told apart; UUIDs (groups of 12 at most) stay.
 */
const LONG_HEX = /(?=[0-9a-f]{0,16}[a-f])(?=[0-9a-f]{0,16}\d)[0-9a-f]{17}/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function storedId(field: IdentifierField, raw: string): string {
  if ((field !== 'session_id' && field !== 'input_hash') || UUID.test(raw)) return raw;
  // In either case, and across separators (`<16 hex>-<16 hex>`): a run of 17 with a letter and a digit among them.
  return LONG_HEX.test(raw) || LONG_HEX.test(raw.replace(/[-_.:+=]+/g, '')) ? sha256Hex(raw).slice(0, 16) : raw;
}
/** Session ids and input hashes: opaque tokens (UUIDs, hex, `s-2026-11-15-a`), at most 128 characters. */
const ID = /^[A-Za-z0-9][A-Za-z0-9_.:+=-]*$/;
/** 10 hex digits or more with a digit and a letter among them. */
const HEX_RUN = /(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{10,}|(?=[0-9A-F]*[0-9])(?=[0-9A-F]*[A-F])[0-9A-F]{10,}/;
const MAX_LENGTH: Record<IdentifierField, number> = { tool_name: 64, error_category: 64, session_id: 128, input_hash: 128, agent: 64 };

/**
 * Phrases that address a reader or order an action (an identifier is a name, never a sentence); word
 * pairs rather than single words, so `override_settings` or `force_sync` stay names.
 */
const INSTRUCTION = /(?:ignore|disregard|forget|override|bypass)[^a-z]+(?:all|any|the|previous|prior|above|earlier|instructions?|rules?|memory|safety|checks?|hooks?|tests?)\b|(?:previous|prior|above|earlier)[^a-z]+(?:instructions?|rules?|prompt)\b|jailbreak|developer[^a-z]?mode|\byou[^a-z]+(?:are|must|should|will)\b|system[^a-z]?prompt|no[^a-z]?verify|\b(?:always|never)[^a-z]+[a-z]+/i;
/** A host or URL: a scheme, `//`, `www.`, or a dotted name ending in a top-level domain. */
const HOST = /:\/\/|\/\/|\bwww\.|[a-z0-9-]\.(?:com|net|org|io|dev|app|sh|ai|co|xyz|example|invalid|test|local|internal|ru|cn|me|info|biz)(?:[^a-z0-9]|$)/i;

/**
 * Words every match of INSTRUCTION holds, one per alternative (`no…verify` holds `verify`). Splitting a
 * name at case changes and `_` only inserts blanks between letters, so a word the split name holds, the
 * name holds too: a name without any of them cannot read as an instruction, and INSTRUCTION, the longest
 * pattern the hook met (V8 compiles a regex on its first use, ~1 M instructions for this one), is not compiled.
 */
const INSTRUCTION_WORDS = ['ignore', 'disregard', 'forget', 'override', 'bypass', 'previous', 'prior', 'above', 'earlier', 'jailbreak', 'developer', 'you', 'system', 'verify', 'always', 'never'];
function mayInstruct(raw: string): boolean {
  const lower = raw.toLowerCase();
  return INSTRUCTION_WORDS.some((word) => lower.includes(word));
}

/** The patterns the gates above stand before, for the test that holds each gate to its pattern. */
export const GATED_PATTERNS = { instruction: INSTRUCTION, host: HOST, flag: /--|(?:^|[^A-Za-z0-9])-[A-Za-z]/ } as const;

/** Whether a name, its words split at `_`, `-` and case changes, reads as an instruction (`E_RERUN_WITH_NO_VERIFY`). */
export function readsAsInstruction(name: string): boolean {
  return mayInstruct(name) && INSTRUCTION.test(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' '));
}

/** Names an object would inherit (`constructor`, `toString`, `__proto__`): never keys, never names. */
function isPrototypeName(name: string): boolean {
  return name === '__proto__' || name in Object.prototype || name in Function.prototype || name === 'prototype';
}

/** Why an identifier is refused; null when it follows the grammar and carries nothing. */
export function identifierProblem(field: IdentifierField, raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_LENGTH[field]) return 'length';
  if ((field === 'input_hash' || field === 'session_id') && isPlainId(raw)) return null;
  const grammar = field === 'tool_name' || field === 'agent' ? NAME : field === 'error_category' ? CATEGORY : ID;
  if (!grammar.test(raw)) return 'grammar';
  if (isPrototypeName(raw)) return 'prototype';
  // Each pattern is tried only on a name holding a character every match of it holds (a `-` for a flag,
  // a `/` or `.` for a host, a word of INSTRUCTION_WORDS): the same answers, without compiling the
  // patterns for the plain names the hook checks on every tool call.
  if (raw.includes('-') && GATED_PATTERNS.flag.test(raw)) return 'flag';
  if ((raw.includes('/') || raw.includes('.')) && HOST.test(raw)) return 'host';
  if (holdsSecret(field, raw)) return 'secret';
  if (field !== 'input_hash' && field !== 'session_id' && raw.length >= 16 && raw.split(/__?|[.:+-]/).some((part) => looksLikeSecretToken(part) || readsAsRandomLetters(part))) return 'secret';
  // A name or a category is words: a run of 10 hex digits or more in it is a digest or a key (half of one, the other half elsewhere).
  if (field !== 'input_hash' && field !== 'session_id' && raw.length >= 10 && HEX_RUN.test(raw)) return 'secret';
  // A part of 12 or more that reads as a piece of a random token (random-pieces.ts), under the 16 a whole short token needs.
  if (field !== 'input_hash' && raw.length >= 12 && raw.split(/[-_.:+]+/).some(readsAsRandomPart)) return 'secret';
  // Groups of one length that read as a seed or a key (`6MA7_NYX3_…`), each too short to read as a part.
  if (raw.length >= 19 && readsAsGroupedToken(raw.split(/[-_.:+]+/))) return 'secret';
  if (field !== 'input_hash' && mayInstruct(raw) && INSTRUCTION.test(raw.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' '))) return 'instruction';
  return null;
}

/**
 * A part of a tool name or category made of letters of both cases that reads as no words: a secret of
 * letters only (no digit for looksLikeSecretToken). Names are words: snake_case or lower-case words
 * (`not_read_first`), CamelCase words (`WebFetch`, `ExitPlanMode`, `XMLHttpRequest`), with a short word or an
 * acronym here and there (`isWiredHeadsetOn`, `MRClientProtocolPB`). Split at its case changes, a random run
 * is mostly pieces no word is: one or two letters, no vowel, five capitals, four consonants in a row. At
 * least four such pieces, and half of them, make it random. Measured: none of the 1,117 mixed-case runs
 * of 12+ letters in /work/shared/data that are names (the 49 it takes are base64 and id fragments), none
 * of the real tool names and categories; of random runs it takes 98.5% at 30 letters, 93% at 20, 83% at 16.
 */
/** A name split at its case changes (`XMLHttpRequest`: `XML`, `Http`, `Request`); `match` only, never `exec` (the flag is global). */
export const CASE_PIECES = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g;
const VOWEL = /[aeiouy]/i;
function noWord(piece: string): boolean {
  return piece.length <= 2 || !VOWEL.test(piece) || /^[A-Z]{5,}$/.test(piece) || /[^aeiouy]{4}/i.test(piece.slice(1));
}
export function readsAsRandomLetters(part: string): boolean {
  if (part.length < 16 || !/^[A-Za-z]+$/.test(part) || !/[a-z]/.test(part) || !/[A-Z]/.test(part)) return false;
  const pieces = part.match(CASE_PIECES)!;
  const odd = pieces.filter(noWord).length;
  return odd >= 4 && odd * 2 >= pieces.length;
}

/**
 * A short name (an MCP tool's argument name) that reads as a piece of a token, not as words: a run of
 * four or more digits, or, with digit runs of up to three taken as word breaks (`base64Data`, `s3Bucket`),
 * two or more of its case pieces no word is, half of them and one of three letters or more (`9AALmzVV`,
 * `GofRrxgR`; `userID`, `includeHTMLTags`, `maxResults`, `k8sNamespace` are words), or pieces of two letters
 * or less on average. An attacker's token cut into argument names is dropped piece by piece.
 */
export function readsAsRandomName(name: string): boolean {
  return name.split(/[_.-]+/).some((part) => {
    if (/\d{4}/.test(part)) return true;
    const pieces = part.replace(/\d+/g, ' ').match(CASE_PIECES) ?? [];
    const odd = pieces.filter(noWord);
    if (odd.length >= 2 && odd.length * 2 >= pieces.length && odd.some((piece) => piece.length >= 3)) return true;
    // Or it falls apart at its case changes: three pieces or more, of two letters or less on average (`Qr7StUvW`).
    return pieces.length >= 3 && pieces.join('').length < pieces.length * 2.5;
  });
}

/**
 * Whether an identifier holds a secret: the whole redactor says so. Input hashes are the exception, checked
 * on every line (they hardly repeat) and holding no key words or separators a context shape needs: for them,
 * a vendor token or a random-looking part is enough, in the hash as written and with its separators taken
 * out (a token spread as `A-K-I-A-…`); a `=` or `:` sends them through the whole redactor too. Session ids
 * go through the redactor (a night has few; the cheap path kept a dash-spread token, found at the eleventh
 * session): the usual ones, UUIDs and hex, never get here (PLAIN_ID).
 */
function holdsSecret(field: IdentifierField, raw: string): boolean {
  if (field === 'input_hash' && !/[=:]/.test(raw) && !hexText(raw)) return vendorOrRandom(raw) || (/[-_.+]/.test(raw) && vendorOrRandom(raw.replace(/[-_.+]+/g, '')));
  return redact(raw) !== raw;
}

function vendorOrRandom(text: string): boolean {
  const found: Finding[] = [];
  // The redactor's own gate (findSecrets): no vendor token without a run of 15 token characters, and the
  // vendors' one large pattern is not compiled for a short text.
  if (tokenRuns(text).long) runVendors(text, found);
  return found.length > 0 || text.split(/[-_.+]+/).some(looksLikeSecretPart);
}

/** The placeholder for a refused identifier: its field and 24 bits of a hash of it (`tool-3f2a9c`). */
export function placeholder(field: IdentifierField, raw: string): string {
  // sha256Hex, not node:crypto: the hook checks the identifiers it writes, and node:crypto alone costs it ~14 M instructions.
  return `${PLACEHOLDER_PREFIX[field]}-${sha256Hex(raw).slice(0, 6)}`;
}

/** The identifier as stored: itself when it passes (a long hex id its digest), else its placeholder. */
export function safeIdentifier(field: IdentifierField, raw: string): string {
  return identifierProblem(field, raw) === null ? storedId(field, raw) : placeholder(field, raw);
}

/** Raw values remembered per field (a log has few tool names; a hostile one may invent many). */
const MAX_MEMO = 10_000;

/**
 * Checks identifiers as they stream past, memoised per raw value, and remembers which were replaced
 * (per field, up to MAX_MEMO each) so a run can say how many. Maps are prototype-free.
 */
export class IdentifierGuard {
  private readonly memo: Record<IdentifierField, Map<string, string>> = { tool_name: new Map(), error_category: new Map(), session_id: new Map(), input_hash: new Map(), agent: new Map() };
  private readonly replaced: Record<IdentifierField, Set<string>> = { tool_name: new Set(), error_category: new Set(), session_id: new Set(), input_hash: new Set(), agent: new Set() };

  /** The last value checked per field: consecutive events mostly share a session and a tool. */
  private readonly last: Record<IdentifierField, [string, string] | null> = { tool_name: null, error_category: null, session_id: null, input_hash: null, agent: null };

  check(field: IdentifierField, raw: string): string {
    const last = this.last[field];
    if (last !== null && last[0] === raw) return last[1];
    // Input hashes hardly repeat: a hex digest passes at once, without filling the memo.
    if (field === 'input_hash' && isPlainId(raw) && raw.length <= MAX_LENGTH.input_hash) return storedId(field, raw);
    const clean = this.lookup(field, raw);
    this.last[field] = [raw, clean];
    return clean;
  }

  private lookup(field: IdentifierField, raw: string): string {
    const memo = this.memo[field];
    let clean = memo.get(raw);
    if (clean === undefined) {
      const problem = identifierProblem(field, raw);
      clean = problem === null ? storedId(field, raw) : placeholder(field, raw);
      if (clean !== raw && this.replaced[field].size < MAX_MEMO) this.replaced[field].add(clean);
      if (problem === 'secret' && this.secret.size < MAX_MEMO) this.secret.add(clean);
      if (memo.size < MAX_MEMO) memo.set(raw, clean);
    }
    return clean;
  }

  /** Placeholders given for an identifier that held a secret or a piece of one (not for grammar, a flag, a host). */
  private readonly secret = new Set<string>();

  /**
   * Whether an identifier, checked as `field`, was refused for holding a secret or a piece of one: the
   * rest of that token may stand in the event's other texts (SplitSecretTracker.follow reads them so).
   */
  heldSecret(field: IdentifierField, raw: string): boolean {
    const clean = this.check(field, raw);
    if (clean === raw) return false;
    // Past the bound the set stops growing: the identifier is judged again.
    return this.secret.has(clean) || (this.secret.size >= MAX_MEMO && identifierProblem(field, raw) === 'secret');
  }

  /** Distinct identifiers replaced so far, per field (fields with none left out). */
  counts(): Partial<Record<IdentifierField, number>> {
    const out: Partial<Record<IdentifierField, number>> = {};
    for (const field of Object.keys(this.replaced) as IdentifierField[]) if (this.replaced[field].size > 0) out[field] = this.replaced[field].size;
    return out;
  }

  /** The placeholders given, for a merge with another thread's guard. */
  toState(): Record<IdentifierField, string[]> {
    return { tool_name: [...this.replaced.tool_name], error_category: [...this.replaced.error_category], session_id: [...this.replaced.session_id], input_hash: [...this.replaced.input_hash], agent: [...this.replaced.agent] };
  }

  merge(state: Record<IdentifierField, string[]>): void {
    for (const field of Object.keys(this.replaced) as IdentifierField[]) {
      for (const p of state[field] ?? []) if (this.replaced[field].size < MAX_MEMO) this.replaced[field].add(p);
    }
  }
}

/** Keeps the characters identifiers are made of; null when nothing is left. */
export function cleanIdentifier(text: string, max: number): string | null {
  const clean = text.replace(/[^\w.:@/-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
  return clean.length > 0 ? clean : null;
}
