import type { Baseline } from '../memory/state.js';
import { ParsedEvent, type ReadEvent, type TelemetryEvent } from '../telemetry/event.js';
import type { EventRef } from '../model/cluster.js';

/**
 * filter: which events matter. Failures are non-zero exits (except `benign` ones such as a grep that
 * found nothing, and user interrupts or cancelled parallel calls); slow successes take more than
 * `slow_factor` times the tool's baseline.
 */
export function isFailure(event: TelemetryEvent): boolean {
  return event.exit_code !== 0 && !NOT_FAILURES.has(event.error_category ?? '');
}

/** Non-zero exits that are not the agent's mistakes: a search that found nothing, a stop, a cancelled sibling. */
const NOT_FAILURES = new Set(['benign', 'interrupted', 'cancelled']);

export interface SlowCall {
  event: TelemetryEvent;
  ts: number;
  ref: EventRef;
  baseline: number;
}

export type OnSlow = (call: SlowCall) => void;

/** The call being observed: its time, and its event (built on demand). */
export type EventSource = Pick<ReadEvent, 'ts' | 'event'>;

export interface SlowDetectorOptions {
  slowFactor: number;
  minSamples: number;
  /** Calls shorter than this are never slow. */
  minMs: number;
  /** Thresholds already settled tonight by the lines before these (a worker's fold of a file's end). */
  known?: Record<string, number>;
  /**
   * For the fold of a later part of the night: a tool with no threshold yet is not warmed up here (the
   * lines before decide its median). Its first `minSamples` successes and its later calls of at least
   * `minMs` are kept, to be judged once the threshold is known (see `absorb`).
   */
  deferUnsettled?: boolean;
}

interface Call {
  event: TelemetryEvent;
  ts: number;
  ref: EventRef;
}

interface ToolTally {
  /** Threshold in ms once known; null while the tool is still warming up tonight. */
  baseline: number | null;
  /** The first successes, judged when the tool settles (deferred: judged by whoever absorbs them). */
  warmup: Call[];
  /** Deferred mode: later successes long enough to be slow, waiting for the threshold. */
  late: Call[];
  /** Durations of the successes counted here (deferred mode: not those in `warmup`). */
  sum: number;
  count: number;
}

/** What a deferred detector hands over: per tool, its counts and the calls still to judge. */
export interface DetectorState {
  tools: { tool: string; sum: number; count: number; warmup: Call[]; late: Call[] }[];
  /** More calls waited than MAX_DEFERRED: the state cannot be absorbed exactly. */
  overflowed: boolean;
  /** Calls of tools past MAX_TOOLS, not judged: neither can it. */
  untracked: number;
}

/** Distinct tools judged per night, and baselines kept in state: beyond it a log is broken or hostile. */
const MAX_TOOLS = 10_000;

/** Raw tool names remembered (a hostile log may invent many; past this they are cleaned every time). */
const MAX_RAW_NAMES = 10_000;

/** Calls a deferred detector may keep; past this the fold of that part is redone in order. */
const MAX_DEFERRED = 20_000;

/** Effective count is capped so a baseline keeps adapting when a tool gets slower or faster for good. */
const MAX_BASELINE_WEIGHT = 10_000;

/**
 * Judges successes against the persisted baseline (a running mean per tool). A tool without a trusted
 * baseline is judged against the median of its first `minSamples` successes tonight: a median, so the
 * night's slow calls cannot drag their own threshold up before they are judged. Tonight's durations
 * join the running mean only in `finish()`.
 */
export class SlowDetector {
  private readonly tools = new Map<string, ToolTally>();
  /** Raw tool name (as logged) -> its tally: one lookup per call instead of cleaning then looking up. */
  private readonly byRawName = new Map<string, ToolTally>();
  private deferred = 0;
  /** More calls waited than MAX_DEFERRED (deferred mode): this detector can no longer be absorbed. */
  overflowed = false;
  /** Successes of tools beyond MAX_TOOLS tonight: counted, never judged (a hostile or broken log). */
  untracked = 0;

  constructor(
    private readonly baselines: Record<string, Baseline>,
    private readonly options: SlowDetectorOptions,
    private readonly onSlow: OnSlow,
    private readonly toolName: (raw: string) => string = (raw) => raw,
  ) {}

  /** One success, at `offset` in `file` (the reference is built only for calls that are kept). */
  observe(event: TelemetryEvent, ts: number, file: string, offset: number): void {
    this.observeSuccess(event.tool_name, event.duration_ms, file, offset, new ParsedEvent().set(event, ts));
  }

  /**
   * One success given by its raw tool name and duration; `source.event()` is asked for the event only
   * when the call is kept (warm-up, waiting, or slow), which is rare: the hot path reads most lines
   * without building their event (see EventScanner). Its time is read from the source too: a number
   * passed as an argument would be boxed, an allocation per line.
   */
  observeSuccess(rawName: string, durationMs: number, file: string, offset: number, source: EventSource): void {
    let tally = this.byRawName.get(rawName);
    if (tally === undefined) {
      const found = this.tally(this.toolName(rawName));
      if (found === null) {
        this.untracked += 1;
        return;
      }
      tally = found;
      if (this.byRawName.size < MAX_RAW_NAMES) this.byRawName.set(rawName, tally);
    }
    if (tally.baseline === null && this.options.deferUnsettled) return this.defer(tally, { event: source.event(), ts: source.ts, ref: { file, offset } });
    tally.sum += durationMs;
    tally.count += 1;
    if (tally.baseline !== null) {
      if (this.isSlow(durationMs, tally.baseline)) this.onSlow({ event: source.event(), ts: source.ts, ref: { file, offset }, baseline: Math.round(tally.baseline) });
      return;
    }
    tally.warmup.push({ event: source.event(), ts: source.ts, ref: { file, offset } });
    if (tally.warmup.length >= this.options.minSamples) this.settle(tally);
  }

  /** The thresholds settled so far (tool -> ms), for a fold of the lines after these. */
  thresholds(): Record<string, number> {
    const known: Record<string, number> = {};
    for (const [tool, tally] of this.tools) if (tally.baseline !== null) known[tool] = tally.baseline;
    return known;
  }

  /** Deferred mode: the counts and waiting calls, as plain data for another thread. */
  toState(): DetectorState {
    return {
      tools: [...this.tools].map(([tool, t]) => ({ tool, sum: t.sum, count: t.count, warmup: t.warmup, late: t.late })),
      overflowed: this.overflowed,
      untracked: this.untracked,
    };
  }

  /**
   * Takes in a deferred detector's state for the lines after this one's, with the result one detector
   * over all the lines would have had: its warm-up calls are observed here in their order (they may
   * settle a tool), then its later calls are judged against the threshold that is then known.
   */
  absorb(state: DetectorState): void {
    for (const { tool, sum, count, warmup, late } of state.tools) {
      const tally = this.tally(tool);
      if (tally === null) throw new Error(`internal: absorbed past ${MAX_TOOLS} tools (canAbsorb was not asked)`);
      tally.sum += sum;
      tally.count += count;
      for (const call of warmup) this.observeCall(tally, call);
      if (late.length === 0) continue;
      // Later calls exist only after `minSamples` warm-up calls, which settled the tool just above.
      if (tally.baseline === null) throw new Error(`internal: ${tool} has calls to judge but no threshold`);
      for (const call of late) this.judge(call.event, call.ts, call.ref, tally.baseline);
    }
  }

  /** Whether `absorb(state)` gives exactly what one detector would: not past MAX_TOOLS, where order decides. */
  canAbsorb(state: DetectorState): boolean {
    if (state.overflowed || state.untracked > 0 || this.untracked > 0) return false;
    const tools = new Set(this.tools.keys());
    for (const { tool } of state.tools) tools.add(tool);
    return tools.size <= MAX_TOOLS;
  }

  /**
   * Judges tools still warming up (if they reached enough samples) and returns the new baselines: at most
   * MAX_TOOLS of them, the most used first, so state.json stays small whatever the log holds.
   */
  finish(): Record<string, Baseline> {
    const next: Record<string, Baseline> = { ...this.baselines };
    for (const [tool, tally] of this.tools) {
      if (tally.baseline === null && tally.warmup.length >= this.options.minSamples) this.settle(tally);
      const previous = this.baselines[tool] ?? { mean_ms: 0, count: 0 };
      const count = previous.count + tally.count;
      const mean = (previous.mean_ms * previous.count + tally.sum) / count;
      next[tool] = { mean_ms: Math.round(mean * 100) / 100, count: Math.min(count, MAX_BASELINE_WEIGHT) };
    }
    const tools = Object.keys(next);
    if (tools.length <= MAX_TOOLS) return next;
    const kept = tools.sort((a, b) => next[b]!.count - next[a]!.count || (a < b ? -1 : 1)).slice(0, MAX_TOOLS);
    return Object.fromEntries(kept.sort().map((tool) => [tool, next[tool]!]));
  }

  private observeCall(tally: ToolTally, call: Call): void {
    tally.sum += call.event.duration_ms;
    tally.count += 1;
    if (tally.baseline !== null) return this.judge(call.event, call.ts, call.ref, tally.baseline);
    tally.warmup.push(call);
    if (tally.warmup.length >= this.options.minSamples) this.settle(tally);
  }

  private defer(tally: ToolTally, call: Call): void {
    if (tally.warmup.length < this.options.minSamples) {
      tally.warmup.push(call);
      return;
    }
    tally.sum += call.event.duration_ms;
    tally.count += 1;
    if (call.event.duration_ms < this.options.minMs) return;
    if (this.deferred >= MAX_DEFERRED) {
      this.overflowed = true;
      return;
    }
    this.deferred += 1;
    tally.late.push(call);
  }

  /** The tool's tally, opened on first use; null past MAX_TOOLS distinct tools tonight. */
  private tally(tool: string): ToolTally | null {
    let tally = this.tools.get(tool);
    if (!tally) {
      if (this.tools.size >= MAX_TOOLS) return null;
      const persisted = this.baselines[tool];
      const trusted = persisted && persisted.count >= this.options.minSamples ? persisted.mean_ms : null;
      const known = this.options.known && Object.hasOwn(this.options.known, tool) ? this.options.known[tool]! : null;
      tally = { baseline: known ?? trusted, warmup: [], late: [], sum: 0, count: 0 };
      this.tools.set(tool, tally);
    }
    return tally;
  }

  private settle(tally: ToolTally): void {
    tally.baseline = median(tally.warmup.map((item) => item.event.duration_ms));
    for (const item of tally.warmup) this.judge(item.event, item.ts, item.ref, tally.baseline);
    tally.warmup = [];
  }

  private judge(event: TelemetryEvent, ts: number, ref: EventRef, baseline: number): void {
    if (this.isSlow(event.duration_ms, baseline)) this.onSlow({ event, ts, ref, baseline: Math.round(baseline) });
  }

  private isSlow(durationMs: number, baseline: number): boolean {
    return baseline > 0 && durationMs > this.options.slowFactor * baseline && durationMs >= this.options.minMs;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
