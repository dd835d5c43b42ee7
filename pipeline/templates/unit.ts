import { familyKeys } from './family-keys.js';
import { fits, patternParts } from './pattern.js';
import { templateId } from './template-id.js';
import { WILDCARD } from './tokenize.js';

/** What the miner answers for a message: its template and the template's id. */
export interface MinedTemplate {
  readonly id: string;
  readonly template: string;
}

/** A template of a scope, with what the search needs precomputed. */
export interface Unit {
  readonly result: MinedTemplate;
  readonly tokens: readonly string[];
  /** Per token, its literal parts around `<*>` (null for a literal token). */
  readonly parts: readonly (string[] | null)[];
  /** Per position, the family key (family-keys.ts). */
  readonly keys: readonly number[];
  count: number;
  /** Loaded from state and not seen since: its count is from earlier nights (see `keepWeight`). */
  restored?: boolean;
}

/**
 * What a template weighs when a cap makes one give way: its count, halved while it has not been seen
 * since it was loaded from state (a decay: tonight's noise may displace last night's, not tonight's).
 */
export function keepWeight(unit: Unit): number {
  return unit.restored ? unit.count / 2 : unit.count;
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
  };
}

/**
 * Whether the unit's token at i admits this (masked) token. A pattern takes a masked value anywhere,
 * but a word only where the miner could have learnt that words vary: past the leading token, in a
 * template that keeps a word elsewhere (scope-store.ts). So `<*>...` made from `12...` does not take
 * `loading...`, nor `<*> failed` take `disk failed`, while `rhost=<*> user=<*>` takes
 * `rhost=ns.example.com user=root`. Anywhere, a pattern with a word in it takes that text with no value
 * at all: `python<*>:` (from `python3:`) takes `python:`.
 */
export function admits(unit: Unit, i: number, token: string): boolean {
  const own = unit.tokens[i]!;
  if (own === token) return true;
  const parts = unit.parts[i];
  if (!parts || !fits(own, parts, token)) return false;
  return token.includes(WILDCARD) || (i > 0 && keepsAWord(unit.tokens, i)) || isEmptyValue(parts, token);
}

/** The pattern's own text with its value left out: `python<*>:` takes `python:`, `[<*>]` takes `[]`. */
export function isEmptyValue(parts: readonly string[], token: string): boolean {
  return parts.join('') === token;
}

/** Whether some other position keeps a word (a token with a letter that is not just `<*>`). */
export function keepsAWord(tokens: readonly string[], p: number): boolean {
  for (let i = 0; i < tokens.length; i++) if (i !== p && tokens[i] !== WILDCARD && /[A-Za-z]/.test(tokens[i]!)) return true;
  return false;
}
