import { relative, resolve } from 'node:path';
import { repoPaths } from '../io/paths.js';
import { parseState } from '../memory/state.js';
import { loadSettings, resolveNow, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface StatusOptions {
  root?: string;
  json?: boolean;
}

/** Read-only: what the last sleep left behind. */
export async function statusCommand(options: StatusOptions, deps: CliDeps): Promise<number> {
  const root = resolve(deps.cwd, options.root ?? '.');
  const { settings } = await loadSettings(deps, root, {});
  const statePath = repoPaths(root, settings).state;
  const state = parseState(await deps.fs.readText(statePath), relative(root, statePath));
  const rules = Object.values(state.rules);
  // The window as the next run will see it with nothing new: ending now.
  const windowStart = new Date(resolveNow(deps).getTime() - settings.window_days * 86_400_000).toISOString().slice(0, 10);
  const count = (predicate: (r: (typeof rules)[number]) => boolean) => rules.filter(predicate).length;
  const data = {
    last_sleep: state.last_sleep,
    cursors: Object.values(state.cursors).map(({ path, offset, last_timestamp }) => ({ path, offset, last_timestamp })),
    pending: Object.values(state.pending).map((p) => ({
      id: p.id, kind: p.kind, tool_name: p.tool_name, error_category: p.error_category,
      count: Object.entries(p.days).filter(([day]) => day >= windowStart).reduce((sum, [, n]) => sum + n, 0), last_seen: p.last_seen,
    })),
    rules: {
      total: rules.length, active: count((r) => r.state === 'active'), decaying: count((r) => r.state === 'decaying'), pinned: count((r) => r.pinned),
      archived: count((r) => r.state === 'archived' || r.state === 'expired'), rejected: count((r) => r.state === 'rejected'),
    },
    quarantined: Object.keys(state.quarantine).length,
    burned: Object.keys(state.burned).length,
  };
  return printSuccess(deps, Boolean(options.json), data, () => {
    const lines = [
      `last sleep: ${data.last_sleep ?? 'never'}`,
      ...data.cursors.map((c) => `cursor: ${c.path} at byte ${c.offset} (last event ${c.last_timestamp ?? '–'})`),
      `rules: ${data.rules.active} active, ${data.rules.decaying} decaying, ${data.rules.pinned} pinned, ${data.rules.archived} archived, ${data.rules.rejected} rejected; ${data.quarantined} quarantined drafts; ${data.burned} burned patterns (details: sleep-cycle list, sleep-cycle stats)`,
      `pending clusters: ${data.pending.length}`,
      ...data.pending.map((p) => `  ${p.id} ${p.kind} ${p.tool_name}${p.error_category ? `/${p.error_category}` : ''}: ${p.count} in window`),
    ];
    return `${lines.join('\n')}\n`;
  });
}

export const statusCommandSpec: CommandSpec = {
  name: 'status',
  description: 'show the cursor, last sleep, pending clusters and rule counts',
  options: [],
  action: (_args, options, deps) => statusCommand(options, deps),
};
