import { parseEvents } from '../memory/lifecycle.js';
import { ruleStats, type RuleStats } from '../memory/rule-list.js';
import type { CliDeps } from './context-from-options.js';
import { openRepo } from './open-repo.js';
import { printSuccess } from './output.js';
import { nowOption } from './run-command.js';
import type { CommandSpec } from './command-spec.js';
import { plural } from '../model/plural.js';

export interface StatsOptions {
  root?: string;
  json?: boolean;
  now?: string;
}

/** Read-only: counts per state and status, the archive's size, what each run added, archived and restored. */
export async function statsCommand(options: StatsOptions, deps: CliDeps): Promise<number> {
  const { ctx, loaded } = await openRepo(options.root, deps, options.now);
  const stats = ruleStats(loaded.state, parseEvents(loaded.lifecycleText), loaded.archiveText, ctx.now, ctx.settings.exposed_min_calls);
  return printSuccess(deps, Boolean(options.json), stats, () => renderStats(stats));
}

export function renderStats(s: RuleStats): string {
  const list = (counts: Record<string, number>) => Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ');
  const out = [
    `rules: ${s.rules}`,
    `  by state: ${list(s.by_state)}`,
    `  by status: ${list(s.by_status)}`,
    `archive: ${plural(s.archive.entries, 'entry', 'entries')} (${plural(s.archive.lines, 'line')}, ${plural(s.archive.bytes, 'byte')})`,
    `average lifespan until archived: ${s.average_lifespan_days === null ? '–' : plural(s.average_lifespan_days, 'day')}; average age in memory: ${s.average_age_days === null ? '–' : plural(s.average_age_days, 'day')}`,
    ...effectLines(s.effect),
    `runs that changed rules: ${s.runs.length}`,
    ...s.runs.map((r) => `  ${r.time.slice(0, 10)} ${r.run}: +${r.added} added, ${r.archived} archived, ${r.restored} restored`),
  ];
  return `${out.join('\n')}\n`;
}

/** The rules in memory summed: were failures rarer when the agent had the rule in front of it? */
function effectLines(e: RuleStats['effect']): string[] {
  if (e.rules_counted === 0) return ['did it work: no rule in memory has calls counted yet'];
  const rate = (f: RuleStats['effect']['exposed']) => (f.per_100_calls === null ? `– (not enough calls: ${Math.max(f.calls, f.failures)})` : `${f.per_100_calls} (${f.failures} of ${Math.max(f.calls, f.failures)})`);
  const reminded = e.after_reminder.succeeded + e.after_reminder.failed;
  return [
    `did it work (${plural(e.rules_counted, 'rule')} with calls counted): failures per 100 calls of their tools exposed ${rate(e.exposed)}, not exposed ${rate(e.unexposed)}`,
    `  next call after a reminder succeeded: ${reminded === 0 ? '–' : `${e.after_reminder.succeeded} of ${reminded}`}; flagged ineffective: ${e.ineffective}`,
  ];
}

export const statsCommandSpec: CommandSpec = {
  name: 'stats',
  description: 'rule counts per state and status, archive size, rules added/archived/restored per run, average lifespan (read-only)',
  options: [nowOption()],
  action: (_args, options, deps) => statsCommand(options, deps),
};
