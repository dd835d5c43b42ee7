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
