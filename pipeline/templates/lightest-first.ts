/**
 * The eviction order of a Space-Saving heavy-hitters sketch (Metwally et al., 2005): which monitored key
 * is the lightest (smallest weight, then the one admitted first). A binary min-heap with lazy updates:
 * weights only grow on the hot path, and the heap is not told; an entry whose weight grew since it was
 * pushed is pushed again when it reaches the top. So counting an event costs nothing here, and an
 * eviction costs O(log k) amortised. Built only when a sketch first fills up: a night under its cap
 * never pays for it.
 */
interface Entry<K> {
  key: K;
  weight: number;
  seq: number;
}

export class LightestFirst<K> {
  private readonly heap: Entry<K>[] = [];

  /** `weightOf` gives a key's current weight, or undefined when it is no longer monitored. */
  constructor(private readonly weightOf: (key: K) => number | undefined) {}

  get size(): number {
    return this.heap.length;
  }

  push(key: K, weight: number, seq: number): void {
    this.heap.push({ key, weight, seq });
    this.up(this.heap.length - 1);
  }

  /** Removes and returns the lightest monitored key (with its weight), or undefined when none is left. */
  pop(): { key: K; weight: number } | undefined {
    for (let top = this.take(); top; top = this.take()) {
      const weight = this.weightOf(top.key);
      if (weight === undefined) continue;
      if (weight === top.weight) return { key: top.key, weight };
      // Grown since pushed: back in at its weight now (its admission order stays).
      this.push(top.key, weight, top.seq);
    }
    return undefined;
  }

  private take(): Entry<K> | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined) return undefined;
    if (heap.length > 0) {
      heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private less(a: Entry<K>, b: Entry<K>): boolean {
    return a.weight < b.weight || (a.weight === b.weight && a.seq < b.seq);
  }

  private up(i: number): void {
    const heap = this.heap;
    for (let at = i; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (!this.less(heap[at]!, heap[parent]!)) return;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (let at = i; ; ) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && this.less(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && this.less(heap[right]!, heap[least]!)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
  }
}
