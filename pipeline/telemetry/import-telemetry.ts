import { isAbsolute, relative } from 'node:path';
import type { FsPort } from '../io/fs.js';
import { appendTelemetry } from './append.js';
import type { CategoryPattern } from './classify.js';
import type { TelemetryEvent } from './event.js';
import { isClaudeCodeTranscript, readClaudeCodeCalls } from './import-claude-code.js';
import { addImportedKeys, importedKeys, readImportIndex, writeImportIndex } from './import-index.js';
import { isMiniSweAgentTrajectory, readMiniSweAgentCalls } from './import-mini-swe-agent.js';
import { countItem, emptyCounts, listSourceFiles, type ImportItem, type SourceCounts } from './import-source.js';

export type ImportFormat = 'claude-code' | 'mini-swe-agent';

interface FormatReader {
  accepts(name: string): boolean;
  read(file: string, options: { extraCategories?: readonly CategoryPattern[] }): AsyncGenerator<ImportItem>;
}

const READERS: Record<ImportFormat, FormatReader> = {
  'claude-code': { accepts: isClaudeCodeTranscript, read: readClaudeCodeCalls },
  'mini-swe-agent': { accepts: isMiniSweAgentTrajectory, read: readMiniSweAgentCalls },
};

export const IMPORT_FORMATS = Object.keys(READERS) as ImportFormat[];

export function isImportFormat(value: string): value is ImportFormat {
  return Object.hasOwn(READERS, value);
}

export interface ImportOptions {
  format: ImportFormat;
  /** A file, or a folder searched recursively for the format's files. Absolute. */
  source: string;
  /** The telemetry file to append to. Absolute. */
  logPath: string;
  /** `.sleep-cycle/imported.json`. Absolute. */
  indexPath: string;
  /** Paths in the index are relative to this folder when inside it. */
  root: string;
  fs: FsPort;
  now: Date;
  /** Events per append (one write each). */
  batchSize?: number;
  extraCategories?: readonly CategoryPattern[];
}

export interface ImportSummary extends SourceCounts {
  format: ImportFormat;
  files: number;
  appended: number;
  /** Of `appended`, the agent's malformed actions (their own `format_error` events); the rest are calls. */
  appended_format_errors: number;
  skipped_duplicates: number;
}

/**
 * Converts every source file and appends the calls not imported before, in batches of one write each.
 * After each batch the index records its keys (atomic write): a crash in between can at worst append
 * that one batch again, never lose a call.
 */
export async function importTelemetry(options: ImportOptions): Promise<ImportSummary> {
  const reader = READERS[options.format];
  const files = await listSourceFiles(options.source, reader.accepts, [options.logPath, options.indexPath]);
  let index = await readImportIndex(options.fs, options.indexPath);
  const seen = importedKeys(index);
  const summary: ImportSummary = { format: options.format, files: files.length, ...emptyCounts(), appended: 0, appended_format_errors: 0, skipped_duplicates: 0 };
  const batchSize = options.batchSize ?? 500;
  for (const file of files) {
    const display = displayPath(options.root, file);
    let events: TelemetryEvent[] = [];
    let keys: string[] = [];
    let formatErrors = 0;
    const flush = async (): Promise<void> => {
      if (events.length === 0) return;
      await appendTelemetry(options.logPath, events);
      summary.appended += events.length;
      summary.appended_format_errors += formatErrors;
      index = addImportedKeys(index, display, options.format, keys, options.now);
      await writeImportIndex(options.fs, options.indexPath, index);
      events = [];
      keys = [];
      formatErrors = 0;
    };
    for await (const item of reader.read(file, { extraCategories: options.extraCategories ?? [] })) {
      countItem(summary, item);
      if (item.kind === 'skipped') continue;
      if (seen.has(item.key)) {
        summary.skipped_duplicates += 1;
        continue;
      }
      seen.add(item.key);
      events.push(item.event);
      keys.push(item.key);
      if (item.kind === 'format_error') formatErrors += 1;
      if (events.length >= batchSize) await flush();
    }
    await flush();
  }
  return summary;
}

function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split('\\').join('/');
}

