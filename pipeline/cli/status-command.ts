import { relative } from 'node:path';
import { confineFs } from '../io/confine.js';
import { repoPaths } from '../io/paths.js';
import { summarizePending } from '../memory/pending-window.js';
import { parseState } from '../memory/state.js';
import { plural } from '../model/plural.js';
import { loadSettings, resolveNow, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import type { CommandSpec } from './command-spec.js';

export interface StatusOptions {
  root?: string;
  json?: boolean;
}

/** Read-only: what the last sleep left behind. */
export async function statusCommand(options: StatusOptions, deps: CliDeps): Promise<number> {
  const root = await resolveRoot(deps, options.root);
  const { settings } = await loadSettings(deps, root, {});
  const statePath = repoPaths(root, settings).state;
  const state = parseState(await confineFs(deps.fs, root).readText(statePath), relative(root, statePath));
  const rules = Object.values(state.rules);
  const count = (predicate: (r: (typeof rules)[number]) => boolean) => rules.filter(predicate).length;
  const data = {
    last_sleep: state.last_sleep,
    cursors: Object.values(state.cursors).map(({ path, offset, last_timestamp }) => ({ path, offset, last_timestamp })),
    // The window as the next run will see it with nothing new: ending now (the same count `review` shows).
    pending: summarizePending(state.pending, resolveNow(deps), settings.window_days),
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
      `rules: ${data.rules.active} active, ${data.rules.decaying} decaying, ${data.rules.pinned} pinned, ${data.rules.archived} archived, ${data.rules.rejected} rejected; ${plural(data.quarantined, 'quarantined draft')}; ${plural(data.burned, 'burned pattern')} (details: sleep-cycle list, sleep-cycle stats)`,
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
