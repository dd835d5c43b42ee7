import { Option } from 'commander';
import { errors } from '../model/errors.js';
import { listRules, RULE_STATES, type RuleRow } from '../memory/rule-list.js';
import type { RuleState } from '../memory/state.js';
import type { CliDeps } from './context-from-options.js';
import { openRepo } from './open-repo.js';
import { printSuccess } from './output.js';
import { nowOption } from './run-command.js';
import type { CommandSpec } from './command-spec.js';
import { plural } from '../model/plural.js';
import { describeAfterReminder, type EffectFigures } from '../memory/call-rates.js';

export interface ListOptions {
  root?: string;
  json?: boolean;
  state?: string[];
  now?: string;
}

/** Read-only: every rule with its weight, state, status and effectiveness at now (or --now). */
export async function listCommand(options: ListOptions, deps: CliDeps): Promise<number> {
  const states = parseStates(options.state ?? []);
  const { ctx, loaded } = await openRepo(options.root, deps, options.now);
  const rows = listRules(loaded.state, ctx.settings, ctx.now, states);
  const data = { now: ctx.now.toISOString(), rules: rows };
  return printSuccess(deps, Boolean(options.json), data, () => renderRows(rows, ctx.now));
}

function parseStates(values: string[]): RuleState[] {
  const states = values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
  const bad = states.find((state) => !RULE_STATES.includes(state as RuleState));
  if (bad) throw errors.usage(`--state expects one of ${RULE_STATES.join(', ')}, found "${bad.slice(0, 20)}".`);
  return states as RuleState[];
}

function renderRows(rows: RuleRow[], now: Date): string {
  if (rows.length === 0) return `no rules (at ${now.toISOString()})\n`;
  const out = [`${plural(rows.length, 'rule')} at ${now.toISOString()}`];
  for (const r of rows) {
    const effect = r.effectiveness ? `${r.effectiveness.verdict} (${r.effectiveness.before_per_day}/day before, ${r.effectiveness.after_per_day}/day since)` : '–';
    out.push(
      `${r.id}  ${r.state.padEnd(8)} ${r.status.padEnd(10)} weight ${r.weight.toFixed(2)}${r.pinned ? '  pinned' : ''}  → ${r.target}`,
      `    ${r.text}`,
      `    created ${r.created.slice(0, 10)}, last reinforced ${r.last_reinforced.slice(0, 10)}, last accessed ${r.last_accessed?.slice(0, 10) ?? '–'}, ${plural(r.hits, 'recurrence')}; effectiveness: ${effect}`,
    );
    if (r.effect) out.push(`    ${listEffect(r.effect)}`);
    if (r.due) out.push(`    due: ${r.due}`);
  }
  return `${out.join('\n')}\n`;
}

/** One line: failures per 100 calls before → since, exposed vs not, and the next call after a reminder. */
function listEffect(e: EffectFigures): string {
  const rate = (f: EffectFigures['before']) => (f.per_100_calls === null ? '–' : String(f.per_100_calls));
  return `failures per 100 calls: ${rate(e.before)} before → ${rate(e.after)} since; exposed ${rate(e.exposed)}, not exposed ${rate(e.unexposed)} (– under ${e.min_calls} calls); next call after a reminder succeeded ${describeAfterReminder(e.after_reminder)}`;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const listCommandSpec: CommandSpec = {
  name: 'list',
  description: 'list rules with weight, state, status, target and effectiveness (read-only)',
  options: [new Option('--state <state>', `only rules in this state (repeatable or comma-separated: ${RULE_STATES.join(', ')})`).argParser(collect), nowOption()],
  action: (_args, options, deps) => listCommand(options, deps),
};
