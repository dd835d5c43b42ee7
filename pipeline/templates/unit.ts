import { familyKeys } from './family-keys.js';
import { patternParts } from './pattern.js';
import { templateId } from './template-id.js';

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
  count: number;
  live: boolean;
}

export function makeUnit(scope: string, tokens: readonly string[]): Unit {
  const template = tokens.join(' ');
  return {
    // Frozen and reused: a cache hit returns it without allocating.
    result: Object.freeze({ id: templateId(scope, template), template }),
    tokens,
    parts: tokens.map(patternParts),
    keys: familyKeys(tokens),
    count: 0,
    live: true,
  };
}
