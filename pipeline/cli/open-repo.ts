import type { RunContext } from '../context.js';
import { withLock, type Lock } from '../io/lock.js';
import { repoPaths } from '../io/paths.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { CONFIG_FILE } from '../settings/resolve.js';
import { load, type Loaded } from '../stages/load.js';
import { buildRunContext, loadSettings, type CliDeps } from './context-from-options.js';
import { resolveRoot } from './root.js';

/** For commands other than `run`: the root, its settings and a context. Nothing of the repository is read yet. */
export async function openContext(root: string | undefined, deps: CliDeps, nowFlag?: string): Promise<RunContext> {
  const dir = await resolveRoot(deps, root);
  const { settings } = await loadSettings(deps, dir, {});
  return buildRunContext(deps, dir, settings, { dryRun: false, commit: false, requireGit: false }, nowFlag);
}

/** Read-only commands: a context and everything the load stage reads. */
export async function openRepo(root: string | undefined, deps: CliDeps, nowFlag?: string): Promise<{ ctx: RunContext; loaded: Loaded }> {
  const ctx = await openContext(root, deps, nowFlag);
  return { ctx, loaded: await load({}, ctx) };
}

/**
 * Commands that write (pin, unpin, touch, restore, review): each output a file of its own (output-paths.ts),
 * the lock, then the load (which checks the ledger's skill files too), then `work` plans and applies.
 * Loading before the lock would plan from a state a run finishing in between has already replaced.
 */
export function underLock<T>(ctx: RunContext, work: (loaded: Loaded, lock: Lock) => Promise<T>): Promise<T> {
  // As a run does, before the lock file is created: a lock that is MEMORY.md would be taken for a stale one and moved.
  assertDistinctRunPaths(ctx.root, ctx.settings, [], CONFIG_FILE);
  return withLock(ctx.fs, lockOptions(ctx), async (lock) => work(await load({}, ctx), lock));
}

export function lockOptions(ctx: Pick<RunContext, 'root' | 'settings' | 'runId' | 'now'>) {
  return { path: repoPaths(ctx.root, ctx.settings).lock, runId: ctx.runId, now: ctx.now, staleMinutes: ctx.settings.lock_stale_minutes };
}
