import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { load, type Loaded } from '../stages/load.js';
import { buildRunContext, loadSettings, type CliDeps } from './context-from-options.js';

/** For commands other than `run`: settings, a context and everything the load stage reads. */
export async function openRepo(root: string | undefined, deps: CliDeps, nowFlag?: string): Promise<{ ctx: RunContext; loaded: Loaded }> {
  const dir = resolve(deps.cwd, root ?? '.');
  const { settings } = await loadSettings(deps, dir, {});
  const ctx = buildRunContext(deps, dir, settings, { dryRun: false, commit: false, requireGit: false }, nowFlag);
  return { ctx, loaded: await load({}, ctx) };
}
