import type { Baseline } from '../memory/state.js';
import type { UsageState } from '../telemetry/usage.js';
import type { ClusterState } from './cluster.js';
import type { DetectorState } from './filter.js';
import type { RecoveryState } from './recovery.js';
import type { SplitSecretState } from './split-secrets.js';
import { IngestFold, MAX_INVALID_SAMPLES, type FoldSegment, type FoldSettings, type InvalidLine, type LineCounts } from './fold.js';

/** A large file whose end is to be folded apart (by a worker thread); where from comes with RangeStart. */
export interface RangeRequest {
  absolute: string;
  segment: FoldSegment;
  settings: FoldSettings;
  maxLineBytes: number;
  baselines: Record<string, Baseline>;
}

/** A fold of a range as plain data (it crosses threads by structured clone). */
export interface PartialFold {
  lines: LineCounts;
  invalidSamples: InvalidLine[];
  window: { from: number | null; to: number | null };
  latest: number | null;
  usage: UsageState;
  /** Identifiers this part replaced by placeholders (see IdentifierGuard). */
  ids: ReturnType<IngestFold['ids']['toState']>;
  clusters: ClusterState[];
  overflow: number;
  detector: DetectorState;
  recovery: RecoveryState;
  splitSecrets: SplitSecretState;
  /** Where the range's last complete line ends (the cursor). */
  consumed: number;
}

/**
 * Signatures a range's fold counts by text per cluster (then by hash): more than the night's 32, and at
 * least twice as many, so the new signatures a merge may need are all among those kept by text.
 */
const RANGE_MAX_SIGNATURES = 1024;

/** Where a range starts (a line start), and what the lines before it settled: tools' slow thresholds and full clusters' signatures. */
export interface RangeStart {
  offset: number;
  thresholds: Record<string, number>;
  signatures: Record<string, string[]>;
}

/** What `fold` has settled so far, for the fold of the lines after it. */
export function settledBy(fold: IngestFold): Omit<RangeStart, 'offset'> {
  return { thresholds: fold.detector.thresholds(), signatures: fold.builder.fullSignatureSets() };
}

/** A fold for the end of a file, not knowing the lines before it except what they settled. */
export function rangeFold(request: RangeRequest, start: Omit<RangeStart, 'offset'>, maxSignatures = RANGE_MAX_SIGNATURES): IngestFold {
  // A range is the end of a large file: read with the event scanner from its first line.
  return new IngestFold(request.settings, request.baselines, { deferUnsettled: true, maxSignatures, hashOverflowSignatures: true, known: start.thresholds, settledSignatures: start.signatures, scanAfterLines: 0 });
}

export function toPartial(fold: IngestFold, consumed: number): PartialFold {
  return {
    lines: fold.lines,
    invalidSamples: fold.invalidSamples,
    window: fold.window,
    latest: fold.takeLatest(),
    usage: fold.usage.toState(),
    ids: fold.ids.toState(),
    clusters: fold.builder.toState(),
    overflow: fold.builder.overflow,
    detector: fold.detector.toState(),
    recovery: fold.recovery.toState(),
    splitSecrets: fold.splitSecrets.toState(),
    consumed,
  };
}

/**
 * Adds the fold of the lines that come after everything `fold` has seen, so that `fold` ends exactly
 * as if it had read them itself, in order. Returns false, changing nothing, when that cannot be
 * guaranteed (a cap was reached on either side: past a cap, order decides what is kept); the caller
 * then folds those lines itself.
 */
export function mergePartial(fold: IngestFold, partial: PartialFold): boolean {
  const deferredSlowKeys = partial.detector.tools.filter((t) => t.warmup.length > 0).map((t) => `slow\u0000${t.tool}\u0000`);
  if (!fold.detector.canAbsorb(partial.detector)) return false;
  if (!fold.usage.canMerge(partial.usage)) return false;
  // The worker follows no rule's exposures: a session shown a rule before the split, or an exposure line
  // after it, needs the calls in order (rule-effect.ts). With hooks at session start, that is most nights.
  if (fold.effect !== null && (fold.effect.active || partial.usage.exposures.length > 0)) return false;
  // Past a follow-up cap on either side the order decided what was kept (recovery.ts).
  if (partial.recovery.full || fold.recovery.full) return false;
  if (!fold.builder.canMerge(partial.clusters, partial.overflow, deferredSlowKeys)) return false;
  // A session left with a secret at its end whose next failure is in the range (split-secrets.ts).
  if (!fold.splitSecrets.canAbsorb(partial.splitSecrets)) return false;
  const { lines } = fold;
  lines.read += partial.lines.read;
  lines.valid += partial.lines.valid;
  lines.invalid += partial.lines.invalid;
  lines.old += partial.lines.old;
  lines.blank += partial.lines.blank;
  for (const [reason, n] of Object.entries(partial.lines.invalid_by_reason) as [keyof LineCounts['invalid_by_reason'], number][]) {
    lines.invalid_by_reason[reason] = (lines.invalid_by_reason[reason] ?? 0) + n;
  }
  for (const sample of partial.invalidSamples) if (fold.invalidSamples.length < MAX_INVALID_SAMPLES) fold.invalidSamples.push(sample);
  fold.noteTimes(partial.window.from, partial.window.to, partial.latest);
  fold.usage.merge(partial.usage);
  fold.ids.merge(partial.ids);
  fold.builder.merge(partial.clusters);
  fold.detector.absorb(partial.detector);
  fold.recovery.absorb(partial.recovery);
  fold.splitSecrets.absorb(partial.splitSecrets);
  return true;
}
