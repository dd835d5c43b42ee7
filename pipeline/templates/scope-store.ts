/**
 * The live templates of one scope and how a message finds or grows one.
 *
 * Finding: a message's masked tokens go to the live template of the same length that fits them with the
 * most tokens equal (ties: more literal tokens, then the smaller template text). A template with exactly
 * the message's tokens is found by one map lookup; templates with wildcards are scanned per length.
 *
 * Learning: tokens that no template fits become a new template; then positions are generalised by
 * evidence. The templates that differ from it at one position p only (its "family" at p, found by a
 * family key) merge into one with `<*>` at p when either
 * - one of them already has a pattern at p that fits all the others' values (`(<*>)` takes `()`), or
 * - together they show at least `minDistinct` different values at p (three users, three commands).
 * The merged template is checked again, so merges cascade. Two values are not enough: `session opened`
 * and `session closed`, `Failed password` and `Accepted password` are different events. Never merged:
 * the leading token (it names the program or the error class: `bash:`, `fatal:`, `KeyError:`), and a
 * position whose template would keep no word (`<*> <*>` learns nothing).
 */
import { redact } from '../safety/redact.js';
import { familyKeys } from './family-keys.js';
import { fits, generalize, patternParts } from './pattern.js';
import { templateId } from './template-id.js';
import { WILDCARD } from './tokenize.js';

export interface MinedTemplate {
  readonly id: string;
  readonly template: string;
}

export interface Unit {
  readonly result: MinedTemplate;
  readonly tokens: readonly string[];
  readonly parts: readonly (string[] | null)[];
  readonly keys: readonly number[];
  count: number;
  live: boolean;
}

/** Live templates across all scopes, against the miner's global cap. */
export interface Budget {
  live: number;
  readonly max: number;
}

export interface StoreHooks {
  /** Called when the live set changes (a message may now find another template): the cache forgets. */
  readonly changed: () => void;
  readonly merged: (from: Unit, into: Unit) => void;
}

export interface StoreLimits {
  readonly minDistinct: number;
  readonly maxTemplatesPerScope: number;
}

export class ScopeStore {
  readonly #scope: string;
  readonly #limits: StoreLimits;
  readonly #budget: Budget;
  readonly #hooks: StoreHooks;
  readonly #byTemplate = new Map<string, Unit>();
  /** Templates with a wildcard, by length and leading token (never generalised by evidence), or by length alone when the leading token is a pattern. */
  readonly #wildByHead = new Map<string, Unit[]>();
  readonly #wildAnyHead = new Map<number, Unit[]>();
  readonly #families = new Map<number, Unit[]>();

  constructor(scope: string, limits: StoreLimits, budget: Budget, hooks: StoreHooks) {
    this.#scope = scope;
    this.#limits = limits;
    this.#budget = budget;
    this.#hooks = hooks;
  }

  get size(): number {
    return this.#byTemplate.size;
  }

  units(): Unit[] {
    return [...this.#byTemplate.values()];
  }

  /** The live template these tokens belong to, without learning. */
  find(tokens: readonly string[]): Unit | undefined {
    return this.#byTemplate.get(tokens.join(' ')) ?? this.#bestWild(tokens) ?? this.#byTemplate.get(redactTemplate(tokens.join(' ')));
  }

  /** The template these tokens belong to after learning them, or undefined when a cap leaves no room. */
  learn(tokens: readonly string[]): Unit | undefined {
    const text = tokens.join(' ');
    const found = this.#byTemplate.get(text) ?? this.#bestWild(tokens);
    // At a cap nothing new is kept, so the redactor (the costly step) is not run for a hostile stream.
    if (found || this.#full()) return found;
    const safe = redactTemplate(text);
    const same = this.#byTemplate.get(safe);
    if (same) return same;
    return this.#settle(this.#create(safe === text ? tokens : safe.split(' ')));
  }

  /** A template from saved state, as it was: no merging. Returns false when a cap leaves no room. */
  restore(template: string, count: number): boolean {
    if (this.#byTemplate.has(template)) return true;
    if (this.#full()) return false;
    this.#create(template === '' ? [] : template.split(' ')).count = count;
    return true;
  }

  #full(): boolean {
    return this.size >= this.#limits.maxTemplatesPerScope || this.#budget.live >= this.#budget.max;
  }

  #create(tokens: readonly string[]): Unit {
    const template = tokens.join(' ');
    const unit: Unit = {
      result: Object.freeze({ id: templateId(this.#scope, template), template }),
      tokens,
      parts: tokens.map(patternParts),
      keys: familyKeys(tokens),
      count: 0,
      live: true,
    };
    this.#byTemplate.set(template, unit);
    if (unit.parts.some((p) => p !== null)) this.#indexWild(unit, push);
    unit.keys.forEach((key) => push(this.#families, key, unit));
    this.#budget.live += 1;
    this.#hooks.changed();
    return unit;
  }

  #retire(unit: Unit, into: Unit): void {
    unit.live = false;
    this.#byTemplate.delete(unit.result.template);
    if (unit.parts.some((p) => p !== null)) this.#indexWild(unit, remove);
    unit.keys.forEach((key) => remove(this.#families, key, unit));
    this.#budget.live -= 1;
    into.count += unit.count;
    this.#hooks.merged(unit, into);
    this.#hooks.changed();
  }

  /** Merge while the newest template's families allow it; returns the template the new one ended in. */
  #settle(unit: Unit): Unit {
    let current = unit;
    for (let next = this.#mergeOnce(current); next; next = this.#mergeOnce(current)) current = next;
    return current;
  }

  #mergeOnce(unit: Unit): Unit | undefined {
    for (let p = 1; p < unit.tokens.length; p++) {
      if (unit.tokens[p] === WILDCARD || !keepsAWord(unit.tokens, p)) continue;
      const family = this.#family(unit, p);
      if (family.length < 2) continue;
      const cover = family.find((m) => m.parts[p] && family.every((o) => fits(m.tokens[p]!, m.parts[p]!, o.tokens[p]!)));
      if (!cover && family.length < this.#limits.minDistinct) continue;
      const tokens = unit.tokens.slice();
      tokens[p] = cover ? cover.tokens[p]! : generalize(family.map((m) => m.tokens[p]!));
      const target = this.#byTemplate.get(tokens.join(' ')) ?? this.#create(tokens);
      for (const member of family) if (member !== target) this.#retire(member, target);
      return target;
    }
    return undefined;
  }

  /** Live templates equal to `unit` everywhere but at p (the unit included), in a stable order. */
  #family(unit: Unit, p: number): Unit[] {
    const candidates = this.#families.get(unit.keys[p]!) ?? [];
    return candidates.filter((m) => m.tokens.length === unit.tokens.length && sameExcept(m.tokens, unit.tokens, p));
  }

  #indexWild(unit: Unit, edit: <K>(map: Map<K, Unit[]>, key: K, unit: Unit) => void): void {
    if (unit.parts[0] === null) edit(this.#wildByHead, headKey(unit.tokens), unit);
    else edit(this.#wildAnyHead, unit.tokens.length, unit);
  }

  #bestWild(tokens: readonly string[]): Unit | undefined {
    if (tokens.length === 0) return undefined;
    const byHead = this.#wildByHead.get(headKey(tokens)) ?? [];
    const anyHead = this.#wildAnyHead.get(tokens.length) ?? [];
    return this.#best(tokens, byHead, this.#best(tokens, anyHead, undefined));
  }

  /** The most specific of `candidates` (and `best` so far) that fits the tokens. */
  #best(tokens: readonly string[], candidates: readonly Unit[], best: Unit | undefined): Unit | undefined {
    let bestExact = best ? exactTokens(best, tokens) : -1;
    let bestLiteral = best ? literalTokens(best) : -1;
    for (const unit of candidates) {
      let exact = 0;
      let literal = 0;
      let fitsAll = true;
      for (let i = 0; i < tokens.length && fitsAll; i++) {
        const token = unit.tokens[i]!;
        if (token === tokens[i]) exact++;
        else fitsAll = fits(token, unit.parts[i] ?? null, tokens[i]!);
        if (token !== WILDCARD) literal++;
      }
      if (!fitsAll) continue;
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
}

const headKey = (tokens: readonly string[]): string => `${tokens.length} ${tokens[0]}`;

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

/** Templates are kept in state and shown in reports: a secret that reached one is masked like a value. */
function redactTemplate(template: string): string {
  const safe = redact(template);
  return safe === template ? template : safe.split(/\s+/).filter((t) => t !== '').join(' ');
}

/** Whether some other position keeps a word (a token with a letter that is not just `<*>`). */
function keepsAWord(tokens: readonly string[], p: number): boolean {
  for (let i = 0; i < tokens.length; i++) if (i !== p && tokens[i] !== WILDCARD && /[A-Za-z]/.test(tokens[i]!)) return true;
  return false;
}

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
