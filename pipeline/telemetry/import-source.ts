import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errors } from '../model/errors.js';
import { redact } from '../safety/redact.js';
import type { TelemetryEvent } from './event.js';

/**
 * What an importer yields while it reads one source file: a converted tool call, an agent's malformed
 * action (its own `format_error` event), or something it deliberately did not convert. `key` is stable
 * across re-imports (a tool_use id, `<instance>:<step>`) so the same call is never appended twice.
 */
export type ImportItem =
  | { kind: 'call'; key: string; event: TelemetryEvent }
  | { kind: 'format_error'; key: string; event: TelemetryEvent }
  | { kind: 'skipped'; reason: SkipReason };

/**
 * `cancelled`: a parallel call Claude Code cancelled because a sibling failed (not a failure of its own);
 * `unpaired`: a call without a result, or a result without its call (a session still running, a cut file);
 * `invalid`: a line or array element that is not a transcript object.
 */
export type SkipReason = 'cancelled' | 'unpaired' | 'invalid';

/** Counts of what the source files hold, before de-duplication against earlier imports. */
export interface SourceCounts {
  /** Tool calls converted into events (format errors are counted apart). */
  calls: number;
  /** Calls with a non-zero exit code, `benign` ones included. */
  failures: number;
  /** Failures classified `benign` (a search that found nothing): never clustered. */
  benign: number;
  excluded_cancelled: number;
  format_errors: number;
  unpaired: number;
  invalid: number;
}

export function emptyCounts(): SourceCounts {
  return { calls: 0, failures: 0, benign: 0, excluded_cancelled: 0, format_errors: 0, unpaired: 0, invalid: 0 };
}

export function countItem(counts: SourceCounts, item: ImportItem): void {
  if (item.kind === 'format_error') counts.format_errors += 1;
  else if (item.kind === 'skipped') {
    if (item.reason === 'cancelled') counts.excluded_cancelled += 1;
    else counts[item.reason] += 1;
  } else {
    counts.calls += 1;
    if (item.event.exit_code !== 0) counts.failures += 1;
    if (item.event.error_category === 'benign') counts.benign += 1;
  }
}

export const MAX_MESSAGE_CHARS = 2_000;

/**
 * Error text for the `error_message` field: redacted, then cut to 2,000 characters. A long text keeps its
 * head and its tail, because a traceback or a test run ends with the line that explains it. Redaction
 * runs on a bounded slice first (a tool result can be megabytes); whatever lies beyond it is dropped anyway.
 */
export function errorMessage(text: string): string {
  const bounded = text.length > 8 * MAX_MESSAGE_CHARS ? `${text.slice(0, 4 * MAX_MESSAGE_CHARS)}\n${text.slice(-4 * MAX_MESSAGE_CHARS)}` : text;
  const clean = redact(bounded.trim());
  if (clean.length <= MAX_MESSAGE_CHARS) return clean;
  const marker = '\n[…]\n';
  const half = Math.floor((MAX_MESSAGE_CHARS - marker.length) / 2);
  return `${clean.slice(0, half)}${marker}${clean.slice(clean.length - half)}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a message or tool result: a string, or the `text` of its content blocks. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * The files to import: `source` itself when it is a file, else every accepted file below it, sorted by
 * path so imports are deterministic. Symbolic links to folders are not followed (no cycles).
 */
export async function listSourceFiles(source: string, accept: (name: string) => boolean, exclude: readonly string[] = []): Promise<string[]> {
  const info = await stat(source).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
      throw errors.usage(`${source}: no such file or folder. Pass a transcript file or a folder that holds them.`, { path: source });
    }
    throw errors.io('read', source, error);
  });
  if (!info.isDirectory()) return [source];
  const skip = new Set(exclude.map((path) => resolve(path)));
  const found: string[] = [];
  await walk(source, accept, skip, found);
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function walk(dir: string, accept: (name: string) => boolean, skip: Set<string>, found: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw errors.io('list', dir, error);
  });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, accept, skip, found);
    else if (entry.isFile() && accept(entry.name) && !skip.has(resolve(path))) found.push(path);
  }
}
