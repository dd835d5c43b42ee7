import { createHash } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { Cursor, State } from '../memory/state.js';
import { checkEventTime, parseTimestamp, type InvalidReason, type TelemetryEvent } from '../telemetry/event.js';
import { ClusterBuilder, toolNameCleaner, type Cluster } from './cluster.js';
import { isFailure, SlowDetector } from './filter.js';
import { UsageCounter, type UsageSummary } from '../telemetry/usage.js';

export interface LineCounts {
  read: number;
  valid: number;
  invalid: number;
  old: number;
  blank: number;
  invalid_by_reason: Partial<Record<InvalidReason, number>>;
}

export interface InvalidLine {
  file: string;
  offset: number;
  reason: InvalidReason;
}

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
}

const MAX_INVALID_SAMPLES = 20;
const HEAD_BYTES = 1024;
const TAIL_BYTES = 256;

/**
 * ingest (+ filter + cluster, streamed): reads only the lines appended since the last sleep, counts
 * every line, and folds each valid event straight into the slow detector and the cluster builder so
 * memory stays bounded by the number of clusters, not by the size of the log.
 */
export async function ingest<I extends { state: State; notices: string[] }>(input: I, ctx: RunContext): Promise<I & IngestResult> {
  const { settings } = ctx;
  const lines: LineCounts = { read: 0, valid: 0, invalid: 0, old: 0, blank: 0, invalid_by_reason: {} };
  const invalidSamples: InvalidLine[] = [];
  const toolName = toolNameCleaner();
  const builder = new ClusterBuilder({ sampleSize: settings.sample_size, maxClusters: settings.max_clusters }, toolName);
  const detector = new SlowDetector(input.state.baselines, {
    slowFactor: settings.slow_factor,
    minSamples: settings.baseline_min_samples,
    minMs: settings.slow_min_ms,
  }, (call) => builder.add('slow', call.event, call.ts, call.ref, call.baseline), toolName);
  const usage = new UsageCounter();
  const cursors: Record<string, Cursor> = { ...input.state.cursors };
  const notices: string[] = [];
  const window = { from: null as number | null, to: null as number | null };

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
  let doneBefore = 0;
  for (const { file, absolute, segments } of plans) {
    const before = { valid: lines.valid, invalid: lines.invalid };
    let lastTs = parseTimestamp(input.state.cursors[file]?.last_timestamp ?? null);
    let consumed = 0;
    for (const segment of segments) {
      const countInvalid = (reason: InvalidReason, offset: number): void => {
        lines.invalid += 1;
        lines.invalid_by_reason[reason] = (lines.invalid_by_reason[reason] ?? 0) + 1;
        if (invalidSamples.length < MAX_INVALID_SAMPLES) invalidSamples.push({ file: segment.file, offset, reason });
      };
      const progress = ctx.progress;
      const onProgress = progress ? (bytes: number) => progress.update(doneBefore + bytes) : undefined;
      consumed = await ctx.fs.readLines(segment.absolute, segment.offset, { maxLineBytes: settings.max_line_bytes, ...(segment.final ? { final: true } : {}), ...(onProgress ? { onProgress } : {}) }, (line) => {
        if (!line.tooLong && line.text.trim() === '') {
          lines.blank += 1;
          return;
        }
        lines.read += 1;
        if (line.tooLong) return countInvalid('line_too_long', line.offset);
        let value: unknown;
        try {
          value = JSON.parse(line.text);
        } catch {
          return countInvalid('invalid_json', line.offset);
        }
        const ts = checkEventTime(value);
        if (typeof ts !== 'number') return countInvalid(ts, line.offset);
        const event = value as TelemetryEvent;
        if (segment.cutoff !== null && ts <= segment.cutoff) {
          lines.old += 1;
          return;
        }
        lines.valid += 1;
        if (lastTs === null || ts > lastTs) lastTs = ts;
        window.from = window.from === null || ts < window.from ? ts : window.from;
        window.to = window.to === null || ts > window.to ? ts : window.to;
        usage.add(event, ts);
        if (isFailure(event)) builder.add('failure', event, ts, { file: segment.file, offset: line.offset });
        else if (event.exit_code === 0) detector.observe(event, ts, segment.file, line.offset);
      });
      doneBefore += Math.max(0, consumed - segment.offset);
    }
    // The last segment is always the current file: the cursor moves to where it was left.
    cursors[file] = await buildCursor(absolute, file, consumed, lastTs, ctx);
    noticeMostlyInvalid(file, lines.valid - before.valid, lines.invalid - before.invalid, notices);
  }

  ctx.progress?.finish();
  const baselines = detector.finish();
  if (builder.overflow > 0) {
    notices.push(`${builder.overflow} events belonged to clusters beyond max_clusters (${settings.max_clusters}) and were not clustered: a night with this many distinct patterns looks like a broken log or an attack.`);
  }
  return {
    ...input,
    lines,
    invalidSamples,
    clusters: builder.finish(),
    baselines,
    cursors,
    notices: [...input.notices, ...notices],
    window: { from: iso(window.from), to: iso(window.to) },
    usage: usage.finish(toolName),
  };
}

/** A file of mostly invalid lines is usually the wrong file (a transcript, another format): say so. */
function noticeMostlyInvalid(file: string, valid: number, invalid: number, notices: string[]): void {
  if (invalid > 0 && invalid >= valid) {
    notices.push(`${file}: ${invalid} of ${valid + invalid} lines are not telemetry events. Is it the right file? Transcripts and hook payloads need converting first.`);
  }
}

/** A stretch of one file to read: from a byte offset, keeping only events after `cutoff` (epoch ms). */
interface Segment {
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

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
