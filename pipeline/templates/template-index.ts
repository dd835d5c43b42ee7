/**
 * The live templates of a scope, indexed three ways:
 * - by their text, for a message whose masked tokens are exactly a template (the common case);
 * - those with a wildcard, in a trie over their tokens (wildcard-trie.ts), so a message meets only the
 *   templates that could admit it;
 * - by family key per position (family-keys.ts), for the templates that differ from one at p only.
 * `best` picks, among the templates that admit a message (unit.ts), the one with the most tokens equal
 * to it, then the most literal tokens, then the smallest text: a pure function of the live set, so an
 * answer does not depend on when a template appeared, and a miner rebuilt from state answers the same.
 */
import { WILDCARD } from './tokenize.js';
import { admits, type Unit } from './unit.js';
import { WildcardTrie } from './wildcard-trie.js';

export class TemplateIndex {
  readonly #byTemplate = new Map<string, Unit>();
  readonly #wild = new WildcardTrie();
  readonly #families = new Map<number, Unit[]>();
  readonly #byHead = new Map<string, Unit[]>();

  get size(): number {
    return this.#byTemplate.size;
  }

  units(): Unit[] {
    return [...this.#byTemplate.values()];
  }

  /** The live templates in the order they came, without a copy. */
  values(): IterableIterator<Unit> {
    return this.#byTemplate.values();
  }

  get(template: string): Unit | undefined {
    return this.#byTemplate.get(template);
  }

  add(unit: Unit): void {
    this.#byTemplate.set(unit.result.template, unit);
    if (hasPattern(unit)) this.#wild.add(unit);
    unit.keys.forEach((key) => push(this.#families, key, unit));
    if (unit.tokens.length > 0) push(this.#byHead, headKey(unit.tokens), unit);
  }

  delete(unit: Unit): void {
    this.#byTemplate.delete(unit.result.template);
    if (hasPattern(unit)) this.#wild.delete(unit);
    unit.keys.forEach((key) => remove(this.#families, key, unit));
    if (unit.tokens.length > 0) remove(this.#byHead, headKey(unit.tokens), unit);
  }

  /** Live templates of the unit's length and leading token (the unit included), in the order they came. */
  sameHead(unit: Unit): readonly Unit[] {
    return unit.tokens.length === 0 ? [] : this.#byHead.get(headKey(unit.tokens)) ?? [];
  }

  /** Live templates equal to `unit` everywhere but at p (the unit included), in the order they came. */
  family(unit: Unit, p: number): Unit[] {
    const candidates = this.#families.get(unit.keys[p]!) ?? [];
    return candidates.filter((m) => m.tokens.length === unit.tokens.length && sameExcept(m.tokens, unit.tokens, p));
  }

  /** The template these tokens are, or the most specific one with a wildcard that fits them. */
  best(tokens: readonly string[]): Unit | undefined {
    const exact = this.#byTemplate.get(tokens.join(' '));
    if (exact || tokens.length === 0) return exact;
    return pick(tokens, this.#wild.candidates(tokens), undefined);
  }
}

/**
 * The most specific of `candidates` (and of `best` so far) that fits the tokens: a total order (most
 * equal tokens, most literal tokens, smallest text; texts are unique), so the candidates' order does not
 * matter.
 */
function pick(tokens: readonly string[], candidates: readonly Unit[], best: Unit | undefined): Unit | undefined {
  let bestExact = best ? exactTokens(best, tokens) : -1;
  let bestLiteral = best ? literalTokens(best) : -1;
  for (const unit of candidates) {
    const exact = fitAll(unit, tokens);
    if (exact < 0) continue;
    const literal = literalTokens(unit);
    const better = best === undefined || exact > bestExact || (exact === bestExact && (literal > bestLiteral
      || (literal === bestLiteral && unit.result.template < best.result.template)));
    if (better) {
      best = unit;
      bestExact = exact;
      bestLiteral = literal;
    }
  }
  return best;
}

/** How many tokens the unit has equal to these, or -1 when one of its tokens does not fit. */
function fitAll(unit: Unit, tokens: readonly string[]): number {
  let exact = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (unit.tokens[i] === tokens[i]) exact++;
    else if (!admits(unit, i, tokens[i]!)) return -1;
  }
  return exact;
}

function exactTokens(unit: Unit, tokens: readonly string[]): number {
  let exact = 0;
  for (let i = 0; i < tokens.length; i++) if (unit.tokens[i] === tokens[i]) exact++;
  return exact;
}

function literalTokens(unit: Unit): number {
  let literal = 0;
  for (const token of unit.tokens) if (token !== WILDCARD) literal++;
  return literal;
}

const hasPattern = (unit: Unit): boolean => unit.parts.some((p) => p !== null);
const headKey = (tokens: readonly string[]): string => `${tokens.length} ${tokens[0]}`;

function sameExcept(a: readonly string[], b: readonly string[], p: number): boolean {
  for (let i = 0; i < a.length; i++) if (i !== p && a[i] !== b[i]) return false;
  return true;
}

function push<K>(map: Map<K, Unit[]>, key: K, unit: Unit): void {
  const list = map.get(key);
  if (list) list.push(unit);
  else map.set(key, [unit]);
}

function remove<K>(map: Map<K, Unit[]>, key: K, unit: Unit): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(unit);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}
