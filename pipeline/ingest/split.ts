import type { FsPort } from '../io/fs.js';
import type { Settings } from '../settings/schema.js';
import type { State } from '../memory/state.js';
import type { IngestFold } from './fold.js';
import { mergePartial, settledBy } from './merge.js';
import type { Segment } from './cursor.js';
import type { RangeFolderPort } from './range-folder.js';

/** What splitting a night needs: the filesystem, the worker, and the fold's settings. */
export interface SplitContext {
  fs: FsPort;
  settings: Settings;
  /** Folds the end of a large night's last log on another thread (absent: one thread reads everything). */
  rangeFolder?: RangeFolderPort;
}

/**
 * This thread's share of what is left after the prelude. A little more than half: the worker starts with
 * code the JIT has not compiled yet and hands its fold back by message, and with an even split it
 * finished 40 to 110 ms after this thread on the bench's million lines.
 */
const MAIN_SHARE = 0.54;
/** The prelude is read in steps of this size until the worker is ready (at least one step). */
const PRELUDE_STEP_BYTES = 1 << 20;
/** A worker slower to start than this much reading (or a quarter of the segment) gets what the prelude settled by then. */
const PRELUDE_MAX_BYTES = 16 << 20;

/**
 * The size of the segment's file when the segment is worth splitting: at least ingest_worker_min_mb to
 * read, and a worker to split with. Null otherwise.
 */
export async function splittableSize(absolute: string, offset: number, ctx: SplitContext): Promise<number | null> {
  const minBytes = ctx.settings.ingest_worker_min_mb * 1024 * 1024;
  if (!ctx.rangeFolder || minBytes <= 0) return null;
  const size = (await ctx.fs.identify(absolute))?.size ?? 0;
  return size - offset >= minBytes ? size : null;
}

/**
 * Folds a large segment with two threads. A worker is started at once; while it loads, this thread
 * folds a prelude (which settles most tools' slow thresholds and busy clusters' signatures). Then the
 * rest is split at the first line start after this thread's share (MAIN_SHARE): the worker folds from there to the end of the file,
 * given what the prelude settled, while this thread folds up to the split. The worker's fold is merged
 * in, giving exactly what one fold in order gives; if it cannot be (a cap was reached) or the worker
 * failed, this thread folds the worker's part itself. Returns the cursor offset and where it split.
 */
export async function readSplit(
  segment: Segment,
  size: number,
  fold: IngestFold,
  baselines: State['baselines'],
  ctx: SplitContext,
  read: (from: number, end?: number) => Promise<number>,
  onWorkerProgress: (bytes: number) => void,
): Promise<{ consumed: number; split_at: number | null; merged: boolean }> {
  const { settings } = ctx;
  const job = ctx.rangeFolder!.start({
    absolute: segment.absolute,
    segment: { file: segment.file, cutoff: segment.cutoff },
    settings: { sample_size: settings.sample_size, window_days: settings.window_days, max_clusters: settings.max_clusters, slow_factor: settings.slow_factor, baseline_min_samples: settings.baseline_min_samples, slow_min_ms: settings.slow_min_ms, error_categories: settings.error_categories },
    maxLineBytes: settings.max_line_bytes,
    baselines,
  }, onWorkerProgress);
  try {
    const preludeMax = Math.min(PRELUDE_MAX_BYTES, Math.floor((size - segment.offset) / 4));
    const step = Math.min(PRELUDE_STEP_BYTES, preludeMax);
    let position = segment.offset;
    for (;;) {
      const next = await read(position, position + step);
      const stuck = next === position;
      position = next;
      if (stuck || job.ready() || position - segment.offset >= preludeMax) break;
    }
    const split = await lineStartAfterShare(segment.absolute, position, size, ctx);
    if (split === null) return { consumed: await read(position), split_at: null, merged: false };
    job.go({ offset: split, ...settledBy(fold) });
    const mine = await read(position, split);
    // The file changed under us (truncated): fold what is there, in order, here.
    if (mine !== split) return { consumed: await read(mine), split_at: split, merged: false };
    const partial = await job.result;
    if (partial !== null && mergePartial(fold, partial)) return { consumed: partial.consumed, split_at: split, merged: true };
    return { consumed: await read(split), split_at: split, merged: false };
  } finally {
    job.cancel();
  }
}

/** The start of the first line after this thread's share of [from, size), or null if there is none. */
async function lineStartAfterShare(absolute: string, from: number, size: number, ctx: SplitContext): Promise<number | null> {
  if (size <= from) return null;
  const middle = from + Math.floor((size - from) * MAIN_SHARE);
  const probe = (await ctx.fs.readRange(absolute, middle, 1 << 20)) ?? Buffer.alloc(0);
  const newline = probe.indexOf(0x0a);
  return newline === -1 ? null : middle + newline + 1;
}
