import { hash52 } from '../model/hash.js';

/**
 * Distinct values of a stream in bounded memory: exact up to `exactLimit` values, then a HyperLogLog
 * estimate (4096 registers, about 1.6% error), plus the `keep` smallest values, which is all a cluster
 * reports (a count, and the first ids in sorted order). Values are told apart by a 52-bit hash kept in
 * a typed array, not by the strings themselves: a counter costs a few kilobytes however long its values,
 * and none of them is an object the garbage collector has to move. Two distinct values share a hash with
 * a chance of about one in 10^10 for a full counter.
 */
export class DistinctCounter {
  /** Exact mode: an open-addressing set of value hashes plus one (0 is an empty slot); null once estimating. */
  private slots: Float64Array | null = new Float64Array(INITIAL_SLOTS);
  private count = 0;
  private registers: Uint8Array | null = null;
  /** The `keep` smallest values seen, sorted. */
  private smallest: string[] = [];
  /** The value added last: the same value again (a session's failures in a row) changes nothing. */
  private last: string | undefined;

  constructor(
    private readonly exactLimit = 1024,
    private readonly keep = 50,
  ) {}

  add(value: string): void {
    if (value === this.last) return;
    this.last = value;
    const hash = hash52(value);
    if (this.slots !== null) {
      if (!this.insert(hash)) return;
      this.keepSmallest(value);
      if (this.count > this.exactLimit) this.switchToSketch();
      return;
    }
    this.sketch(hash);
    this.keepSmallest(value);
  }

  get size(): number {
    return this.slots !== null ? this.count : Math.max(this.exactLimit + 1, Math.round(estimate(this.registers!)));
  }

  /** Plain data for another thread (structured clone): what `merge` takes. */
  toState(): DistinctState {
    return this.slots !== null
      ? { hashes: this.hashes(), registers: null, smallest: [...this.smallest] }
      : { hashes: null, registers: this.registers!, smallest: [...this.smallest] };
  }

  /**
   * Adds the values another counter saw. The result is the counter of the union, exactly as if one
   * counter had seen both streams: the hash set, the sketch (registers are a max) and the smallest
   * values depend only on which values were seen, never on their order.
   */
  merge(other: DistinctState): void {
    if (other.hashes !== null && this.slots !== null) {
      for (const hash of other.hashes) this.insert(hash);
      if (this.count > this.exactLimit) this.switchToSketch();
    } else {
      if (this.slots !== null) this.switchToSketch();
      const registers = this.registers!;
      if (other.hashes !== null) for (const hash of other.hashes) this.sketch(hash);
      else for (let i = 0; i < registers.length; i++) if (other.registers![i]! > registers[i]!) registers[i] = other.registers![i]!;
    }
    for (const value of other.smallest) this.keepSmallest(value);
  }

  /** The smallest `keep` values, sorted. */
  first(): string[] {
    return [...this.smallest];
  }

  /**
   * Adds a hash to the exact set; false when it was there. Slots are picked by the hash's low 32 bits:
   * `>>> 0` is `% 2 ** 32` for the non-negative integers hash52 gives, without a floating-point modulo.
   */
  private insert(hash: number): boolean {
    let slots = this.slots!;
    const stored = hash + 1;
    const mask = slots.length - 1;
    let i = (hash >>> 0) & mask;
    for (;;) {
      const at = slots[i]!;
      if (at === stored) return false;
      if (at === 0) break;
      i = (i + 1) & mask;
    }
    slots[i] = stored;
    this.count += 1;
    // Kept at most half full: the table doubles (up to twice the limit's power of two).
    if (this.count * 2 > slots.length) {
      const old = slots;
      slots = this.slots = new Float64Array(old.length * 2);
      const bigger = slots.length - 1;
      for (const entry of old) {
        if (entry === 0) continue;
        let j = ((entry - 1) >>> 0) & bigger;
        while (slots[j] !== 0) j = (j + 1) & bigger;
        slots[j] = entry;
      }
    }
    return true;
  }

  private hashes(): number[] {
    const out: number[] = [];
    for (const entry of this.slots!) if (entry !== 0) out.push(entry - 1);
    return out;
  }

  private switchToSketch(): void {
    const hashes = this.hashes();
    this.registers = new Uint8Array(REGISTERS);
    for (const hash of hashes) this.sketch(hash);
    this.slots = null;
  }

  /** Sketches a value by its hash's low 32 bits (well mixed). */
  private sketch(hash52: number): void {
    const hash = hash52 >>> 0;
    const index = hash >>> (32 - P);
    const rest = (hash << P) >>> 0;
    const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) + 1;
    if (rank > this.registers![index]!) this.registers![index] = rank;
  }

  private keepSmallest(value: string): void {
    const list = this.smallest;
    if (list.length >= this.keep && value >= list[list.length - 1]!) return;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    if (list[lo] === value) return;
    list.splice(lo, 0, value);
    if (list.length > this.keep) list.pop();
  }
}

export interface DistinctState {
  /** The exact set's hashes, or null when the counter estimates (then `registers`). */
  hashes: number[] | null;
  registers: Uint8Array | null;
  smallest: string[];
}

const INITIAL_SLOTS = 16;
const P = 12;
const REGISTERS = 1 << P;

function estimate(registers: Uint8Array): number {
  const m = registers.length;
  let sum = 0;
  let zeros = 0;
  for (const r of registers) {
    sum += 2 ** -r;
    if (r === 0) zeros += 1;
  }
  const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
  if (raw <= 2.5 * m && zeros > 0) return m * Math.log(m / zeros);
  const two32 = 2 ** 32;
  return raw > two32 / 30 ? -two32 * Math.log(1 - raw / two32) : raw;
}
