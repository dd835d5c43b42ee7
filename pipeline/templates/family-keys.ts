/**
 * Family keys: for each position p of a template, a 52-bit hash of its length, p and every token but
 * the one at p. Templates that differ only at p share that key, which is how the miner finds, in one
 * lookup, the templates that a new value at p could join. Hashes keep the index small whatever the
 * tokens' length (a key is a number, not the text); the miner compares tokens before it trusts one.
 * All keys of a template come from one pass over prefix and suffix hashes.
 */
import { fnv1a, mix32 } from '../model/hash.js';

export function familyKeys(tokens: readonly string[]): number[] {
  const n = tokens.length;
  const a = new Array<number>(n);
  const b = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    a[i] = fnv1a(tokens[i]!);
    b[i] = mix32(a[i]! ^ tokens[i]!.length ^ 0x5bd1e995);
  }
  // Prefix lanes over positions [0, p) and suffix lanes over (p, n), two independent 32-bit lanes each.
  const preA = new Array<number>(n + 1);
  const preB = new Array<number>(n + 1);
  const sufA = new Array<number>(n + 1);
  const sufB = new Array<number>(n + 1);
  preA[0] = 0x811c9dc5;
  preB[0] = 0x27d4eb2f;
  for (let i = 0; i < n; i++) {
    preA[i + 1] = mix32(preA[i]! ^ Math.imul(a[i]!, 0x9e3779b1));
    preB[i + 1] = mix32(Math.imul(preB[i]!, 31) + b[i]!);
  }
  sufA[n] = 0x165667b1;
  sufB[n] = 0x85ebca6b;
  for (let i = n - 1; i >= 0; i--) {
    sufA[i] = mix32(sufA[i + 1]! ^ Math.imul(a[i]!, 0xc2b2ae35));
    sufB[i] = mix32(Math.imul(sufB[i + 1]!, 37) + b[i]!);
  }
  const keys = new Array<number>(n);
  for (let p = 0; p < n; p++) {
    const lo = mix32(preA[p]! ^ mix32(sufA[p + 1]! + p));
    const hi = mix32(preB[p]! ^ mix32(sufB[p + 1]! ^ n)) >>> 12;
    keys[p] = hi * 2 ** 32 + lo;
  }
  return keys;
}
