import { Option } from 'commander';
import { resolve } from 'node:path';
import { nodeFs } from '../io/fs.js';
import { parseEvents } from '../memory/lifecycle.js';
import { buildTrends, type Trends } from '../memory/trends.js';
import type { CliDeps } from './context-from-options.js';
import { openRepo } from './open-repo.js';
import { printSuccess } from './output.js';
import { nowOption } from './run-command.js';
import type { CommandSpec } from './command-spec.js';
import { renderTrendsHtml } from './trends-html.js';
import { trendTable } from '../stages/trend-table.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { CONFIG_FILE } from '../settings/resolve.js';

export interface ReportOptions {
  root?: string;
  json?: boolean;
  now?: string;
  html?: string;
}

/** Read-only: the trends over nights (failures, the lifecycle, each rule before and after), as text, JSON or a page. */
export async function reportCommand(options: ReportOptions, deps: CliDeps): Promise<number> {
  const { ctx, loaded } = await openRepo(options.root, deps, options.now);
  const trends = buildTrends(loaded.state, parseEvents(loaded.lifecycleText), ctx.now);
  let written: string | null = null;
  if (options.html !== undefined) {
    written = resolve(deps.cwd, options.html);
    // Anywhere but a file the night writes or reads: `--html MEMORY.md` would replace the human notes with a page.
    assertDistinctRunPaths(ctx.root, ctx.settings, Object.keys(loaded.skillTexts), CONFIG_FILE, { outputs: [{ setting: '--html', path: written }] });
    // The user names this file on the command line: it may be anywhere they can write (the repository's
    // own files go through the confined port; this one does not belong to the repository).
    await nodeFs.writeAtomic(written, renderTrendsHtml(trends, `sleep-cycle trends — ${ctx.now.toISOString().slice(0, 10)}`));
  }
  return printSuccess(deps, Boolean(options.json), { ...trends, html: written }, () => renderText(trends, written));
}

function renderText(trends: Trends, written: string | null): string {
  const table = trendTable(trends);
  return `${table === '' ? 'No night recorded yet.\n' : table}${written ? `\nwrote ${written}\n` : ''}`;
}

export const reportCommandSpec: CommandSpec = {
  name: 'report',
  description: 'trends over nights: failures per night and cluster, rules added/archived/restored, each rule before and after (read-only; --html <file> writes a page)',
  options: [new Option('--html <file>', 'write a self-contained HTML page with the plots (inline SVG, no network)'), nowOption()],
  action: (_args, options, deps) => reportCommand(options, deps),
};
