import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { FileChange, Plan } from './plan.js';

export interface Written {
  written: string[];
}

/** Writes the report; the only write a dry-run makes. */
export async function writeReport<I extends { reportText: string }>(input: I, ctx: RunContext): Promise<I & { reportPath: string }> {
  await ctx.fs.writeAtomic(resolve(ctx.root, ctx.settings.report_file), input.reportText);
  return { ...input, reportPath: ctx.settings.report_file };
}

/**
 * apply: writes the planned files atomically in plan order — memory and skills first, state last —
 * so a crash before the state write re-runs the same night, and the plan's id check keeps it idempotent.
 */
export async function apply<I extends { plan: Plan; reportPath: string }>(input: I, ctx: RunContext): Promise<I & Written> {
  await applyChanges(ctx, input.plan.changes);
  return { ...input, written: [input.reportPath, ...input.plan.changes.map((change) => change.path)] };
}

/** Writes file changes in order, each atomically. Shared by `run` and `review`. */
export async function applyChanges(ctx: Pick<RunContext, 'fs' | 'root'>, changes: FileChange[]): Promise<void> {
  for (const change of changes) await ctx.fs.writeAtomic(resolve(ctx.root, change.path), change.content);
}
