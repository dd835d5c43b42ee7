/**
 * A memo for per-event work that depends on one string (an error message, a command): agents repeat
 * themselves, so most failures recompute what an earlier one already did. Bounded in entries and in
 * key length, because log text is attacker-controlled: past the bounds, the work is simply redone.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(
    private readonly maxEntries = 4096,
    private readonly maxKeyLength = 4096,
  ) {}

  get(key: string, compute: () => V): V {
    const found = this.values.get(key);
    if (found !== undefined) return found;
    const value = compute();
    if (this.values.size < this.maxEntries && key.length <= this.maxKeyLength) this.values.set(key, value);
    return value;
  }
}
