import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { stripControls } from '../model/control-chars.js';
import type { Plan } from './plan.js';
import type { LlmCacheEntry } from '../memory/state-types.js';
import { parseAnswerCache, serializeAnswerCache } from '../memory/answer-cache.js';
import { repoPaths } from '../io/paths.js';
import { trimCache } from './synthesize.js';

/**
 * Writes the report, and on a dry run the answers Claude gave (so the run that applies the preview does not
 * pay for them again): the only writes a dry run makes. A real run with nothing to change keeps the report
 * that is there: it may belong to an interrupted run whose files this run is about to commit.
 */
export async function writeReport<I extends { reportText: string; plan: Plan; newAnswers?: Record<string, LlmCacheEntry> }>(input: I, ctx: RunContext): Promise<I & ReportWritten> {
  const reportWritten = ctx.options.dryRun || input.plan.changes.length > 0;
  if (reportWritten) {
    const path = resolve(ctx.root, ctx.settings.report_file);
    await ctx.fs.removeStaleTemps(path);
    // The report is the nightly PR's body: no escape sequence or bidi override from a log reaches a reviewer.
    await ctx.fs.writeAtomic(path, stripControls(input.reportText));
  }
  if (ctx.options.dryRun && input.newAnswers && Object.keys(input.newAnswers).length > 0) await keepAnswers(input.newAnswers, ctx);
  return { ...input, reportPath: ctx.settings.report_file, reportWritten };
}

async function keepAnswers(answers: Record<string, LlmCacheEntry>, ctx: RunContext): Promise<void> {
  const path = repoPaths(ctx.root, ctx.settings).answers;
  const kept = parseAnswerCache(await ctx.fs.readText(path));
  await ctx.fs.writeAtomic(path, serializeAnswerCache(trimCache({ ...kept, ...answers })));
}

export interface ReportWritten {
  reportPath: string;
  /** False on a real night with nothing to change: the file there describes an earlier run. */
  reportWritten: boolean;
}
