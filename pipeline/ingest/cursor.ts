import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { FsPort } from '../io/fs.js';
import type { Cursor, State } from '../memory/state.js';
import { checkEventTime, parseTimestamp } from '../telemetry/event.js';

/** What planning a night's reads needs: the filesystem, the rotated-copy pattern and `--since`. */
export interface ReadPlanContext {
  fs: FsPort;
  /** settings.rotated_logs: `{log}.[0-9]*` by default. */
  rotatedLogs: string;
  /** ISO-8601: read every line from this time on, ignoring the cursors. */
  since?: string;
}

const HEAD_BYTES = 1024;
const TAIL_BYTES = 256;

/** A stretch of one file to read: from a byte offset, keeping only events after `cutoff` (epoch ms). */
export interface Segment {
  absolute: string;
  file: string;
  offset: number;
  cutoff: number | null;
  /** A rotated copy: finished, so a last line without a newline is read too. */
  final?: boolean;
}

interface RotatedCopy {
  path: string;
  mtimeMs: number;
  /** logrotate's number (`<log>.3`, `<log>.3.gz`), or null for another name (a date, a custom suffix). */
  rotation: number | null;
}

/** The rotated copies of a log (settings.rotated_logs, next to it), oldest first: see orderCopies. */
async function rotatedCopies(absolute: string, ctx: ReadPlanContext): Promise<RotatedCopy[]> {
  const dir = dirname(absolute);
  const log = basename(absolute);
  const pattern = globToRegExp(ctx.rotatedLogs.replaceAll('{log}', log));
  // Compressions we cannot read are left alone rather than read as text.
  const names = ((await ctx.fs.list(dir)) ?? []).filter((name) => pattern.test(name) && name !== log && !UNREADABLE.test(name));
  const copies: RotatedCopy[] = [];
  for (const name of names) {
    const identity = await ctx.fs.identify(join(dir, name));
    if (identity) copies.push({ path: join(dir, name), mtimeMs: identity.mtimeMs, rotation: rotationNumber(name, log) });
  }
  return orderCopies(copies);
}

/** `.1`, `.2.gz`: up to five digits; longer runs of digits are dates or epochs, which count up, not down. */
function rotationNumber(name: string, log: string): number | null {
  const match = /^\.(\d{1,5})(?:\.gz)?$/.exec(name.slice(log.length));
  return name.startsWith(log) && match ? Number(match[1]) : null;
}

/**
 * Oldest first. logrotate numbers its copies (a higher number is older), and the number is what it
 * changes on each rotation, so it decides when every copy has one; a copy or archive tool can reset
 * modification times. Other names (dates, custom suffixes) fall back to the modification time.
 */
export function orderCopies<T extends { path: string; mtimeMs: number; rotation: number | null }>(copies: T[]): T[] {
  if (copies.every((copy) => copy.rotation !== null)) return [...copies].sort((a, b) => b.rotation! - a.rotation! || a.mtimeMs - b.mtimeMs);
  // Same modification time: logrotate numbers older copies higher (.10 is older than .9).
  return [...copies].sort((a, b) => a.mtimeMs - b.mtimeMs || b.path.localeCompare(a.path, 'en', { numeric: true }));
}

/** Neighbours in reading order (oldest first) whose modification times say the opposite: [older, newer]. */
function mtimeDisagreements(copies: RotatedCopy[]): [RotatedCopy, RotatedCopy][] {
  if (copies.some((copy) => copy.rotation === null)) return [];
  return copies.slice(1).flatMap((newer, i) => (copies[i]!.mtimeMs > newer.mtimeMs ? [[copies[i]!, newer] as [RotatedCopy, RotatedCopy]] : []));
}

const UNREADABLE = /\.(?:zst|bz2|xz|lz4|lzma|zip|7z|br)$/i;

/**
 * Index of the copy whose content before the cursor is the content the cursor was taken on, or -1. A
 * copy whose start the live log shares is a backup (`sed -i.bak`), not a rotation: the live file still
 * holds the old lines, so that case goes to the timestamp fallback instead of reading them twice.
 */
async function findCursorFile(absolute: string, copies: { path: string }[], cursor: Cursor, ctx: ReadPlanContext, lastSleep: string | null): Promise<number> {
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
    const last = lastSeen(cursor, lastSleep);
    if (first !== null && last !== null && first < last) return -1;
    return i;
  }
  return -1;
}

/** `*` is any characters, `[0-9]` a character class; everything else is literal. */
/** The time of the first line of a file, when that line is a telemetry event (else null). */
async function firstEventTime(absolute: string, ctx: ReadPlanContext): Promise<number | null> {
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
export async function planReads(absolute: string, file: string, state: State, ctx: ReadPlanContext, notices: string[]): Promise<Segment[] | null> {
  const identity = await ctx.fs.identify(absolute);
  if (!identity) {
    notices.push(`${file}: no telemetry file yet; nothing to read.`);
    return null;
  }
  const whole = (cutoff: number | null): Segment[] => [{ absolute, file, offset: 0, cutoff }];
  if (ctx.since !== undefined) {
    notices.push(`${file}: --since ${ctx.since}: read from the start, keeping lines after that time.`);
    return whole(parseTimestamp(ctx.since)! - 1);
  }
  const cursor = state.cursors[file];
  if (!cursor) return whole(null);
  if (identity.size >= cursor.offset && (await matchesCursor(absolute, cursor, ctx))) return [{ absolute, file, offset: cursor.offset, cutoff: null }];
  // Rotated: the file the cursor points into is among the rotated copies. Finish it from the cursor, read
  // every copy rotated after it (oldest first), then the new file from its start.
  const rotated = await rotatedCopies(absolute, ctx);
  const name = (path: string) => `${file.slice(0, file.length - basename(absolute).length)}${basename(path)}`;
  const at = await findCursorFile(absolute, rotated, cursor, ctx, state.last_sleep);
  if (at !== -1) {
    const later = rotated.slice(at + 1);
    notices.push(`${file}: the log was rotated: finished ${name(rotated[at]!.path)} from byte ${cursor.offset}${later.length > 0 ? `, read ${later.map((r) => name(r.path)).join(', ')}` : ''}, then the new ${file} from the start.`);
    for (const [older, newer] of mtimeDisagreements(rotated.slice(at))) {
      notices.push(`${name(older.path)} was modified after ${name(newer.path)}, but logrotate numbers older copies higher: read in number order (${name(older.path)} first). If another tool made these copies, set rotated_logs to a pattern that matches only logrotate's.`);
    }
    return [
      { absolute: rotated[at]!.path, file: name(rotated[at]!.path), offset: cursor.offset, cutoff: null, final: true },
      ...later.map((r) => ({ absolute: r.path, file: name(r.path), offset: 0, cutoff: null, final: true })),
      ...whole(null),
    ];
  }
  // The last event seen, but never later than the last run: a line dated in the future (year 9999) must
  // not make every line of the new file old until then. Timestamps are the log's word; the run time is ours.
  const cutoff = lastSeen(cursor, state.last_sleep);
  const after = cutoff === null ? 'the beginning' : new Date(cutoff).toISOString();
  const why = identity.size < cursor.offset ? `the file shrank below the cursor (${identity.size} < ${cursor.offset} bytes): it was truncated or replaced` : 'the content before the cursor changed: the file was replaced';
  notices.push(`${file}: ${why}, so lines were chosen by timestamp (after ${after}).`);
  return whole(cutoff);
}

/** The cursor's last event time, never later than the last run (a future-dated line is the log's word only). */
function lastSeen(cursor: Cursor, lastSleep: string | null): number | null {
  const a = parseTimestamp(cursor.last_timestamp);
  const b = parseTimestamp(lastSleep);
  return a === null ? b : b === null ? a : Math.min(a, b);
}

async function matchesCursor(absolute: string, cursor: Cursor, ctx: ReadPlanContext): Promise<boolean> {
  const [head, tail] = await fingerprint(absolute, cursor.offset, ctx);
  return head === cursor.head_sha && tail === cursor.tail_sha;
}

export async function buildCursor(absolute: string, file: string, offset: number, lastTs: number | null, ctx: ReadPlanContext): Promise<Cursor> {
  const [head_sha, tail_sha] = await fingerprint(absolute, offset, ctx);
  return { path: file, offset, head_sha, tail_sha, last_timestamp: iso(lastTs) };
}

async function fingerprint(absolute: string, offset: number, ctx: ReadPlanContext): Promise<[string, string]> {
  const head = (await ctx.fs.readRange(absolute, 0, Math.min(offset, HEAD_BYTES))) ?? Buffer.alloc(0);
  const tailStart = Math.max(0, offset - TAIL_BYTES);
  const tail = (await ctx.fs.readRange(absolute, tailStart, offset - tailStart)) ?? Buffer.alloc(0);
  return [sha16(head), sha16(tail)];
}

function sha16(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
