import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: the same input always serialises the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value)) ?? 'null';
}

/** The telemetry `input_hash`: SHA-256 of the canonical JSON of a tool's input, first 16 hex digits. */
export function inputHash(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex').slice(0, 16);
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => [key, sortDeep((value as Record<string, unknown>)[key])]),
  );
}
