import { fnv1a, mix32 } from './hash.js';

/**
 * Distinct values of a stream in bounded memory: exact up to `exactLimit` values, then a HyperLogLog
 * estimate (4096 registers, about 1.6% error) plus the `keep` smallest values, which is all a cluster
 * reports (a count, and the first ids in sorted order). Memory no longer grows with the log.
 */
export class DistinctCounter {
  private exact: Set<string> | null = new Set();
  private registers: Uint8Array | null = null;
  /** The `keep` smallest values seen, sorted (kept once the exact set is dropped). */
  private smallest: string[] = [];

  constructor(
    private readonly exactLimit = 1024,
    private readonly keep = 50,
  ) {}

  add(value: string): void {
    if (this.exact) {
      if (this.exact.has(value)) return;
      this.exact.add(value);
      if (this.exact.size > this.exactLimit) this.switchToSketch();
      return;
    }
    this.sketch(value);
    this.keepSmallest(value);
  }

  get size(): number {
    return this.exact ? this.exact.size : Math.max(this.exactLimit + 1, Math.round(estimate(this.registers!)));
  }

  /** Plain data for another thread (structured clone): what `merge` takes. */
  toState(): DistinctState {
    return this.exact ? { exact: [...this.exact], registers: null, smallest: [] } : { exact: null, registers: this.registers!, smallest: [...this.smallest] };
  }

  /**
   * Adds the values another counter saw. The result is the counter of the union, exactly as if one
   * counter had seen both streams: the exact set, the sketch (registers are a max) and the smallest
   * values depend only on which values were seen, never on their order.
   */
  merge(other: DistinctState): void {
    if (other.exact) {
      for (const value of other.exact) this.add(value);
      return;
    }
    if (this.exact) this.switchToSketch();
    const registers = this.registers!;
    for (let i = 0; i < registers.length; i++) if (other.registers![i]! > registers[i]!) registers[i] = other.registers![i]!;
    for (const value of other.smallest) this.keepSmallest(value);
  }

  /** The smallest `keep` values, sorted. */
  first(): string[] {
    return this.exact ? [...this.exact].sort().slice(0, this.keep) : [...this.smallest];
  }

  private switchToSketch(): void {
    this.registers = new Uint8Array(REGISTERS);
    for (const value of this.exact!) this.sketch(value);
    this.smallest = [...this.exact!].sort().slice(0, this.keep);
    this.exact = null;
  }

  private sketch(value: string): void {
    const hash = mix32(fnv1a(value));
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
  exact: string[] | null;
  registers: Uint8Array | null;
  smallest: string[];
}

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
