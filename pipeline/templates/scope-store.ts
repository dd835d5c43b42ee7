/**
 * How one scope's templates grow.
 *
 * Finding (template-index.ts): the live template that fits a message's masked tokens most specifically.
 *
 * Learning: tokens that no template fits become a new template; then positions are generalised by
 * evidence. The templates that differ from it at one position p only (its "family" at p) merge into one
 * with `<*>` at p (or the pattern that keeps what their values share: `user=<*>`, `(<*>)`) when
 * - together they show at least `minDistinct` different words at p (three users, three commands),
 * - one of them already holds values there (a pattern) and another a word (`()` next to `(<*>)`), or
 * - one of them holds a joined name there (`__main__.Book` next to `__main__.Client`: names.ts), which
 *   weighs like a value.
 * The merged template is checked again, so merges cascade. Two plain words are not enough: `session opened`
 * and `session closed`, `Failed password` and `Accepted password` are different events. Never merged:
 * the leading token (it names the program or the error class: `bash:`, `fatal:`, `KeyError:`), and a
 * position whose template would keep no word (`<*> <*>` learns nothing). Two exceptions, each narrow:
 * - a leading pattern takes the same name without its value (`python<*>:` and `python:`: unit.ts);
 * - two templates that differ at two positions merge both when each has a joined name's evidence
 *   (`Migration test_questioner in app tests` / `Migration routers in app my_test_app`: pair-merge.ts).
 */
import { redact } from '../safety/redact.js';
import { evidence, nameWeight, weight } from './evidence.js';
import { findPair, keepsAWordBesides, sameExceptTwo } from './pair-merge.js';
import { generalize } from './pattern.js';
import { TemplateIndex } from './template-index.js';
import { admits, isEmptyValue, keepsAWord, keepWeight, makeUnit, type Unit } from './unit.js';

/** Live templates across all scopes, against the miner's global cap. */
export interface Budget {
  live: number;
  readonly max: number;
  /** Templates dropped past a cap to make room for new ones. */
  dropped?: number;
}

export interface StoreHooks {
  /** Called when the live set changes (a message may now find another template): the cache forgets. */
  readonly changed: () => void;
  readonly merged: (from: Unit, into: Unit) => void;
  /** A template was made (learnt, restored or made by a merge). */
  readonly created?: (unit: Unit) => void;
  /** A template left without a merge (retired into another, or dropped past a cap). */
  readonly removed?: (unit: Unit) => void;
  /**
   * The miner is at its overall cap: drop its lightest template somewhere (perhaps here) if it weighs
   * less than `weight`. Returns false when nothing was dropped.
   */
  readonly makeRoom?: (weight: number) => boolean;
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
  readonly #index = new TemplateIndex();
  /**
   * A lower bound of the live templates' weights: weights only grow (counts add up, a restored template
   * seen again stops being halved), a new template lowers it, and a scan sets it. A full scope meeting a
   * flood of lines that fit none of its templates would scan them all for each line otherwise.
   */
  #weightFloor = 0;

  constructor(scope: string, limits: StoreLimits, budget: Budget, hooks: StoreHooks) {
    this.#scope = scope;
    this.#limits = limits;
    this.#budget = budget;
    this.#hooks = hooks;
  }

  units(): Unit[] {
    return this.#index.units();
  }

  get size(): number {
    return this.#index.size;
  }

  has(unit: Unit): boolean {
    return this.#index.get(unit.result.template) === unit;
  }

  /** The live template these tokens belong to, without learning. */
  find(tokens: readonly string[]): Unit | undefined {
    return this.#index.best(tokens) ?? this.#index.get(redactTemplate(tokens.join(' ')));
  }

  /**
   * The template these tokens (seen `seen` times) belong to after learning them. At a cap the lightest
   * template (of this scope, or of all at the overall cap) gives way if it weighs less (unit.ts
   * `keepWeight`): so noise that never repeats cannot keep a failure that does from its own template, and
   * noise does not churn noise. Undefined when nothing gave way (the caller's catch-all).
   */
  learn(tokens: readonly string[], seen = 1): Unit | undefined {
    const found = this.#index.best(tokens);
    if (found || (this.#full() && !this.#makeRoom(seen))) return found;
    const text = tokens.join(' ');
    const safe = redactTemplate(text);
    if (safe !== text) return this.#index.get(safe) ?? this.#settle(this.#create(safe.split(' ')));
    return this.#settle(this.#create(tokens));
  }

  /** A template from saved state, as it was: no merging. Returns false when a cap leaves no room. */
  restore(template: string, count: number): boolean {
    if (this.#index.get(template)) return true;
    if (this.#full()) return false;
    const unit = this.#create(template === '' ? [] : template.split(' '));
    unit.count = count;
    unit.restored = true;
    return true;
  }

  #full(): boolean {
    return this.#index.size >= this.#limits.maxTemplatesPerScope || this.#budget.live >= this.#budget.max;
  }

  /** Drops the scope's lightest template if lighter than `seen` when the scope is full, else asks the miner (overall cap). */
  #makeRoom(seen: number): boolean {
    if (this.#index.size < this.#limits.maxTemplatesPerScope) return this.#hooks.makeRoom?.(seen) ?? false;
    if (this.#weightFloor >= seen) return false;
    const lightest = this.lightest();
    if (lightest) this.#weightFloor = keepWeight(lightest);
    if (!lightest || keepWeight(lightest) >= seen) return false;
    this.drop(lightest);
    return true;
  }

  /** The lightest template; of equals, the one kept longest (restored ones most used first). */
  lightest(): Unit | undefined {
    let least: Unit | undefined;
    for (const unit of this.#index.values()) if (!least || keepWeight(unit) < keepWeight(least)) least = unit;
    return least;
  }

  /** Drops a template past a cap (its messages are learnt afresh if they come again). */
  drop(unit: Unit): void {
    this.#index.delete(unit);
    this.#budget.live -= 1;
    this.#budget.dropped = (this.#budget.dropped ?? 0) + 1;
    this.#hooks.removed?.(unit);
    this.#hooks.changed();
  }

  #create(tokens: readonly string[]): Unit {
    const unit = makeUnit(this.#scope, tokens);
    this.#index.add(unit);
    this.#weightFloor = Math.min(this.#weightFloor, keepWeight(unit));
    this.#budget.live += 1;
    this.#hooks.created?.(unit);
    this.#hooks.changed();
    return unit;
  }

  #retire(unit: Unit, into: Unit): void {
    this.#index.delete(unit);
    this.#budget.live -= 1;
    into.count += unit.count;
    into.restored = undefined;
    this.#hooks.removed?.(unit);
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
    const head = this.#absorbHead(unit);
    if (head) return head;
    for (let p = 1; p < unit.tokens.length; p++) {
      if (!keepsAWord(unit.tokens, p)) continue;
      const family = this.#index.family(unit, p);
      if (family.length < 2) continue;
      if (evidence(family, p, this.#limits.minDistinct) < this.#limits.minDistinct) continue;
      const tokens = unit.tokens.slice();
      tokens[p] = generalize(family.map((m) => m.tokens[p]!));
      // A merge makes room for itself: the cap is not checked for its target.
      const target = this.#index.get(tokens.join(' ')) ?? this.#create(tokens);
      for (const member of family) if (member !== target) this.#retire(member, target);
      return target;
    }
    return this.#mergePair(unit);
  }

  /** Two positions at once (pair-merge.ts), for templates no one-position family explains. */
  #mergePair(unit: Unit): Unit | undefined {
    const { minDistinct } = this.#limits;
    const candidates = this.#index.sameHead(unit);
    const match = candidates.length < 2 ? undefined : findPair(unit, candidates, (u, p) => nameWeight(u, p, minDistinct), minDistinct);
    if (!match) return undefined;
    const [a, b] = match.positions;
    const tokens = unit.tokens.slice();
    for (const p of match.positions) tokens[p] = generalize([unit.tokens[p]!, match.partner.tokens[p]!]);
    if (!keepsAWordBesides(tokens, a, b)) return undefined;
    const target = this.#index.get(tokens.join(' ')) ?? this.#create(tokens);
    // The pair joins it, and so does every template it stands for at those two positions, as a family would.
    const joins = (m: Unit) => m === unit || m === match.partner || (sameExceptTwo(m.tokens, target.tokens, a, b) && admits(target, a, m.tokens[a]!) && admits(target, b, m.tokens[b]!));
    for (const member of [...this.#index.sameHead(target)]) if (member !== target && joins(member)) this.#retire(member, target);
    return target;
  }

  /**
   * The leading token never generalises by evidence, but a leading pattern takes the same name with no
   * value (unit.ts: `python<*>:` takes `python:`): templates equal but for such a leading token join it.
   */
  #absorbHead(unit: Unit): Unit | undefined {
    if (unit.tokens.length === 0) return undefined;
    const family = this.#index.family(unit, 0);
    if (family.length < 2) return undefined;
    const target = family.find((m) => m.parts[0] && family.every((o) => o === m || isEmptyValue(m.parts[0]!, o.tokens[0]!)));
    if (!target) return undefined;
    for (const member of family) if (member !== target) this.#retire(member, target);
    return target;
  }
}

/**
 * Templates are kept in state and shown in reports: a secret that reached one (callers should have
 * redacted it) is replaced by the redactor's marker, and the template is known by that text.
 */
function redactTemplate(template: string): string {
  const safe = redact(template);
  return safe === template ? template : safe.split(/\s+/).filter((t) => t !== '').join(' ');
}
