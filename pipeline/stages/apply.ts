import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { FileChange, Plan } from './plan.js';

export interface Written {
  written: string[];
}

/**
 * Writes the report; the only write a dry run makes. A real run with nothing to change keeps the
 * report that is there: it may belong to an interrupted run whose files this run is about to commit.
 */
export async function writeReport<I extends { reportText: string; plan: Plan }>(input: I, ctx: RunContext): Promise<I & { reportPath: string }> {
  if (ctx.options.dryRun || input.plan.changes.length > 0) {
    const path = resolve(ctx.root, ctx.settings.report_file);
    await ctx.fs.removeStaleTemps(path);
    await ctx.fs.writeAtomic(path, input.reportText);
  }
  return { ...input, reportPath: ctx.settings.report_file };
}

/**
 * apply: writes the planned files atomically in plan order — memory and skills first, state last —
 * so a crash before the state write re-runs the same night, and the plan's id check keeps it idempotent.
 */
export async function apply<I extends { plan: Plan; reportPath: string; skillTexts: Record<string, string | undefined> }>(
  input: I,
  ctx: RunContext,
): Promise<I & Written> {
  // Temp files a killed run left next to the files sleep-cycle manages, even on a night with nothing to write.
  const { settings } = ctx;
  const managed = [settings.memory_file, settings.report_file, settings.archive_file, `${settings.state_dir}/state.json`, `${settings.state_dir}/lifecycle.jsonl`,
    ...Object.keys(input.skillTexts).map((skill) => `${settings.skills_dir}/${skill}.yaml`)];
  for (const path of managed) await ctx.fs.removeStaleTemps(resolve(ctx.root, path));
  await applyChanges(ctx, input.plan.changes);
  return { ...input, written: [input.reportPath, ...input.plan.changes.map((change) => change.path)] };
}

/** Writes file changes in order, each atomically. Shared by `run` and `review`. */
export async function applyChanges(ctx: Pick<RunContext, 'fs' | 'root'>, changes: FileChange[]): Promise<void> {
  for (const change of changes) {
    const path = resolve(ctx.root, change.path);
    // Temp files a killed run left next to this file: never renamed into place, safe to drop.
    await ctx.fs.removeStaleTemps(path);
    await ctx.fs.writeAtomic(path, change.content);
  }
}
