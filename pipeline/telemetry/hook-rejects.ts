import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redact } from '../synth/redact.js';
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
    payload: truncateMiddle(redact(payload), MAX_REJECT_PAYLOAD_CHARS),
  };
}

/** One line, one write on an O_APPEND descriptor (hooks run in parallel). False when over the cap. */
export async function appendHookReject(path: string, reject: HookReject): Promise<boolean> {
  const size = await stat(path).then((info) => info.size, () => 0);
  if (size >= MAX_REJECTS_BYTES) return false;
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644);
  try {
    await handle.write(`${JSON.stringify(reject)}\n`);
  } finally {
    await handle.close();
  }
  return true;
}
