
/** What the lifecycle needs to know about a night's telemetry besides its clusters. */
export interface UsageSummary {
  /** Tool name -> calls (successes and failures). */
  tools: Record<string, number>;
  /** Rule id -> how often agents listed it in `memory_refs`, and when last. */
  refs: Record<string, { count: number; last: string }>;
}

const RULE_ID = /^r-[0-9a-f]{4,16}$/;
const MAX_KEYS = 10_000;

/**
 * Counts calls per tool and rule accesses per rule id, bounded: past MAX_KEYS distinct names, new ones
 * are not counted (a flood of invented tool names or ids must not grow memory).
 */
export class UsageCounter {
  /** Tool name -> its call count, in a box so a call costs one lookup. */
  private readonly tools = new Map<string, { calls: number }>();
  private readonly refs = new Map<string, { count: number; last: number }>();

  /** One call of the tool named `toolName` (raw). */
  addCall(toolName: string): void {
    const tool = this.tools.get(toolName);
    if (tool !== undefined) tool.calls += 1;
    else if (this.tools.size < MAX_KEYS) this.tools.set(toolName, { calls: 1 });
  }

  /** The rule ids a call at `ts` listed in its memory_refs. */
  addRefs(refs: string[], ts: number): void {
    for (const id of refs) {
      if (!RULE_ID.test(id)) continue;
      const seen = this.refs.get(id);
      if (seen) {
        seen.count += 1;
        if (ts > seen.last) seen.last = ts;
      } else if (this.refs.size < MAX_KEYS) {
        this.refs.set(id, { count: 1, last: ts });
      }
    }
  }

  /** A name or id was turned away at the cap. */
  get full(): boolean {
    return this.tools.size >= MAX_KEYS || this.refs.size >= MAX_KEYS;
  }

  /** Plain data for another thread, in first-seen order. */
  toState(): UsageState {
    return { tools: [...this.tools].map(([name, tool]) => [name, tool.calls]), refs: [...this.refs].map(([id, seen]) => [id, { ...seen }]) };
  }

  /**
   * Whether adding `other` (counted over the lines after this counter's) gives exactly what one counter
   * over both would: not when either side reached the cap, since past it the order decides what counts.
   */
  canMerge(other: UsageState): boolean {
    return this.tools.size + other.tools.length < MAX_KEYS && this.refs.size + other.refs.length < MAX_KEYS;
  }

  merge(other: UsageState): void {
    for (const [name, calls] of other.tools) {
      const tool = this.tools.get(name);
      if (tool) tool.calls += calls;
      else this.tools.set(name, { calls });
    }
    for (const [id, seen] of other.refs) {
      const mine = this.refs.get(id);
      if (mine) {
        mine.count += seen.count;
        if (seen.last > mine.last) mine.last = seen.last;
      } else {
        this.refs.set(id, { ...seen });
      }
    }
  }

  /** Tool names go through the same cleaner as clusters, so they match the ledger's tool_name. */
  finish(cleanToolName: (name: string) => string): UsageSummary {
    // No prototype: a tool named `constructor` or `toString` counts from 0, not from an inherited function.
    const tools = Object.create(null) as Record<string, number>;
    for (const [name, { calls }] of this.tools) {
      const clean = cleanToolName(name);
      tools[clean] = (tools[clean] ?? 0) + calls;
    }
    const refs = Object.create(null) as UsageSummary['refs'];
    for (const [id, seen] of [...this.refs].sort(([a], [b]) => (a < b ? -1 : 1))) refs[id] = { count: seen.count, last: new Date(seen.last).toISOString() };
    return { tools, refs };
  }
}

export interface UsageState {
  tools: [string, number][];
  refs: [string, { count: number; last: number }][];
}

export function emptyUsage(): UsageSummary {
  return { tools: Object.create(null) as Record<string, number>, refs: Object.create(null) as UsageSummary['refs'] };
}
