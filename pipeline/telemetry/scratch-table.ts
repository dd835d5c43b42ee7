/**
 * The hook's small JSON tables (`{"version": 1, "<field>": {key: entry}}`): pending calls, reminded
 * sessions. Tolerant on read (a missing, torn or foreign file is an empty table: they are scratch),
 * bounded by age and size, written with sorted keys.
 */
export function parseTable<T>(text: string | undefined, field: string, entry: (value: unknown) => T | undefined): Map<string, T> {
  const table = new Map<string, T>();
  if (text === undefined) return table;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return table;
  }
  const entries = (data as Record<string, unknown> | null)?.[field];
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return table;
  for (const [key, value] of Object.entries(entries)) {
    const parsed = entry(value);
    if (parsed !== undefined) table.set(key, parsed);
  }
  return table;
}

/** Drops entries older than `maxAgeMs` (or as far in the future), then keeps the `maxEntries` newest. */
export function pruneTable<T>(table: Map<string, T>, nowMs: number, maxAgeMs: number, maxEntries: number, at: (entry: T) => number): Map<string, T> {
  const fresh = [...table].filter(([, e]) => Math.abs(nowMs - at(e)) <= maxAgeMs);
  fresh.sort((a, b) => at(b[1]) - at(a[1]) || (a[0] < b[0] ? -1 : 1));
  return new Map(fresh.slice(0, maxEntries));
}

export function renderTable<T>(field: string, table: Map<string, T>): string {
  const sorted = [...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify({ version: 1, [field]: Object.fromEntries(sorted) })}\n`;
}
