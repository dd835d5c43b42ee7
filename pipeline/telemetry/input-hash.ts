import { sha256Hex } from '../model/sha256.js';

/** JSON with object keys sorted at every level: the same input always serialises the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value)) ?? 'null';
}

/**
 * The telemetry `input_hash`: SHA-256 of the canonical JSON of a tool's input, first 16 hex digits. It
 * stays SHA-256 (not a cheaper key): it is the contract's id of a request, in every log line already
 * written, and distinct inputs are counted by it, so a hostile input must not collide with another at will.
 */
export function inputHash(input: unknown): string {
  return sha256Hex(canonicalJson(input)).slice(0, 16);
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
