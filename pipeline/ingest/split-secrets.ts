import { eventSecretValues, mayGiveValueAway, redactAcrossFields, redactedRuns, secretValues } from '../safety/cross-field.js';
import { BoundedMemo } from './bounded-memo.js';
import { CONTINUED_FAILURES, endsWithSecret, redactAfterRefusedId, redactContinuation, restWorthKeeping, splitAcrossFields } from '../safety/split-secret.js';
import type { ReadEvent, TelemetryEvent } from '../telemetry/event.js';
import { SessionSecrets, type SessionSecretsState } from './session-secrets.js';

const NONE: readonly string[] = Object.freeze([]);

/** Sessions remembered at once (a flood of sessions makes a fold forget them; it never grows). */
const MAX_SESSIONS = 10_000;

/** What a range's tracker hands to the fold of the lines before it (plain data: it crosses threads). */
export interface SplitSecretState {
  /** Sessions left reading their next failures as the rest of a secret, with how many failures are left. */
  cut: [string, number][];
  /** Sessions one of whose first CONTINUED_FAILURES failures in the range would read differently after a secret (see follow). */
  sensitive: string[];
  /** Failures the range read per session (up to CONTINUED_FAILURES): what they leave of a cut before the range. */
  read: [string, number][];
  /** The range met more sessions than it remembers: which first failures were sensitive is unknown. */
  overflow: boolean;
  /** The values its sessions gave away (see SessionSecrets). */
  values: SessionSecretsState;
}

/**
 * A secret split across the failures of one session (safety/split-secret.ts): the failures that follow
 * one ending with a secret, in the same session (up to CONTINUED_FAILURES, or to the one where the rest
 * was found), have their random-looking runs redacted before anything keeps them. Events without a
 * session id are one stream.
 *
 * A worker folds the end of a large file without knowing which sessions the lines before it left cut,
 * so it records the sessions whose first failure would read differently after a cut; when the fold
 * before it left one of those cut, the merge is refused and the main thread reads that part itself
 * (as when a cap is reached): the split night stays exactly the one-thread night.
 */
export class SplitSecretTracker {
  /** Session → failures still read as the rest of its secret. */
  private readonly cut = new Map<string, number>();
  /** Session → failures read (up to CONTINUED_FAILURES), for a range's sensitive sessions. */
  private readonly seen = new Map<string, number>();
  private readonly sensitive = new Set<string>();
  private overflow = false;
  /** The values each session gave away so far: removed from its later events. */
  readonly values: SessionSecrets;
  /** A successful call's command line → the values it gives away (most: none). */
  private readonly callValues = new BoundedMemo<readonly string[]>(8_192, 512);

  /** `range`: the tracker of a range's fold (a worker's), which notes the sessions it reads. */
  constructor(range = false) {
    this.values = new SessionSecrets(range);
  }

  /** Whether the fold must note every event's session (noteRead): a range's fold does. */
  get notesReads(): boolean {
    return this.values.notesReads;
  }

  /** The session of an event the fold read (a range's fold only: see SessionSecrets.canAbsorb). */
  noteRead(session: string | undefined): void {
    this.values.noteRead(session);
  }

  /** A successful call's command line: a value it gives away (`login --password x`) is its session's. */
  observeCall(call: Pick<ReadEvent, 'sessionId' | 'inputSummary'>): void {
    const summary = call.inputSummary();
    if (summary === undefined || summary === '') return;
    // Commands repeat: each distinct one is judged once (summaries are at most 200 characters by contract).
    const found = this.callValues.get(summary, () => (mayGiveValueAway(summary) ? secretValues(summary) : NONE));
    if (found.length > 0) this.values.learn(call.sessionId(), found);
  }

  /** An event that is not kept as a failure (a benign exit): what its fields give away is still its session's. */
  observeEvent(event: TelemetryEvent): void {
    const found = eventSecretValues(event);
    if (found.length > 0) this.values.learn(event.session_id, found);
  }

  /**
   * The failure as it is kept: the rest of a secret its session's last failure ended with, redacted.
   * `heldSecret`: one of its identifiers was refused for holding a piece of a token, so its texts are
   * read as the rest of that token, and its session's next failure as after a secret.
   */
  follow(original: TelemetryEvent, heldSecret = false): TelemetryEvent {
    // A value redacted in one field of the event (or one line of its message), or in an earlier event
    // of its session, leaves all of them.
    this.values.noteRead(original.session_id);
    const across = redactAcrossFields(original, this.values.of(original.session_id), this.values.copies(original.session_id));
    this.values.learn(original.session_id, across.found);
    const event = across.event;
    const raw = event.error_message;
    if (typeof raw !== 'string') return event;
    // The event's own two texts first: a secret split between the call and its error.
    const call = event.input_summary;
    const [summary, message] = typeof call === 'string' ? splitAcrossFields(call, raw) : [call, raw];
    const session = typeof event.session_id === 'string' ? event.session_id : '';
    const left = this.cut.get(session);
    const follows = left !== undefined;
    // The next failure read as the rest of a token; the two after it more strictly (redactContinuation).
    const later = follows && left < CONTINUED_FAILURES;
    const read = heldSecret ? redactAfterRefusedId : follows ? (text: string) => redactContinuation(text, later) : null;
    const seen = read === null ? message : read(message);
    const kept = read !== null && typeof summary === 'string' ? read(summary) : summary;
    // What was read as the rest is the session's too: a copy of it later (in any session: the night's scrub) goes.
    if (read !== null) this.learnRuns(original.session_id, message, seen, summary, kept);
    // The rest found (or the failures to read spent), the session moves on.
    if (follows) {
      if (seen !== message || kept !== summary || left <= 1) this.cut.delete(session);
      else this.cut.set(session, left - 1);
    }
    this.noteFirst(session, message, summary);
    if (heldSecret || endsWithSecret(seen)) {
      if (this.cut.size >= MAX_SESSIONS) this.cut.clear();
      this.cut.set(session, CONTINUED_FAILURES);
    }
    if (seen === raw && kept === call) return event;
    return { ...event, error_message: seen, ...(kept === undefined ? {} : { input_summary: kept }) };
  }

  private learnRuns(session: string | undefined, message: string, seen: string, summary: string | undefined, kept: string | undefined): void {
    const runs = [...(seen === message ? [] : (redactedRuns(message, seen) ?? [])), ...(kept === summary || summary === undefined || kept === undefined ? [] : (redactedRuns(summary, kept) ?? []))];
    const worth = runs.filter(restWorthKeeping);
    if (worth.length > 0) this.values.learn(session, worth);
  }

  /** A range's fold: whether one of a session's first failures would read differently after a cut before the range. */
  private noteFirst(session: string, message: string, summary: string | undefined): void {
    if (this.overflow) return;
    const count = this.seen.get(session) ?? 0;
    if (count >= CONTINUED_FAILURES) return;
    if (count === 0 && this.seen.size >= MAX_SESSIONS) {
      this.overflow = true;
      return;
    }
    this.seen.set(session, count + 1);
    if (this.sensitive.has(session)) return;
    const later = count > 0;
    if (redactContinuation(message, later) !== message || (typeof summary === 'string' && redactContinuation(summary, later) !== summary)) this.sensitive.add(session);
  }

  toState(): SplitSecretState {
    return { cut: [...this.cut], sensitive: [...this.sensitive], read: [...this.seen], overflow: this.overflow, values: this.values.toState() };
  }

  /** Whether the range that follows reads the same as if this fold had read it. */
  canAbsorb(range: SplitSecretState): boolean {
    if (!this.values.canAbsorb(range.values)) return false;
    if (this.cut.size === 0) return true;
    return !range.overflow && !range.sensitive.some((session) => this.cut.has(session));
  }

  /**
   * Takes over what the range leaves: a cut before it loses the failures the range read (none of which
   * held a rest: canAbsorb), and the range's own cuts replace it.
   */
  absorb(range: SplitSecretState): void {
    for (const [session, count] of range.read) {
      const left = this.cut.get(session);
      if (left === undefined) continue;
      if (left <= count) this.cut.delete(session);
      else this.cut.set(session, left - count);
    }
    for (const [session, left] of range.cut) if (this.cut.size < MAX_SESSIONS || this.cut.has(session)) this.cut.set(session, left);
    this.values.absorb(range.values);
  }
}
