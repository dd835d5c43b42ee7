import { stripControls } from '../model/control-chars.js';
import { EXIT_CODES, SleepCycleError } from '../model/errors.js';
import { redact } from '../safety/redact.js';
import type { CliDeps } from './context-from-options.js';

export interface Envelope {
  success: boolean;
  data: unknown;
  error: { code: string; message: string; details: Record<string, unknown> } | null;
}

/**
 * Prints a command's result: one JSON envelope with --json (JSON escapes every control character),
 * readable text otherwise, without the control characters untrusted text could carry (stripControls).
 * Returns the exit code.
 */
export function printSuccess(deps: Pick<CliDeps, 'stdout'>, json: boolean, data: unknown, text: () => string): number {
  if (json) deps.stdout(`${JSON.stringify({ success: true, data, error: null } satisfies Envelope)}\n`);
  else deps.stdout(stripControls(text()));
  return 0;
}

/** The one place an error becomes an exit code. Unknown errors are E_INTERNAL; every message is redacted. */
export function printFailure(deps: Pick<CliDeps, 'stdout' | 'stderr'>, json: boolean, error: unknown): number {
  const known = error instanceof SleepCycleError ? error : null;
  const code = known?.code ?? 'E_INTERNAL';
  const message = stripControls(redact(known ? known.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`));
  const details = JSON.parse(redact(JSON.stringify(known?.details ?? {}))) as Record<string, unknown>;
  if (json) {
    deps.stdout(`${JSON.stringify({ success: false, data: null, error: { code, message, details } } satisfies Envelope)}\n`);
  } else {
    deps.stderr(`sleep-cycle: ${code}: ${message}\n`);
  }
  return EXIT_CODES[code];
}
