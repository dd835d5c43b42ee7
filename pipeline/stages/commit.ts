import type { RunContext } from '../context.js';
import { errors } from '../errors.js';
import type { Plan } from './plan.js';

export interface Committed {
  commit: string | null;
  commitNote: string;
}

/** commit: commits exactly the files this run wrote; unrelated changes in the repository stay as they are. */
export async function commit<I extends { plan: Plan; written: string[] }>(input: I, ctx: RunContext): Promise<I & Committed> {
  if (!ctx.options.commit) return { ...input, commit: null, commitNote: 'not committed (--no-commit)' };
  if (!(await ctx.git.isRepo(ctx.root))) {
    if (ctx.options.requireGit) {
      throw errors.usage(`${ctx.root} is not a git repository and --require-git was given; files were written but not committed.`);
    }
    return { ...input, commit: null, commitNote: 'not committed: not a git repository' };
  }
  if (input.plan.changes.length === 0) return { ...input, commit: null, commitNote: 'nothing new since the last sleep: no commit' };
  const result = await ctx.git.commitFiles(ctx.root, input.written, input.plan.commitMessage);
  const ignored = result.ignored.length > 0 ? ` (git ignores ${result.ignored.join(', ')})` : '';
  const note = result.sha ? `committed ${result.sha.slice(0, 12)}${ignored}` : `nothing to commit${ignored}`;
  return { ...input, commit: result.sha, commitNote: note };
}
