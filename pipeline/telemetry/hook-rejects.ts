import { statSync } from 'node:fs';
import { appendOnce } from '../io/fs.js';
import { redact, redactDeep } from '../safety/redact.js';
import { truncateMiddle } from './logger.js';

/**
 * Where a hook puts what it could not turn into telemetry (broken payload, bad config, internal error),
 * so a user can see why events are missing while the agent is never blocked. Append-only JSON lines,
 * each redacted and truncated; the file stops growing at a size cap instead of filling the disk.
 */
export interface HookReject {
  time: string;
  reason: string;
  /** The first characters of the raw payload, redacted. */
  payload: string;
}

export const MAX_REJECT_PAYLOAD_CHARS = 2000;
export const MAX_REJECTS_BYTES = 5 * 1024 * 1024;

export function buildHookReject(now: Date, reason: string, payload: string): HookReject {
  return {
    time: now.toISOString(),
    reason: truncateMiddle(redact(reason), 500),
    payload: truncateMiddle(redactPayload(payload), MAX_REJECT_PAYLOAD_CHARS),
  };
}

/**
 * Redacts a raw payload. Parsed, its decoded strings are redacted and the tool input and response are
 * dropped (only their hash belongs in telemetry); unparsed, JSON escapes become spaces first, since a
 * secret after an escaped "\n" would not start at a word boundary for the redactor.
 */
export function redactPayload(payload: string): string {
  try {
    const value = JSON.parse(payload) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const { tool_input: _input, tool_response: _response, ...rest } = value as Record<string, unknown>;
      return JSON.stringify(redactDeep(rest));
    }
    return JSON.stringify(redactDeep(value));
  } catch {
    return redact(payload.replace(/\\(?:[nrtbf"\\/]|u[0-9a-fA-F]{4})/g, ' '));
  }
}

/** One line, one write on an O_APPEND descriptor (hooks run in parallel). False when over the cap. */
export async function appendHookReject(path: string, reject: HookReject): Promise<boolean> {
  // Synchronous, as appendOnce: the hook must not load fs/promises for one stat.
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // No file yet.
  }
  if (size >= MAX_REJECTS_BYTES) return false;
  await appendOnce(path, `${JSON.stringify(reject)}\n`);
  return true;
}
