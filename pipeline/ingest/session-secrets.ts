import { copiesOf, isCarried, MAX_VALUES } from '../safety/cross-field.js';
import { fnv1a } from '../model/hash.js';

/**
 * Sessions remembered at once, and characters of values in all: a flood of sessions (or of long values)
 * makes the night forget the sessions that gave a value least recently; it never grows past these.
 */
const MAX_SESSIONS = 10_000;
const MAX_CHARS = 2_000_000;
/**
 * Characters of values kept for the scrub of what the night stored before it learnt them (see `night`):
 * the first ones learnt. The scrub reads them in patterns of SCRUB_CHUNK values each, so a flood of
 * values (1,100 junk passwords before the real one) no longer pushes a value out; only a night of more
 * than this many characters of secret values does (past it a value still leaves every later event of
 * its session, but not the evidence already kept).
 */
const MAX_NIGHT_CHARS = 1_000_000;
/** Values per pattern of the night's scrub (one alternation of literals each). */
export const SCRUB_CHUNK = 1_024;
/** A session id longer than this is keyed by its hash (ids are attacker-controlled, and kept as keys). */
const MAX_KEY = 256;

/** What a range's memory hands to the fold of the lines before it (plain data: it crosses threads). */
export interface SessionSecretsState {
  /** Sessions and their values, least recently learnt first. */
  sessions: [string, string[]][];
  /** Every session the range read an event of (a range's fold only), or null past MAX_SESSIONS. */
  read: string[] | null;
  /** The range forgot a session (past a bound): which values it would still hold is order-dependent. */
  forgot: boolean;
  night: string[];
}

/**
 * The values the redactor recognised as secrets in a session (any field of any event: `--password x`
 * in a call), so that a bare copy in the session's later events (`error: credential x expired`, where
 * nothing marks it as one) is removed too (safety/cross-field.ts does it within an event). Bounded: at
 * most MAX_VALUES values a session (the latest learnt; an older one gives way), MAX_SESSIONS sessions
 * and MAX_CHARS characters (the session that learnt least recently is forgotten first: its later copies
 * then pass as they did before this memory). Events without a session id are one session.
 *
 * What the night stored before a value was learnt (an earlier event's error line, its evidence, a call
 * shape) is scrubbed at the end with `night`, the values of all sessions.
 */
export class SessionSecrets {
  private readonly bySession = new Map<string, string[]>();
  /** Per session, the pattern of its values, compiled once until it learns another (a session fails often). */
  private readonly patterns = new Map<string, RegExp | null>();
  private chars = 0;
  private forgot = false;
  private readonly nightValues = new Set<string>();
  /** The sessions a range's fold read, to tell whether the lines before it would change them. */
  private readonly read: Set<string> | null;
  private readOverflow = false;

  constructor(range = false) {
    this.read = range ? new Set() : null;
  }

  /** Whether this memory notes the sessions it reads (a range's fold). */
  get notesReads(): boolean {
    return this.read !== null;
  }

  /** Whether any session gave a value (most nights: none, and nothing is looked up). */
  get empty(): boolean {
    return this.bySession.size === 0;
  }

  /** The values `session` gave so far (an empty list for none). */
  of(session: string | undefined): readonly string[] {
    if (this.bySession.size === 0) return NONE;
    return this.bySession.get(keyOf(session)) ?? NONE;
  }

  /** The pattern of the values `session` gave so far (see cross-field.ts copiesOf); null for none. */
  copies(session: string | undefined): RegExp | null {
    if (this.bySession.size === 0) return null;
    const key = keyOf(session);
    const values = this.bySession.get(key);
    if (values === undefined) return null;
    let pattern = this.patterns.get(key);
    if (pattern === undefined) this.patterns.set(key, (pattern = copiesOf(values)));
    return pattern;
  }

  /** A range's fold: notes that it read an event of `session`. */
  noteRead(session: string | undefined): void {
    if (this.read === null || this.readOverflow) return;
    const key = keyOf(session);
    if (this.read.has(key)) return;
    if (this.read.size >= MAX_SESSIONS) {
      this.readOverflow = true;
      return;
    }
    this.read.add(key);
  }

  /** Remembers `values` as secrets of `session` (it becomes the most recent). */
  learn(session: string | undefined, values: readonly string[]): void {
    const fresh = values.filter(isCarried);
    if (fresh.length === 0) return;
    const key = keyOf(session);
    const known = this.bySession.get(key) ?? [];
    const added = fresh.filter((value) => !known.includes(value));
    if (added.length === 0) return;
    this.bySession.delete(key);
    this.patterns.delete(key);
    const kept = [...known, ...added];
    for (const value of added) {
      this.chars += value.length;
      this.noteNight(value);
    }
    // The oldest values give way to the latest.
    while (kept.length > MAX_VALUES) this.chars -= kept.shift()!.length;
    this.bySession.set(key, kept);
    while (this.bySession.size > MAX_SESSIONS || this.chars > MAX_CHARS) this.forgetOldest();
  }

  private forgetOldest(): void {
    const [oldest, values] = this.bySession.entries().next().value!;
    this.bySession.delete(oldest);
    this.patterns.delete(oldest);
    for (const value of values) this.chars -= value.length;
    this.forgot = true;
  }

  /** Every value learnt tonight (the first MAX_NIGHT_CHARS characters of them), for the scrub of what was stored before. */
  night(): string[] {
    return [...this.nightValues];
  }

  private nightChars = 0;
  private noteNight(value: string): void {
    if (this.nightValues.has(value) || this.nightChars + value.length > MAX_NIGHT_CHARS) return;
    this.nightValues.add(value);
    this.nightChars += value.length;
  }

  toState(): SessionSecretsState {
    return { sessions: [...this.bySession], read: this.read === null || this.readOverflow ? null : [...this.read], forgot: this.forgot, night: this.night() };
  }

  /**
   * Whether the range that follows reads the same as if this fold had read it: nothing to carry into it
   * (no session here gave a value, or none of them has an event there), and the two memories together
   * within the bounds, so that none of the range's sessions would have been forgotten sooner.
   */
  canAbsorb(range: SessionSecretsState): boolean {
    if (this.bySession.size === 0) return true;
    if (range.read === null || range.forgot || this.forgot) return false;
    if (range.read.some((session) => this.bySession.has(session))) return false;
    const chars = range.sessions.reduce((n, [, values]) => values.reduce((m, value) => m + value.length, n), this.chars);
    return this.bySession.size + range.sessions.length <= MAX_SESSIONS && chars <= MAX_CHARS;
  }

  /** Takes over the range's sessions and values, as they came after this fold's. */
  absorb(range: SessionSecretsState): void {
    for (const [session, values] of range.sessions) this.learnKey(session, values);
    for (const value of range.night) this.noteNight(value);
    if (range.forgot) this.forgot = true;
  }

  private learnKey(key: string, values: string[]): void {
    this.bySession.delete(key);
    this.patterns.delete(key);
    this.bySession.set(key, [...values]);
    for (const value of values) this.chars += value.length;
    while (this.bySession.size > MAX_SESSIONS || this.chars > MAX_CHARS) this.forgetOldest();
  }
}

const NONE: readonly string[] = Object.freeze([]);

function keyOf(session: string | undefined): string {
  const id = session ?? '';
  return id.length <= MAX_KEY ? id : `#${fnv1a(id).toString(16)}:${id.length}`;
}
