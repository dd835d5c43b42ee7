import { familyKeys } from './family-keys.js';
import { fits, patternParts } from './pattern.js';
import { templateId } from './template-id.js';
import { WILDCARD } from './tokenize.js';

/** What the miner answers for a message: its template and the template's id. */
export interface MinedTemplate {
  readonly id: string;
  readonly template: string;
}

/** A live (or retired, once merged) template of a scope, with what the search needs precomputed. */
export interface Unit {
  readonly result: MinedTemplate;
  readonly tokens: readonly string[];
  /** Per token, its literal parts around `<*>` (null for a literal token). */
  readonly parts: readonly (string[] | null)[];
  /** Per position, the family key (family-keys.ts). */
  readonly keys: readonly number[];
  /**
   * Per position, whether the miner generalised it from evidence. There a pattern fits any value; a
   * pattern that masking made (`<*>` for a number, `(<*>)`) fits only values masked too, so that
   * `<*> failed` learnt from `42 failed` does not take `disk failed`.
   */
  readonly learned: boolean[];
  count: number;
  live: boolean;
}

export function makeUnit(scope: string, tokens: readonly string[], learned: boolean[] = tokens.map(() => false)): Unit {
  const template = tokens.join(' ');
  return {
    // Frozen and reused: a cache hit returns it without allocating.
    result: Object.freeze({ id: templateId(scope, template), template }),
    tokens,
    parts: tokens.map(patternParts),
    keys: familyKeys(tokens),
    learned,
    count: 0,
    live: true,
  };
}

/** Whether the unit's token at i admits this (masked) token. */
export function admits(unit: Unit, i: number, token: string): boolean {
  const own = unit.tokens[i]!;
  if (own === token) return true;
  const parts = unit.parts[i];
  return parts !== null && parts !== undefined && (unit.learned[i]! || token.includes(WILDCARD)) && fits(own, parts, token);
}
