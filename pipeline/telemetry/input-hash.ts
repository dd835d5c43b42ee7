import { sha256Hex } from '../model/sha256.js';

/** JSON with object keys sorted at every level: the same input always serialises the same way. */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(sortDeep(value)) ?? 'null';
  } catch (error) {
    // Nested deeper than the stack (a hostile input 300,000 levels deep): the same text, built without recursion.
    if (error instanceof RangeError) return canonicalJsonFlat(value);
    throw error;
  }
}

/**
 * What `JSON.stringify(sortDeep(value))` gives for JSON data, with an explicit stack: keys sorted, then
 * ordered as an object orders them (integer keys first, ascending), values as JSON.stringify writes them.
 */
export function canonicalJsonFlat(value: unknown): string {
  let out = '';
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'object' && item !== null && (item as { raw?: unknown }).raw !== undefined && RAW in item) {
      out += (item as unknown as { raw: string }).raw;
      continue;
    }
    if (Array.isArray(item)) {
      const parts: unknown[] = [text('[')];
      item.forEach((element, i) => parts.push(...(i > 0 ? [text(',')] : []), element === undefined || typeof element === 'function' || typeof element === 'symbol' ? text('null') : element));
      parts.push(text(']'));
      for (let i = parts.length - 1; i >= 0; i -= 1) stack.push(parts[i]);
    } else if (item !== null && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = orderedKeys(Object.keys(record).sort()).filter((key) => record[key] !== undefined && typeof record[key] !== 'function' && typeof record[key] !== 'symbol');
      const parts: unknown[] = [text('{')];
      keys.forEach((key, i) => parts.push(text(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`), record[key]));
      parts.push(text('}'));
      for (let i = parts.length - 1; i >= 0; i -= 1) stack.push(parts[i]);
    } else {
      out += JSON.stringify(item) ?? 'null';
    }
  }
  return out;
}

const RAW = Symbol('raw');
const text = (raw: string) => ({ raw, [RAW]: true });

/** An object's own order of keys that were inserted in `sorted` order: array-index keys first, ascending. */
function orderedKeys(sorted: string[]): string[] {
  const index = sorted.filter((key) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295).sort((a, b) => Number(a) - Number(b));
  return index.length === 0 ? sorted : [...index, ...sorted.filter((key) => !index.includes(key))];
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
