/**
 * Two positions at once. A one-position family (scope-store.ts) cannot see `Migration test_questioner in
 * app tests` and `Migration routers in app my_test_app` as one event: they differ at two positions. Two
 * templates of the same length and head that differ at exactly two positions merge when each position,
 * on its own, has the evidence a one-position merge needs (`evidence`): so only where values or joined
 * names are seen at both, never for words alone (`session opened for root` / `session closed for alice`
 * stay apart, as two words per position are not enough).
 */
import { WILDCARD } from './tokenize.js';
import type { Unit } from './unit.js';

export interface PairMatch {
  readonly partner: Unit;
  readonly positions: readonly [number, number];
}

/** The first of `candidates` (same length and head as `unit`) that differs from it at two positions with evidence at both. */
export function findPair(
  unit: Unit,
  candidates: readonly Unit[],
  strong: (u: Unit, p: number) => number,
  minDistinct: number,
): PairMatch | undefined {
  for (const other of candidates) {
    if (other === unit) continue;
    const positions = twoDifferences(unit.tokens, other.tokens);
    if (positions && positions.every((p) => strong(unit, p) + strong(other, p) >= minDistinct)) return { partner: other, positions };
  }
  return undefined;
}

/** The two positions past the head where the token lists differ, or null when they differ at more, fewer or the head. */
function twoDifferences(a: readonly string[], b: readonly string[]): [number, number] | null {
  if (a.length !== b.length || a[0] !== b[0]) return null;
  let first = -1;
  let second = -1;
  for (let i = 1; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (first < 0) first = i;
    else if (second < 0) second = i;
    else return null;
  }
  return second < 0 ? null : [first, second];
}

/** Whether a token other than those at a and b keeps a word: a merge that leaves only values learns nothing. */
export function keepsAWordBesides(tokens: readonly string[], a: number, b: number): boolean {
  return tokens.some((t, i) => i !== a && i !== b && t !== WILDCARD && /[A-Za-z]/.test(t));
}

/** Whether two token lists are equal everywhere but at a and b. */
export function sameExceptTwo(x: readonly string[], y: readonly string[], a: number, b: number): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (i !== a && i !== b && x[i] !== y[i]) return false;
  return true;
}
