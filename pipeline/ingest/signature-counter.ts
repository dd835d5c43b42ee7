import { hash52 } from '../model/hash.js';
import { signatureText } from '../templates/signature.js';
import type { Signature } from '../model/cluster.js';

/** A counter as plain data for another thread (see SignatureCounter.merge). */
export interface SignatureState {
  /** Counts by signature key, in first-seen order. */
  byText: [string, number][];
  /** Counts of the signatures past the cap, by hash52 (a range's fold only). */
  byHash: [number, number][];
  /** A signature was turned away uncounted: past the cap, and past the hashed ones' budget. */
  dropped: boolean;
}

/** Shared by the counters of one builder: how many more signatures may be counted by hash. */
export interface HashBudget {
  left: number;
}

/**
 * A cluster's error signatures: the first `max` distinct keys, each counted every time it comes. A range
 * fold's counter (given a hash budget) also counts the keys past `max`, by a 52-bit hash, so that a merge
 * can count the night's first keys exactly however late the range met them; one given the keys the lines
 * before already settled counts only those.
 */
export class SignatureCounter {
  private readonly byText = new Map<string, number>();
  private readonly byHash: Map<number, number> | null;
  private readonly settled: Set<string> | null;
  dropped = false;

  constructor(
    private readonly max: number,
    private readonly options: { settled?: string[]; hashBudget?: HashBudget } = {},
  ) {
    this.byHash = options.hashBudget ? new Map() : null;
    this.settled = options.settled ? new Set(options.settled) : null;
  }

  /** Whether no other key can join (the lines after these can then count just these). */
  get full(): boolean {
    return this.byText.size >= this.max;
  }

  keys(): string[] {
    return [...this.byText.keys()];
  }

  count(key: string): void {
    const seen = this.byText.get(key);
    if (seen !== undefined) {
      this.byText.set(key, seen + 1);
      return;
    }
    if (this.settled) {
      if (this.settled.has(key)) this.byText.set(key, 1);
      return;
    }
    if (this.byText.size < this.max) {
      this.byText.set(key, 1);
      return;
    }
    const budget = this.options.hashBudget;
    if (!budget || !this.byHash) {
      this.dropped = true;
      return;
    }
    const hash = hash52(key);
    const hashed = this.byHash.get(hash);
    if (hashed !== undefined) {
      this.byHash.set(hash, hashed + 1);
    } else if (budget.left > 0) {
      budget.left -= 1;
      this.byHash.set(hash, 1);
    } else {
      this.dropped = true;
    }
  }

  /** Each key with `edit` applied (keys that become one are counted as one, in first-seen order). */
  rekey(edit: (key: string) => string): void {
    const counts = [...this.byText];
    this.byText.clear();
    for (const [key, n] of counts) {
      const kept = edit(key);
      this.byText.set(kept, (this.byText.get(kept) ?? 0) + n);
    }
  }

  toState(): SignatureState {
    return { byText: [...this.byText], byHash: [...(this.byHash ?? [])], dropped: this.dropped };
  }

  /**
   * Adds a counter of the lines after these: the keys counted here get the other side's counts (by text,
   * or by hash for those it met past its cap); then, while there is room, its new keys join in the order
   * it first met them, as they would have one line at a time.
   */
  merge(other: SignatureState): void {
    const byText = new Map(other.byText);
    const byHash = new Map(other.byHash);
    const mine = new Set(this.byText.keys());
    for (const key of mine) {
      const n = byText.get(key) ?? byHash.get(hash52(key)) ?? 0;
      this.byText.set(key, this.byText.get(key)! + n);
    }
    for (const [key, n] of other.byText) {
      if (mine.has(key)) continue;
      if (this.byText.size < this.max) this.byText.set(key, n);
      else this.dropped = true;
    }
  }

  /** The `n` most frequent signatures as shown: keys that read the same once redacted count as one. */
  top(n = 5): Signature[] {
    const byText = new Map<string, number>();
    for (const [key, count] of this.byText) {
      const text = signatureText(key);
      byText.set(text, (byText.get(text) ?? 0) + count);
    }
    return [...byText]
      .map(([text, count]) => ({ text, count }))
      .sort((a, b) => b.count - a.count || (a.text < b.text ? -1 : 1))
      .slice(0, n);
  }
}
