/**
 * `.sleep-cycle/lifecycle.jsonl`: the append-only audit of every rule state change — who went from
 * what to what, why, when, in which run. Pure parse/render; the plan appends, apply writes.
 */
export interface LifecycleEvent {
  rule: string;
  from: string;
  to: string;
  reason: string;
  time: string;
  run: string;
  /** Set when a human overrode a safety block (`review --accept --force`). */
  forced?: boolean;
  /** For quarantines and accepts: which text (its sha), since a draft id can carry new text later. */
  text_sha?: string;
  /** For lifecycle moves: when the rule entered `from` (the same move after a crash is logged once). */
  since?: string;
  /** `status` when the event changes a rule's status (validated, refined) rather than its state. */
  field?: 'status';
}

export function renderEvents(events: LifecycleEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}

/** Appends to the existing log text, repairing a torn last line so the new events start on their own line. */
export function appendEvents(existing: string | undefined, events: LifecycleEvent[]): string {
  const base = existing ?? '';
  const separator = base.length > 0 && !base.endsWith('\n') ? '\n' : '';
  return `${base}${separator}${renderEvents(events)}`;
}

/** 1-based numbers of the non-blank lines that are not events (parseEvents skips them; load says so). */
export function brokenEventLines(text: string | undefined): number[] {
  if (!text) return [];
  return text.split('\n').flatMap((line, i) => (line.trim() === '' || isEvent(line) ? [] : [i + 1]));
}

function isEvent(line: string): boolean {
  try {
    const value = JSON.parse(line) as Partial<LifecycleEvent> | null;
    return typeof value?.rule === 'string' && typeof value.to === 'string';
  } catch {
    return false;
  }
}

/** Every well-formed event, in order; broken lines are skipped (the log is for reading, not for logic). */
export function parseEvents(text: string | undefined): LifecycleEvent[] {
  if (!text) return [];
  const events: LifecycleEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as Partial<LifecycleEvent>;
      if (typeof value.rule === 'string' && typeof value.to === 'string') events.push(value as LifecycleEvent);
    } catch {
      // A torn or hand-edited line: skip it.
    }
  }
  return events;
}
