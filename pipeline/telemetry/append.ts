import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errors } from '../errors.js';
import { checkEvent, type TelemetryEvent } from './event.js';

/**
 * Appends events as JSON lines with ONE write on an O_APPEND descriptor, so concurrent writers (several
 * agent sessions, the hook and an importer) never interleave inside a line. Every event is checked
 * against the contract first; if any is invalid, nothing is written.
 */
export async function appendTelemetry(path: string, events: TelemetryEvent[]): Promise<void> {
  for (const event of events) {
    const reason = checkEvent(event);
    if (reason !== null) throw errors.usage(`not a valid telemetry event (${reason}); nothing was appended to ${path}.`);
  }
  if (events.length === 0) return;
  const text = events.map((event) => `${JSON.stringify(event)}\n`).join('');
  try {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644);
    try {
      await handle.write(text);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw errors.io('append to', path, error);
  }
}
