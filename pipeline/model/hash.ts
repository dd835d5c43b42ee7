/** Small non-cryptographic hashes for sampling, sketches and keys (stable across machines and runs). */

/** FNV-1a over UTF-16 code units, as an unsigned 32-bit integer. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** murmur3's finalizer: a well-mixed unsigned 32-bit hash of a 32-bit integer. */
export function mix32(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A 52-bit hash of a text (FNV-1a and a polynomial hash, mixed), exact as a JavaScript number: two
 * distinct texts share it with a chance of about one in 10^15 per pair. Signatures merged across threads
 * and distinct counters rely on it. Its low 32 bits are well mixed (murmur's finalizer).
 */
export function hash52(text: string): number {
  let fnv = 0x811c9dc5;
  let poly = 7;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ c, 0x01000193);
    poly = (Math.imul(poly, 31) + c) | 0;
  }
  return ((fnv >>> 0) >>> 12) * 2 ** 32 + mix32(poly ^ text.length);
}
