import type { Baseline } from '../memory/state.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import type { EventRef } from './cluster.js';

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

export interface SlowDetectorOptions {
  slowFactor: number;
  minSamples: number;
  /** Calls shorter than this are never slow. */
  minMs: number;
}

interface ToolTally {
  /** Threshold in ms once known; null while the tool is still warming up tonight. */
  baseline: number | null;
  warmup: { event: TelemetryEvent; ts: number; ref: EventRef }[];
  sum: number;
  count: number;
}

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

  constructor(
    private readonly baselines: Record<string, Baseline>,
    private readonly options: SlowDetectorOptions,
    private readonly onSlow: OnSlow,
    private readonly toolName: (raw: string) => string = (raw) => raw,
  ) {}

  /** One success, at `offset` in `file` (the reference is built only for calls that are kept). */
  observe(event: TelemetryEvent, ts: number, file: string, offset: number): void {
    const tally = this.tally(this.toolName(event.tool_name));
    tally.sum += event.duration_ms;
    tally.count += 1;
    if (tally.baseline !== null) {
      if (this.isSlow(event, tally.baseline)) this.onSlow({ event, ts, ref: { file, offset }, baseline: Math.round(tally.baseline) });
      return;
    }
    tally.warmup.push({ event, ts, ref: { file, offset } });
    if (tally.warmup.length >= this.options.minSamples) this.settle(tally);
  }

  /** Judges tools still warming up (if they reached enough samples) and returns the new baselines. */
  finish(): Record<string, Baseline> {
    const next: Record<string, Baseline> = { ...this.baselines };
    for (const [tool, tally] of this.tools) {
      if (tally.baseline === null && tally.warmup.length >= this.options.minSamples) this.settle(tally);
      const previous = this.baselines[tool] ?? { mean_ms: 0, count: 0 };
      const count = previous.count + tally.count;
      const mean = (previous.mean_ms * previous.count + tally.sum) / count;
      next[tool] = { mean_ms: Math.round(mean * 100) / 100, count: Math.min(count, MAX_BASELINE_WEIGHT) };
    }
    return next;
  }

  private tally(tool: string): ToolTally {
    let tally = this.tools.get(tool);
    if (!tally) {
      const persisted = this.baselines[tool];
      const trusted = persisted && persisted.count >= this.options.minSamples ? persisted.mean_ms : null;
      tally = { baseline: trusted, warmup: [], sum: 0, count: 0 };
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
    if (this.isSlow(event, baseline)) this.onSlow({ event, ts, ref, baseline: Math.round(baseline) });
  }

  private isSlow(event: TelemetryEvent, baseline: number): boolean {
    return baseline > 0 && event.duration_ms > this.options.slowFactor * baseline && event.duration_ms >= this.options.minMs;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
