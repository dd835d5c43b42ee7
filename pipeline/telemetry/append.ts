import { errors } from '../model/errors.js';
import { appendOnce } from '../io/fs.js';
import { checkEvent, type TelemetryEvent } from './event.js';

/**
 * Appends events as JSON lines in one write (see appendOnce). Every event is checked against the
 * contract first; if any is invalid, nothing is written.
 */
export async function appendTelemetry(path: string, events: TelemetryEvent[]): Promise<void> {
  for (const event of events) {
    const reason = checkEvent(event);
    if (reason !== null) throw errors.usage(`not a valid telemetry event (${reason}); nothing was appended to ${path}.`);
  }
  if (events.length === 0) return;
  await appendOnce(path, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
}
