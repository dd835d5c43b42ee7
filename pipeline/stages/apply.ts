import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { Plan } from './plan.js';
import { applyChanges } from '../io/apply-changes.js';
import { skillPath } from '../model/rule-target.js';

export interface Written {
  written: string[];
}

/**
 * apply: writes the planned files atomically in plan order — memory and skills first, state last —
 * so a crash before the state write re-runs the same night, and the plan's id check keeps it idempotent.
 */
export async function apply<I extends { plan: Plan; reportPath: string; reportWritten: boolean; skillTexts: Record<string, string | undefined> }>(
  input: I,
  ctx: RunContext,
): Promise<I & Written> {
  // Temp files a killed run left next to the files sleep-cycle manages, even on a night with nothing to write.
  const { settings } = ctx;
  const managed = [settings.memory_file, settings.report_file, settings.archive_file, `${settings.state_dir}/state.json`, `${settings.state_dir}/lifecycle.jsonl`,
    ...Object.keys(input.skillTexts).map((skill) => skillPath(skill, settings))];
  for (const path of managed) await ctx.fs.removeStaleTemps(resolve(ctx.root, path));
  await applyChanges(ctx, input.plan.changes);
  // Only what this run wrote: the report is kept as it was on a night with nothing to change.
  const report = input.reportWritten ? [input.reportPath] : [];
  return { ...input, written: [...report, ...input.plan.changes.map((change) => change.path)] };
}
