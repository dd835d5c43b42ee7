import { isAbsolute, relative, resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { Cursor, State } from '../memory/state.js';
import { parseTimestamp } from '../telemetry/event.js';
import { buildCursor, planReads, type ReadPlanContext, type Segment } from '../ingest/cursor.js';
import { NightCap } from '../ingest/night-cap.js';
import type { Cluster } from '../model/cluster.js';
import { IngestFold, type InvalidLine, type LineCounts } from '../ingest/fold.js';
import { readSplit, splittableSize } from '../ingest/split.js';
import { clustersByTemplate } from '../ingest/by-template.js';
import { widenedCoverageGuard } from '../ingest/held-coverage.js';
import { TemplateMiner, type TemplateMinerState } from '../templates/miner.js';
import type { UsageSummary } from '../telemetry/usage.js';
import { loadSecretRuleSet } from '../safety/secrets-rule-set.js';
import { buildHookIndex } from '../memory/hook-index.js';
import { IN_TARGET } from '../memory/state.js';
import type { RuleEffectInput } from '../ingest/rule-effect.js';

export type { InvalidLine, LineCounts } from '../ingest/fold.js';

export interface IngestResult {
  lines: LineCounts;
  invalidSamples: InvalidLine[];
  clusters: Cluster[];
  baselines: State['baselines'];
  cursors: Record<string, Cursor>;
  /** What a reviewer should know about how lines were chosen (fallbacks, missing files). */
  notices: string[];
  window: { from: string | null; to: string | null };
  /** Calls per tool and rule accesses (memory_refs): what the lifecycle judges rules by. */
  usage: UsageSummary;
  /** A large night's last file was split with a worker thread at this byte (merged: its fold was used). */
  parallel: ParallelIngest | null;
  /** The miner's templates after tonight, and the templates that generalised tonight (old id → new id). */
  templates: TemplateMinerState;
  templateMerges: ReadonlyMap<string, string>;
  /** What the night's caps dropped to keep the heaviest (a flood; all 0 on an ordinary night). */
  dropped: IngestDropped;
}

export interface IngestDropped {
  /** Clusters (and their events) that gave way to heavier ones past max_clusters. */
  clusters: number;
  events: number;
  /** Templates that gave way at the template caps, and templates left out of state. */
  templates: number;
  templates_unsaved: number;
}

export interface ParallelIngest {
  file: string;
  split_at: number;
  /** False when this thread folded the worker's part itself (a cap was reached, or the worker failed). */
  merged: boolean;
}

/** A night at least this large is read with the event scanner from its first line. */
const SCAN_AT_ONCE_BYTES = 8 << 20;

/**
 * ingest (+ filter + cluster, streamed): reads only the lines appended since the last sleep, counts
 * every line, and folds each valid event straight into the slow detector and the cluster builder so
 * memory stays bounded by the number of clusters, not by the size of the log.
 */
export async function ingest<I extends { state: State; notices: string[] }>(input: I, ctx: RunContext): Promise<I & IngestResult> {
  const { settings } = ctx;
  // Loaded here, not at start-up: the hook and the logger never pay for it. Every string ingest keeps is
  // redacted with it (the fold is synchronous; the rule set is then ready).
  await loadSecretRuleSet();
  const cursors: Record<string, Cursor> = { ...input.state.cursors };
  const notices: string[] = [];

  const planContext: ReadPlanContext = { fs: ctx.fs, rotatedLogs: settings.rotated_logs, ...(ctx.options.since !== undefined ? { since: ctx.options.since } : {}) };
  const plans: { file: string; absolute: string; segments: Segment[] }[] = [];
  for (const logPath of settings.logs) {
    const file = displayPath(ctx.root, logPath);
    const absolute = resolve(ctx.root, logPath);
    if (!(await ctx.fs.identify(absolute))) {
      notices.push(missingLogNotice(file, input.state.cursors[file]));
      continue;
    }
    const segments = await planReads(absolute, file, input.state, planContext, notices);
    if (segments !== null) plans.push({ file, absolute, segments });
  }
  // Bytes to read, for the progress bar (a gzipped copy counts its compressed size: an estimate).
  let total = 0;
  for (const { segments } of plans) for (const segment of segments) total += Math.max(0, ((await ctx.fs.identify(segment.absolute))?.size ?? 0) - segment.offset);
  ctx.progress?.start(total);
  // A small night is read with JSON.parse first: the event scanner is faster only once compiled.
  const fold = new IngestFold(settings, input.state.baselines, { ...(total >= SCAN_AT_ONCE_BYTES ? { scanAfterLines: 0 } : {}), effect: followedRules(input.state) });
  const { lines } = fold;
  let doneBefore = 0;
  let parallel: ParallelIngest | null = null;
  const cap = new NightCap(settings.max_bytes_per_night, settings.max_line_bytes);
  for (const { file, absolute, segments } of plans) {
    // Past the night's byte cap: this log waits for the next run, its cursor unchanged.
    if (cap.reached) break;
    const before = { valid: lines.valid, invalid: lines.invalid };
    fold.takeLatest();
    let consumed = 0;
    let cursorFile = absolute;
    for (const segment of segments) {
      let workerBytes = 0;
      const progress = ctx.progress;
      // Folds [from, end) of the segment here; the progress bar counts what the worker read too. A read
      // cut short by the cap is not final: its last partial line is left for the next run.
      const read = (from: number, end?: number): Promise<number> => {
        const onProgress = progress ? (bytes: number) => progress.update(doneBefore + from - segment.offset + bytes + workerBytes) : undefined;
        const options = { maxLineBytes: settings.max_line_bytes, ...(segment.final ? { final: true } : {}), ...(end !== undefined ? { end } : {}), ...(onProgress ? { onProgress } : {}) };
        return ctx.fs.readLines(segment.absolute, from, options, (line) => fold.line(line, segment));
      };
      const limit = await cap.limitFor(segment, ctx);
      cursorFile = segment.absolute;
      // The night's last file, when large, is read by two threads (ingest-split.ts).
      const last = segment === plans.at(-1)?.segments.at(-1);
      const size = last && !segment.final && limit === null ? await splittableSize(segment.absolute, segment.offset, ctx) : null;
      if (limit !== null) {
        consumed = await read(segment.offset, limit);
        const retry = cap.retryEnd(segment, consumed);
        if (retry !== null && retry > limit) consumed = await read(segment.offset, retry);
      } else if (size !== null) {
        const split = await readSplit(segment, size, fold, input.state.baselines, ctx, read, (bytes) => (workerBytes = bytes));
        consumed = split.consumed;
        if (split.split_at !== null) parallel = { file: segment.file, split_at: split.split_at, merged: split.merged };
      } else {
        consumed = await read(segment.offset);
      }
      doneBefore += Math.max(0, consumed - segment.offset);
      cap.record(segment, consumed, limit);
      if (cap.reached) break;
    }
    // The cursor moves to where reading stopped: the current file, or a rotated copy the cap cut short
    // (the next run finds that copy by the cursor's fingerprint and finishes it first).
    cursors[file] = await buildCursor(cursorFile, file, consumed, latestOf(parseTimestamp(input.state.cursors[file]?.last_timestamp ?? null), fold.takeLatest()), planContext);
    noticeMostlyInvalid(file, lines.valid - before.valid, lines.invalid - before.invalid, notices);
  }

  ctx.progress?.finish();
  if (cap.notice) notices.push(cap.notice);
  const { builder } = fold;
  const miner = new TemplateMiner(input.state.templates);
  const baselines = fold.detector.finish();
  if (fold.detector.untracked > 0) {
    notices.push(`${fold.detector.untracked} successful calls of tools beyond the first 10,000 tool names were not checked for slowness: a night with this many tool names looks like a broken log or an attack.`);
  }
  if (builder.overflow > 0) {
    notices.push(`${builder.overflow} events belonged to clusters beyond max_clusters (${settings.max_clusters}) and were not clustered: the night kept its heaviest clusters and dropped the ${builder.evicted} lightest (any cluster with more than 1 in ${settings.max_clusters} of the night's events is kept). A night with this many distinct patterns looks like a broken log or an attack.`);
  }
  const followUps = fold.settleSecrets();
  const clusters = clustersByTemplate(builder, miner, fold.limits, followUps, widenedCoverageGuard(Object.values(input.state.rules), () => miner.merged()));
  if (miner.dropped() > 0 || miner.unsaved() > 0) notices.push(templateCapNotice(miner.dropped(), miner.unsaved()));
  const usage = { ...fold.usage.finish(fold.toolName), ...(fold.effect ? { effects: fold.effect.finish() } : {}) };
  if (fold.effect?.full) notices.push('More than 10,000 sessions were shown rules tonight: the calls of the sessions past that were not counted as exposed (a night with this many sessions looks like a broken log or an attack).');
  // Counted once every stored name has been checked (usage names last).
  const replaced = fold.ids.counts();
  if (Object.keys(replaced).length > 0) lines.identifiers_replaced = replaced;
  return {
    ...input,
    lines,
    invalidSamples: fold.invalidSamples,
    clusters,
    templates: miner.toState(),
    templateMerges: miner.merged(),
    dropped: { clusters: builder.evicted, events: builder.overflow, templates: miner.dropped(), templates_unsaved: miner.unsaved() },
    baselines,
    cursors,
    notices: [...input.notices, ...notices],
    window: { from: iso(fold.window.from), to: iso(fold.window.to) },
    usage,
    parallel,
  };
}

/** The failure rules in memory, keyed as the hook keys them: whose exposures tonight's calls are counted for. */
function followedRules(state: State): RuleEffectInput {
  const { rules, templates } = buildHookIndex('', state, null);
  const inMemory = Object.fromEntries(Object.entries(rules).filter(([, rule]) => rule.kind === 'failure' && IN_TARGET.includes(rule.state)));
  return { rules: inMemory, templates };
}

/** The template caps at work (a flood of distinct error lines): what gave way, and what state leaves out. */
function templateCapNotice(dropped: number, unsaved: number): string {
  const parts = [
    ...(dropped > 0 ? [`${dropped} error templates gave way to heavier ones at the template caps`] : []),
    ...(unsaved > 0 ? [`${unsaved} of the lightest templates are not kept in state`] : []),
  ];
  return `${parts.join('; ')}: a failure that repeats keeps its template, one-off lines are learnt afresh if they come again. This many distinct error lines looks like a broken log or an attack.`;
}

/**
 * A log that is not there: new when no run has read it, gone when the cursor shows an earlier run did.
 * The cursor is kept either way, so a log that comes back (or a rotated copy) continues where it stopped.
 */
function missingLogNotice(file: string, cursor: Cursor | undefined): string {
  if (!cursor) return `${file}: no telemetry file yet; nothing to read.`;
  const last = cursor.last_timestamp ? `, last event ${cursor.last_timestamp}` : '';
  return `${file}: not found, but an earlier run read it (up to byte ${cursor.offset}${last}): it was deleted, moved or rotated away. Nothing was read and the cursor is kept; if it moved, point \`logs\` in config/sleep-cycle.yaml (or --log) at its new place.`;
}

/** A file of mostly invalid lines is usually the wrong file (a transcript, another format): say so. */
function noticeMostlyInvalid(file: string, valid: number, invalid: number, notices: string[]): void {
  if (invalid > 0 && invalid >= valid) {
    notices.push(`${file}: ${invalid} of ${valid + invalid} lines are not telemetry events. Is it the right file? Transcripts and hook payloads need converting first.`);
  }
}

function displayPath(root: string, path: string): string {
  const rel = isAbsolute(path) ? relative(root, path) : relative(root, resolve(root, path));
  return rel.split('\\').join('/');
}

function latestOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
