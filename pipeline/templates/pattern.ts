/**
 * Template tokens as patterns. A token without `<*>` matches only itself; with `<*>` it matches any
 * token that has its literal parts in order (`user=<*>` matches `user=root`, `(<*>)` matches `()`).
 * Matching is linear in the token's length: a pattern has few parts and each is found once.
 */
import { WILDCARD } from './tokenize.js';

/** A token's literal parts around its wildcards, or null for a literal token. */
export function patternParts(token: string): string[] | null {
  return token.includes(WILDCARD) ? token.split(WILDCARD) : null;
}

export function fits(token: string, parts: readonly string[] | null, candidate: string): boolean {
  if (parts === null) return token === candidate;
  if (parts.length === 2 && parts[0] === '' && parts[1] === '') return true;
  const head = parts[0]!;
  const tail = parts[parts.length - 1]!;
  if (head.length + tail.length > candidate.length || !candidate.startsWith(head) || !candidate.endsWith(tail)) return false;
  let at = head.length;
  const end = candidate.length - tail.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = candidate.indexOf(parts[i]!, at);
    if (found < 0 || found + parts[i]!.length > end) return false;
    at = found + parts[i]!.length;
  }
  return true;
}

const isDelimiter = (c: string): boolean => !/[A-Za-z0-9]/.test(c);

/**
 * The most specific pattern that covers every value: their common head up to a punctuation mark and
 * common tail from one, around `<*>` (`user=root`, `user=admin` → `user=<*>`; `(a)`, `()` → `(<*>)`).
 * Heads and tails stop at punctuation so that `cupsd` and `syslogd` give `<*>`, not `<*>d`.
 */
export function generalize(values: readonly string[]): string {
  let head = values[0] ?? '';
  let tail = head;
  for (const value of values) {
    head = head.slice(0, commonHead(head, value));
    tail = tail.slice(tail.length - commonTail(tail, value));
  }
  let a = head.length;
  while (a > 0 && !isDelimiter(head[a - 1]!)) a--;
  let b = 0;
  while (b < tail.length && !isDelimiter(tail[b]!)) b++;
  head = head.slice(0, a);
  tail = tail.slice(b);
  const shortest = Math.min(...values.map((v) => v.length));
  // A head or tail that cuts into a `<*>` already there, or that overlaps itself, leaves the plain wildcard.
  if (head.includes('<*') || tail.includes('*>') || head.length + tail.length > shortest) return WILDCARD;
  return `${head}${WILDCARD}${tail}`;
}

function commonHead(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function commonTail(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}
