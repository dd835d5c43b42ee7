import { createHash } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { Cursor, State } from '../memory/state.js';
import { checkEventTime, parseTimestamp } from '../telemetry/event.js';
import type { Cluster } from './cluster.js';
import { IngestFold, type InvalidLine, type LineCounts } from './ingest-fold.js';
import { readSplit, splittableSize } from './ingest-split.js';
import type { UsageSummary } from '../telemetry/usage.js';

export type { InvalidLine, LineCounts } from './ingest-fold.js';

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
}

export interface ParallelIngest {
  file: string;
  split_at: number;
  /** False when this thread folded the worker's part itself (a cap was reached, or the worker failed). */
  merged: boolean;
}

const HEAD_BYTES = 1024;
/** A night at least this large is read with the event scanner from its first line. */
const SCAN_AT_ONCE_BYTES = 8 << 20;
const TAIL_BYTES = 256;

/**
 * ingest (+ filter + cluster, streamed): reads only the lines appended since the last sleep, counts
 * every line, and folds each valid event straight into the slow detector and the cluster builder so
 * memory stays bounded by the number of clusters, not by the size of the log.
 */
export async function ingest<I extends { state: State; notices: string[] }>(input: I, ctx: RunContext): Promise<I & IngestResult> {
  const { settings } = ctx;
  const cursors: Record<string, Cursor> = { ...input.state.cursors };
  const notices: string[] = [];

  const plans: { file: string; absolute: string; segments: Segment[] }[] = [];
  for (const logPath of settings.logs) {
    const file = displayPath(ctx.root, logPath);
    const absolute = resolve(ctx.root, logPath);
    const segments = await planReads(absolute, file, input.state, ctx, notices);
    if (segments !== null) plans.push({ file, absolute, segments });
  }
  // Bytes to read, for the progress bar (a gzipped copy counts its compressed size: an estimate).
  let total = 0;
  for (const { segments } of plans) for (const segment of segments) total += Math.max(0, ((await ctx.fs.identify(segment.absolute))?.size ?? 0) - segment.offset);
  ctx.progress?.start(total);
  // A small night is read with JSON.parse first: the event scanner is faster only once compiled.
  const fold = new IngestFold(settings, input.state.baselines, total >= SCAN_AT_ONCE_BYTES ? { scanAfterLines: 0 } : {});
  const { lines } = fold;
  let doneBefore = 0;
  let parallel: ParallelIngest | null = null;
  for (const { file, absolute, segments } of plans) {
    const before = { valid: lines.valid, invalid: lines.invalid };
    fold.takeLatest();
    let consumed = 0;
    for (const segment of segments) {
      let workerBytes = 0;
      const progress = ctx.progress;
      // Folds [from, end) of the segment here; the progress bar counts what the worker read too.
      const read = (from: number, end?: number): Promise<number> => {
        const onProgress = progress ? (bytes: number) => progress.update(doneBefore + from - segment.offset + bytes + workerBytes) : undefined;
        const options = { maxLineBytes: settings.max_line_bytes, ...(segment.final ? { final: true } : {}), ...(end !== undefined ? { end } : {}), ...(onProgress ? { onProgress } : {}) };
        return ctx.fs.readLines(segment.absolute, from, options, (line) => fold.line(line, segment));
      };
      // The night's last file, when large, is read by two threads (ingest-split.ts).
      const last = segment === plans.at(-1)?.segments.at(-1);
      const size = last && !segment.final ? await splittableSize(segment.absolute, segment.offset, ctx) : null;
      if (size !== null) {
        const split = await readSplit(segment, size, fold, input.state.baselines, ctx, read, (bytes) => (workerBytes = bytes));
        consumed = split.consumed;
        if (split.split_at !== null) parallel = { file: segment.file, split_at: split.split_at, merged: split.merged };
      } else {
        consumed = await read(segment.offset);
      }
      doneBefore += Math.max(0, consumed - segment.offset);
    }
    // The last segment is always the current file: the cursor moves to where it was left.
    cursors[file] = await buildCursor(absolute, file, consumed, latestOf(parseTimestamp(input.state.cursors[file]?.last_timestamp ?? null), fold.takeLatest()), ctx);
    noticeMostlyInvalid(file, lines.valid - before.valid, lines.invalid - before.invalid, notices);
  }

  ctx.progress?.finish();
  const { builder } = fold;
  const baselines = fold.detector.finish();
  if (fold.detector.untracked > 0) {
    notices.push(`${fold.detector.untracked} successful calls of tools beyond the first 10,000 tool names were not checked for slowness: a night with this many tool names looks like a broken log or an attack.`);
  }
  if (builder.overflow > 0) {
    notices.push(`${builder.overflow} events belonged to clusters beyond max_clusters (${settings.max_clusters}) and were not clustered: a night with this many distinct patterns looks like a broken log or an attack.`);
  }
  return {
    ...input,
    lines,
    invalidSamples: fold.invalidSamples,
    clusters: builder.finish(),
    baselines,
    cursors,
    notices: [...input.notices, ...notices],
    window: { from: iso(fold.window.from), to: iso(fold.window.to) },
    usage: fold.usage.finish(fold.toolName),
    parallel,
  };
}

/** A file of mostly invalid lines is usually the wrong file (a transcript, another format): say so. */
function noticeMostlyInvalid(file: string, valid: number, invalid: number, notices: string[]): void {
  if (invalid > 0 && invalid >= valid) {
    notices.push(`${file}: ${invalid} of ${valid + invalid} lines are not telemetry events. Is it the right file? Transcripts and hook payloads need converting first.`);
  }
}

/** A stretch of one file to read: from a byte offset, keeping only events after `cutoff` (epoch ms). */
export interface Segment {
  absolute: string;
  file: string;
  offset: number;
  cutoff: number | null;
  /** A rotated copy: finished, so a last line without a newline is read too. */
  final?: boolean;
}

/** The rotated copies of a log (settings.rotated_logs, next to it), oldest first by modification time. */
async function rotatedCopies(absolute: string, ctx: RunContext): Promise<{ path: string; mtimeMs: number }[]> {
  const dir = dirname(absolute);
  const pattern = globToRegExp(ctx.settings.rotated_logs.replaceAll('{log}', basename(absolute)));
  // Compressions we cannot read are left alone rather than read as text.
  const names = ((await ctx.fs.list(dir)) ?? []).filter((name) => pattern.test(name) && name !== basename(absolute) && !UNREADABLE.test(name));
  const copies: { path: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const identity = await ctx.fs.identify(join(dir, name));
    if (identity) copies.push({ path: join(dir, name), mtimeMs: identity.mtimeMs });
  }
  // Same modification time: logrotate numbers older copies higher (.10 is older than .9).
  return copies.sort((a, b) => a.mtimeMs - b.mtimeMs || b.path.localeCompare(a.path, 'en', { numeric: true }));
}

const UNREADABLE = /\.(?:zst|bz2|xz|lz4|lzma|zip|7z|br)$/i;

/**
 * Index of the copy whose content before the cursor is the content the cursor was taken on, or -1. A
 * copy whose start the live log shares is a backup (`sed -i.bak`), not a rotation: the live file still
 * holds the old lines, so that case goes to the timestamp fallback instead of reading them twice.
 */
async function findCursorFile(absolute: string, copies: { path: string }[], cursor: Cursor, ctx: RunContext): Promise<number> {
  // Newest first: the file rotated last is the one most likely to hold the cursor.
  for (let i = copies.length - 1; i >= 0; i--) {
    if (!(await matchesCursor(copies[i]!.path, cursor, ctx))) continue;
    const length = Math.min(cursor.offset, HEAD_BYTES);
    const live = (await ctx.fs.readRange(absolute, 0, length)) ?? Buffer.alloc(0);
    const copy = (await ctx.fs.readRange(copies[i]!.path, 0, length)) ?? Buffer.alloc(0);
    if (live.length > 0 && live.equals(copy.subarray(0, live.length))) return -1;
    // A rotated-away log leaves a new file of new events; one that starts with an event older than the
    // cursor's last one is the old log rewritten in place (edited, restored), not a rotation.
    const first = await firstEventTime(absolute, ctx);
    const last = parseTimestamp(cursor.last_timestamp);
    if (first !== null && last !== null && first < last) return -1;
    return i;
  }
  return -1;
}

/** `*` is any characters, `[0-9]` a character class; everything else is literal. */
/** The time of the first line of a file, when that line is a telemetry event (else null). */
async function firstEventTime(absolute: string, ctx: RunContext): Promise<number | null> {
  const head = (await ctx.fs.readRange(absolute, 0, 64 * 1024)) ?? Buffer.alloc(0);
  const end = head.indexOf(0x0a);
  if (end <= 0) return null;
  try {
    const ts = checkEventTime(JSON.parse(head.toString('utf8', 0, end)));
    return typeof ts === 'number' ? ts : null;
  } catch {
    return null;
  }
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*|\[[^\]/]+\])/)
    .map((part) => (part === '*' ? '.*' : /^\[[^\]/]+\]$/.test(part) ? part : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * Where to read. Normally from the cursor. If the file was rotated (renamed to `<file>.1` and started
 * anew), the rotated file is finished from the cursor, then the new one read from its start. If it was
 * truncated or replaced, the whole file is read and events up to the last one seen count as old.
 */
async function planReads(absolute: string, file: string, state: State, ctx: RunContext, notices: string[]): Promise<Segment[] | null> {
  const identity = await ctx.fs.identify(absolute);
  if (!identity) {
    notices.push(`${file}: no telemetry file yet; nothing to read.`);
    return null;
  }
  const whole = (cutoff: number | null): Segment[] => [{ absolute, file, offset: 0, cutoff }];
  if (ctx.options.since !== undefined) {
    notices.push(`${file}: --since ${ctx.options.since}: read from the start, keeping lines after that time.`);
    return whole(parseTimestamp(ctx.options.since)! - 1);
  }
  const cursor = state.cursors[file];
  if (!cursor) return whole(null);
  if (identity.size >= cursor.offset && (await matchesCursor(absolute, cursor, ctx))) return [{ absolute, file, offset: cursor.offset, cutoff: null }];
  // Rotated: the file the cursor points into is among the rotated copies. Finish it from the cursor, read
  // every copy rotated after it (oldest first), then the new file from its start.
  const rotated = await rotatedCopies(absolute, ctx);
  const at = await findCursorFile(absolute, rotated, cursor, ctx);
  if (at !== -1) {
    const later = rotated.slice(at + 1);
    const name = (path: string) => `${file.slice(0, file.length - basename(absolute).length)}${basename(path)}`;
    notices.push(`${file}: the log was rotated: finished ${name(rotated[at]!.path)} from byte ${cursor.offset}${later.length > 0 ? `, read ${later.map((r) => name(r.path)).join(', ')}` : ''}, then the new ${file} from the start.`);
    return [
      { absolute: rotated[at]!.path, file: name(rotated[at]!.path), offset: cursor.offset, cutoff: null, final: true },
      ...later.map((r) => ({ absolute: r.path, file: name(r.path), offset: 0, cutoff: null, final: true })),
      ...whole(null),
    ];
  }
  const after = cursor.last_timestamp ?? state.last_sleep ?? 'the beginning';
  const why = identity.size < cursor.offset ? `the file shrank below the cursor (${identity.size} < ${cursor.offset} bytes): it was truncated or replaced` : 'the content before the cursor changed: the file was replaced';
  notices.push(`${file}: ${why}, so lines were chosen by timestamp (after ${after}).`);
  return whole(parseTimestamp(cursor.last_timestamp) ?? parseTimestamp(state.last_sleep));
}

async function matchesCursor(absolute: string, cursor: Cursor, ctx: RunContext): Promise<boolean> {
  const [head, tail] = await fingerprint(absolute, cursor.offset, ctx);
  return head === cursor.head_sha && tail === cursor.tail_sha;
}

async function buildCursor(absolute: string, file: string, offset: number, lastTs: number | null, ctx: RunContext): Promise<Cursor> {
  const [head_sha, tail_sha] = await fingerprint(absolute, offset, ctx);
  return { path: file, offset, head_sha, tail_sha, last_timestamp: iso(lastTs) };
}

async function fingerprint(absolute: string, offset: number, ctx: RunContext): Promise<[string, string]> {
  const head = (await ctx.fs.readRange(absolute, 0, Math.min(offset, HEAD_BYTES))) ?? Buffer.alloc(0);
  const tailStart = Math.max(0, offset - TAIL_BYTES);
  const tail = (await ctx.fs.readRange(absolute, tailStart, offset - tailStart)) ?? Buffer.alloc(0);
  return [sha16(head), sha16(tail)];
}

function sha16(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
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
