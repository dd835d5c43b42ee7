import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { stripControls } from '../model/control-chars.js';
import type { Plan } from './plan.js';

/**
 * Writes the report; the only write a dry run makes. A real run with nothing to change keeps the
 * report that is there: it may belong to an interrupted run whose files this run is about to commit.
 */
export async function writeReport<I extends { reportText: string; plan: Plan }>(input: I, ctx: RunContext): Promise<I & ReportWritten> {
  const reportWritten = ctx.options.dryRun || input.plan.changes.length > 0;
  if (reportWritten) {
    const path = resolve(ctx.root, ctx.settings.report_file);
    await ctx.fs.removeStaleTemps(path);
    // The report is the nightly PR's body: no escape sequence or bidi override from a log reaches a reviewer.
    await ctx.fs.writeAtomic(path, stripControls(input.reportText));
  }
  return { ...input, reportPath: ctx.settings.report_file, reportWritten };
}

export interface ReportWritten {
  reportPath: string;
  /** False on a real night with nothing to change: the file there describes an earlier run. */
  reportWritten: boolean;
}
