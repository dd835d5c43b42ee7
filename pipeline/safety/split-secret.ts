import { redact } from './redact.js';
import { continuesSecret } from './secrets.js';

/**
 * A secret split across the events of one session: `… part one ghp_AbC1…` then `… part two xYz9…`.
 * The first half ends its text, and the detectors see it (a vendor prefix, a random run); the second
 * half alone is a short run with nothing to name it. So the half that ends an event marks its session,
 * and the session's next event is read as the rest of a token: every run of token characters in it that
 * reads as random (letters and digits, or long and mixed case: `continuesSecret`) is redacted, however
 * short. The state (which sessions end with a secret) is the ingest fold's; these are its pure parts.
 */

/** The last run of token characters of a text, when it could be a cut secret (8 or more, a letter and a digit). */
const LAST_RUN = /([A-Za-z0-9+/=_-]{8,})[\s.,;:)"'\]]*$/;
/** A text that ends with a redaction (trailing punctuation aside). */
const ENDS_REDACTED = /\[REDACTED:[a-z0-9_]+\][\s.,;:)"'\]]*$/;

/**
 * Whether `text` ends with a secret (a marker already, or its last line, redacted, ends with one). Cheap for most texts:
 * the redactor runs only when the text ends with a run that could be one.
 */
export function endsWithSecret(text: string): boolean {
  if (ENDS_REDACTED.test(text)) return true;
  const run = LAST_RUN.exec(text.length > 400 ? text.slice(-400) : text)?.[1];
  if (run === undefined || !/\d/.test(run) || !/[A-Za-z]/.test(run)) return false;
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  return ENDS_REDACTED.test(redact(lastLine));
}

/** Token runs of 8 or more: each is a candidate rest of a secret. Look-behind: tried once per run. */
const RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{8,}/g;

/** `text` with every random-looking run redacted: the event that follows one ending with a secret. */
export function redactContinuation(text: string): string {
  return text.replace(RUN, (run) => (continuesSecret(run) && !run.startsWith('REDACTED') ? '[REDACTED:secret]' : run));
}
