/** How much a family's tokens at one position say that it holds a value (scope-store.ts, pair-merge.ts). */
import { isJoinedName } from './names.js';
import type { Unit } from './unit.js';

/**
 * How strongly a family says that position p holds a value: one per distinct literal there, and
 * `minDistinct - 1` for a member with a pattern there (masking or an earlier merge already saw values
 * at p), so a literal next to a pattern is enough (`ns.example.com` where addresses were seen, `()`
 * where `(<*>)` was) while literals alone need `minDistinct` of them.
 */
export function evidence(family: readonly Unit[], p: number, minDistinct: number): number {
  let total = 0;
  for (const member of family) total += weight(member, p, minDistinct);
  return total;
}

/** What one template's token at p says for a value there: a pattern or a joined name (names.ts) weighs `minDistinct - 1`, a word 1. */
export function weight(unit: Unit, p: number, minDistinct: number): number {
  return unit.parts[p] || isJoinedName(unit.tokens[p]!) ? minDistinct - 1 : 1;
}

/**
 * What a token says for a value in a two-position merge: only a joined name weighs more than a word.
 * Values masked at both positions are no evidence there: `tty=NODEVssh … rhost=<*>` and `tty=:<*> …
 * rhost=` are a remote and a local login, whose values differ because the events do.
 */
export function nameWeight(unit: Unit, p: number, minDistinct: number): number {
  return isJoinedName(unit.tokens[p]!) ? minDistinct - 1 : 1;
}
