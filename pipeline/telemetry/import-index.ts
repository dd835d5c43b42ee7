import { errors } from '../model/errors.js';
import type { FsPort } from '../io/fs.js';
import { isRecord } from './import-source.js';

/**
 * `.sleep-cycle/imported.json`: which calls each source file already contributed, so importing a file
 * again appends nothing twice. A key is checked against every file's keys, so the same session seen
 * as a `.jsonl` and as a JSON-array dump is imported once.
 *
 * Bounded: above `MAX_INDEX_KEYS` keys the files imported longest ago are forgotten first (re-importing
 * one of those would append its calls again; the bound keeps the file a few MB at most).
 */
export interface ImportedFile {
  format: string;
  imported_at: string;
  keys: string[];
}

export interface ImportIndex {
  version: 1;
  files: Record<string, ImportedFile>;
}

export const MAX_INDEX_KEYS = 100_000;

export function emptyImportIndex(): ImportIndex {
  return { version: 1, files: {} };
}

export function parseImportIndex(text: string | undefined, path: string): ImportIndex {
  if (text === undefined || text.trim() === '') return emptyImportIndex();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.files) || !Object.values(value.files).every(isImportedFile)) {
    throw errors.state(path, 'is not a valid import index (expected {"version": 1, "files": {...}})', 'Delete it to start over; files imported before would then be appended again');
  }
  return { version: 1, files: value.files as Record<string, ImportedFile> };
}

function isImportedFile(value: unknown): value is ImportedFile {
  return isRecord(value) && typeof value.format === 'string' && typeof value.imported_at === 'string' && Array.isArray(value.keys) && value.keys.every((k) => typeof k === 'string');
}

/** Pretty, with files sorted: a stable diff when the state folder is committed. */
export function renderImportIndex(index: ImportIndex): string {
  const files = Object.fromEntries(Object.keys(index.files).sort().map((file) => [file, index.files[file]]));
  return `${JSON.stringify({ version: 1, files }, null, 2)}\n`;
}

export function importedKeys(index: ImportIndex): Set<string> {
  const keys = new Set<string>();
  for (const entry of Object.values(index.files)) for (const key of entry.keys) keys.add(key);
  return keys;
}

/** The index with `keys` recorded for `file`, bounded to `maxKeys` (pure). */
export function addImportedKeys(index: ImportIndex, file: string, format: string, keys: string[], now: Date, maxKeys = MAX_INDEX_KEYS): ImportIndex {
  const files = { ...index.files };
  const previous = files[file]?.keys ?? [];
  files[file] = { format, imported_at: now.toISOString(), keys: [...previous, ...keys].slice(-maxKeys) };
  let total = Object.values(files).reduce((sum, entry) => sum + entry.keys.length, 0);
  const oldestFirst = Object.keys(files)
    .filter((path) => path !== file)
    .sort((a, b) => files[a]!.imported_at.localeCompare(files[b]!.imported_at) || (a < b ? -1 : 1));
  for (const path of oldestFirst) {
    if (total <= maxKeys) break;
    total -= files[path]!.keys.length;
    delete files[path];
  }
  return { version: 1, files };
}

export async function readImportIndex(fs: FsPort, path: string): Promise<ImportIndex> {
  return parseImportIndex(await fs.readText(path), path);
}

export async function writeImportIndex(fs: FsPort, path: string, index: ImportIndex): Promise<void> {
  await fs.writeAtomic(path, renderImportIndex(index));
}
