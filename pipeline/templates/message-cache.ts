/**
 * The exact-message cache in front of the miner: a message seen before skips tokenising, masking and the
 * template search. It is bounded in entries and in characters (log text is attacker-controlled: a stream
 * of distinct long messages must not grow it without limit); when either bound is reached it starts over,
 * which costs one cold lookup per message and keeps the cost of a hit a single map lookup.
 * An entry is valid only while its scope's templates stay as they were: a scope that changes forgets its
 * entries, so a hit always agrees with a fresh search.
 */
export interface CacheLimits {
  readonly cacheEntries: number;
  readonly cacheChars: number;
}

export class MessageCache<V> {
  readonly #limits: CacheLimits;
  readonly #scopes = new Map<string, { readonly map: Map<string, V>; chars: number }>();
  #entries = 0;
  #chars = 0;

  constructor(limits: CacheLimits) {
    this.#limits = limits;
  }

  get size(): { entries: number; chars: number } {
    return { entries: this.#entries, chars: this.#chars };
  }

  get(scope: string, message: string): V | undefined {
    return this.#scopes.get(scope)?.map.get(message);
  }

  set(scope: string, message: string, value: V): void {
    if (this.#limits.cacheEntries <= 0 || message.length > this.#limits.cacheChars) return;
    if (this.#entries + 1 > this.#limits.cacheEntries || this.#chars + message.length > this.#limits.cacheChars) this.clear();
    let entry = this.#scopes.get(scope);
    if (!entry) {
      entry = { map: new Map(), chars: 0 };
      this.#scopes.set(scope, entry);
    }
    if (entry.map.has(message)) return;
    entry.map.set(message, value);
    entry.chars += message.length;
    this.#entries += 1;
    this.#chars += message.length;
  }

  forget(scope: string): void {
    const entry = this.#scopes.get(scope);
    if (!entry) return;
    this.#entries -= entry.map.size;
    this.#chars -= entry.chars;
    this.#scopes.delete(scope);
  }

  clear(): void {
    this.#scopes.clear();
    this.#entries = 0;
    this.#chars = 0;
  }
}
