/**
 * The template miner: learns error templates (an error line with its variable parts as `<*>`) from
 * messages, one scope at a time, and keeps them across nights as plain JSON.
 *
 * ```ts
 * const miner = new TemplateMiner(savedState);          // or new TemplateMiner() the first night
 * miner.add('Bash/command_not_found', 'bash: pytest: command not found');   // learns → { id, template }
 * miner.match('Bash/command_not_found', 'bash: ruff: command not found');    // does not learn → { id, template } | null
 * miner.merged();   // Map: old id → id it merged into, for templates that generalised since construction
 * miner.toState();  // { version: 1, scopes: { [scope]: [{ id, template, count }] } } → JSON
 * ```
 *
 * - **Scope**: templates never cross scopes (the pipeline passes tool family + error category). The
 *   scope is part of the id.
 * - **Ids**: `t-` + 12 hex digits of sha256(scope, template): the same template has the same id on any
 *   machine, before and after `toState` / load.
 * - **Learning** (`add`): masking (mask.ts) turns values recognisable by their form into `<*>`; a message
 *   no template fits becomes a template; a position becomes `<*>` when templates that differ only there
 *   show `minDistinct` (3) different words, or a word next to values or joined names such as
 *   `__main__.Book` (scope-store.ts; two positions at once only on names' evidence). A `<*>` takes
 *   any masked value, and a word only where one could have been learnt (past the leading token, in a
 *   template that keeps a word): `<*> failed` from `42 failed` does not take `disk failed`. Merging is how a template generalises: the ids of the templates that
 *   merged are reported by `merged()`, so counts and rules keyed by an old id can follow. A message's
 *   template changes only by such a merge (or, rarely, when a more specific template that fits it
 *   appears). `add` returns the message's template at that moment.
 * - **Matching** (`match`): the live template that fits the message with the most equal tokens, or null.
 *   It changes nothing (the exact-message cache aside, which never changes an answer).
 * - **Bounds** (log text is attacker-controlled): messages are cut to `maxMessageLength` characters and
 *   `maxTokens` tokens (the cut part becomes one `<*>`); a scope holds at most `maxTemplatesPerScope`
 *   templates and all scopes `maxTemplates`; past a cap, a message that fits no template takes the place
 *   of the lightest template of its scope (or of all scopes at the overall cap) when it outweighs it
 *   (`add`'s weight against the template's count, halved while a template loaded from state has not
 *   been seen again; of equals the one kept longest goes): so one-off messages cannot keep a message that
 *   repeats from its template, and do not churn each other (`dropped()` counts what gave way). A message
 *   that outweighs nothing gets its scope's catch-all template `<*>` (not stored). A scope left empty
 *   is forgotten; `toState` keeps the heaviest `maxSavedTemplates`. The exact-message cache holds at most `cacheEntries`
 *   messages and `cacheChars` characters. Learning one message costs a scan of the templates of its
 *   length in its scope to find it, one of those with its head for a two-position merge, and one more
 *   per merge (which retires templates, so merges are paid for by the templates they retire): a hostile
 *   stream costs time linear in its length and bounded memory.
 * - **Safety**: callers pass redacted text (ingest redacts every message); as a second line, a new
 *   template's text is redacted too, since templates are saved in state and shown in reports.
 * - **Determinism**: the same messages in the same order give the same templates, ids and state.
 *   `mineTemplates` (mine.ts) learns in sorted order, so its result does not depend on input order.
 */
import { MessageCache } from './message-cache.js';
import { parseMinerState, type SavedTemplate, type TemplateMinerState } from './miner-state.js';
import { maskTokens } from './mask.js';
import { ScopeStore, type Budget } from './scope-store.js';
import { LightestFirst } from './lightest-first.js';
import { templateId } from './template-id.js';
import { tokenize, WILDCARD } from './tokenize.js';
import { keepWeight, type MinedTemplate, type Unit } from './unit.js';

export type { MinedTemplate } from './unit.js';
export type { TemplateMinerState, SavedTemplate } from './miner-state.js';

export interface TemplateMinerOptions {
  /** Different values a position must show before it becomes `<*>` (templates equal elsewhere). */
  readonly minDistinct: number;
  readonly maxTemplatesPerScope: number;
  /** Templates in all scopes together. */
  readonly maxTemplates: number;
  /**
   * Templates `toState` keeps, the heaviest (`keepWeight`: last night's unseen ones weigh half), so a
   * flood of one-off scopes cannot grow state.json; the others are learnt afresh (same ids) if they
   * come again.
   */
  readonly maxSavedTemplates: number;
  /** Characters of a message that are read; the rest becomes one `<*>`. */
  readonly maxMessageLength: number;
  /** Tokens of a message that are kept; the rest becomes one `<*>`. */
  readonly maxTokens: number;
  readonly cacheEntries: number;
  readonly cacheChars: number;
}

export const DEFAULT_MINER_OPTIONS: TemplateMinerOptions = Object.freeze({
  minDistinct: 3,
  maxTemplatesPerScope: 1000,
  maxTemplates: 10_000,
  maxSavedTemplates: 4000,
  maxMessageLength: 1024,
  maxTokens: 64,
  cacheEntries: 65_536,
  cacheChars: 4_000_000,
});

/** A template with its scope and how many messages it has taken (saved counts included). */
export interface TemplateSummary extends MinedTemplate {
  readonly scope: string;
  readonly count: number;
}

export class TemplateMiner {
  readonly #options: TemplateMinerOptions;
  readonly #scopes = new Map<string, ScopeStore>();
  readonly #cache: MessageCache<Unit>;
  readonly #budget: Budget;
  readonly #mergedInto = new Map<string, string>();
  /** Live templates with their scope and order of making, for the overall cap's lightest-first order. */
  readonly #live = new Map<Unit, { scope: string; seq: number }>();
  #made = 0;
  /** All scopes' templates, lightest first: made the first time the overall cap is reached. */
  #lightest: LightestFirst<Unit> | null = null;

  constructor(state?: TemplateMinerState, options: Partial<TemplateMinerOptions> = {}) {
    this.#options = { ...DEFAULT_MINER_OPTIONS, ...options };
    this.#cache = new MessageCache(this.#options);
    this.#budget = { live: 0, max: this.#options.maxTemplates };
    if (state !== undefined) this.#load(parseMinerState(state));
  }

  /**
   * Learns a message; returns its template now (see `merged()` for later generalisations). `weight` is
   * how many times it was seen (a night adds each distinct line once, with its count).
   */
  add(scope: string, message: string, weight = 1): MinedTemplate {
    const hit = this.#cache.get(scope, message);
    if (hit) {
      hit.count += weight;
      hit.restored = undefined;
      return hit.result;
    }
    const store = this.#store(scope);
    const unit = store.learn(this.#tokens(message), weight);
    if (!unit) {
      if (store.size === 0) this.#scopes.delete(scope);
      return catchAll(scope);
    }
    unit.count += weight;
    unit.restored = undefined;
    if (message.length <= this.#options.maxMessageLength) this.#cache.set(scope, message, unit);
    return unit.result;
  }

  /** The template a message belongs to, or null when none fits; learns nothing. */
  match(scope: string, message: string): MinedTemplate | null {
    const hit = this.#cache.get(scope, message);
    if (hit) return hit.result;
    const unit = this.#scopes.get(scope)?.find(this.#tokens(message));
    if (!unit) return null;
    if (message.length <= this.#options.maxMessageLength) this.#cache.set(scope, message, unit);
    return unit.result;
  }

  /** Ids that merged into another template since this miner was built, each mapped to its live id. */
  merged(): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const from of [...this.#mergedInto.keys()].sort()) {
      let to = this.#mergedInto.get(from)!;
      for (let steps = 0; this.#mergedInto.has(to) && steps < this.#mergedInto.size; steps++) to = this.#mergedInto.get(to)!;
      out.set(from, to);
    }
    return out;
  }

  /** Every live template, by scope then template text. */
  templates(): TemplateSummary[] {
    return [...this.#scopes.keys()].sort().flatMap((scope) => this.#scopes.get(scope)!.units()
      .map((u) => ({ scope, id: u.result.id, template: u.result.template, count: u.count }))
      .sort((a, b) => compare(a.template, b.template)));
  }

  toState(): TemplateMinerState {
    const kept = this.#heaviest(this.#options.maxSavedTemplates);
    const scopes: Record<string, SavedTemplate[]> = {};
    for (const scope of [...this.#scopes.keys()].sort()) {
      const units = this.#scopes.get(scope)!.units().filter((u) => !kept || kept.has(u)).sort((a, b) => compare(a.result.template, b.result.template));
      if (units.length > 0) scopes[scope] = units.map(saved);
    }
    return { version: 1, scopes };
  }

  /** The `max` heaviest live templates (of equals: by scope, then text), or null when all fit. */
  #heaviest(max: number): Set<Unit> | null {
    if (this.#live.size <= max) return null;
    const all = [...this.#live].map(([unit, { scope }]) => ({ unit, scope }));
    all.sort((a, b) => keepWeight(b.unit) - keepWeight(a.unit) || compare(a.scope, b.scope) || compare(a.unit.result.template, b.unit.result.template));
    return new Set(all.slice(0, max).map(({ unit }) => unit));
  }

  /** Templates toState leaves out past maxSavedTemplates. */
  unsaved(): number {
    return Math.max(0, this.#live.size - this.#options.maxSavedTemplates);
  }

  #tokens(message: string): string[] {
    return maskTokens(tokenize(message, this.#options));
  }

  /** Templates dropped past a cap since this miner was built. */
  dropped(): number {
    return this.#budget.dropped ?? 0;
  }

  #store(scope: string): ScopeStore {
    let store = this.#scopes.get(scope);
    if (!store) {
      store = new ScopeStore(scope, this.#options, this.#budget, {
        changed: () => this.#cache.forget(scope),
        // A template no message was ever given (made and merged while learning one message) is not news.
        merged: (from, into) => { if (from.count > 0) this.#recordMerge(from.result.id, into.result.id); },
        created: (unit) => {
          const seq = this.#made++;
          this.#live.set(unit, { scope, seq });
          this.#lightest?.push(unit, keepWeight(unit), seq);
        },
        removed: (unit) => this.#live.delete(unit),
        makeRoom: (seen) => this.#dropLightest(scope, seen),
      });
      this.#scopes.set(scope, store);
    }
    return store;
  }

  /**
   * At the overall cap: drops the lightest template of all scopes if it weighs less than `seen`. A scope
   * left empty is forgotten, but not the one learning (it is about to hold the new template).
   */
  #dropLightest(learning: string, seen: number): boolean {
    if (!this.#lightest) {
      this.#lightest = new LightestFirst((unit) => (this.#live.has(unit) ? keepWeight(unit) : undefined));
      for (const [unit, { seq }] of this.#live) this.#lightest.push(unit, keepWeight(unit), seq);
    }
    const lightest = this.#lightest.pop();
    const scope = lightest && this.#live.get(lightest.key)!.scope;
    if (!lightest || scope === undefined) return false;
    if (lightest.weight >= seen) {
      this.#lightest.push(lightest.key, lightest.weight, this.#live.get(lightest.key)!.seq);
      return false;
    }
    const store = this.#scopes.get(scope)!;
    store.drop(lightest.key);
    if (store.size === 0 && scope !== learning) this.#scopes.delete(scope);
    return true;
  }

  /** The merge log is bounded like everything else: past 4× the template cap the oldest entries go. */
  #recordMerge(from: string, into: string): void {
    this.#mergedInto.delete(from);
    this.#mergedInto.set(from, into);
    if (this.#mergedInto.size > 4 * this.#options.maxTemplates) this.#mergedInto.delete(this.#mergedInto.keys().next().value!);
  }

  /** Saved templates, most used first, while the caps allow (a state written under larger caps is cut). */
  #load(state: TemplateMinerState): void {
    for (const scope of Object.keys(state.scopes).sort()) {
      const saved = [...state.scopes[scope]!].sort((a, b) => b.count - a.count || compare(a.template, b.template));
      const store = this.#store(scope);
      for (const t of saved) if (!store.restore(t.template, t.count)) break;
    }
    this.#cache.clear();
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function saved(unit: Unit): SavedTemplate {
  return { id: unit.result.id, template: unit.result.template, count: unit.count };
}

/** Past a cap, a message that fits no template is counted under its scope's catch-all `<*>`. */
function catchAll(scope: string): MinedTemplate {
  return { id: templateId(scope, WILDCARD), template: WILDCARD };
}
