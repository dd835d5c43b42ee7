import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import type { Plan } from './plan.js';

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
  const written: string[] = [input.reportPath];
  for (const change of input.plan.changes) {
    await ctx.fs.writeAtomic(resolve(ctx.root, change.path), change.content);
    written.push(change.path);
  }
  return { ...input, written };
}
