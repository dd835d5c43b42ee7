import { INVALID, record, type Report } from './schema.js';
import { llmCache } from './state-schema.js';
import type { LlmCacheEntry } from './state-types.js';

/**
 * Claude's answers from dry runs (`.sleep-cycle/llm-answers.json`, not committed): a preview and the run
 * that applies it cost one call per cluster, not two. A real run keeps its answers in state.json, as
 * before; this file only carries a dry run's answers to the next run. It is a cache: a damaged file, or a
 * bad entry in it, is ignored (every cached answer is checked again like a fresh one before use).
 */
export function parseAnswerCache(text: string | undefined): Record<string, LlmCacheEntry> {
  if (text === undefined) return Object.create(null) as Record<string, LlmCacheEntry>;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return Object.create(null) as Record<string, LlmCacheEntry>;
  }
  const report: Report = { problems: [], skipped: [] };
  const entries = ANSWERS.check(data, '', report);
  return entries === INVALID ? (Object.create(null) as Record<string, LlmCacheEntry>) : entries;
}

export function serializeAnswerCache(entries: Record<string, LlmCacheEntry>): string {
  return `${JSON.stringify(entries, null, 2)}\n`;
}

const ANSWERS = record(llmCache, { onBadEntry: 'skip' });
