import { emptyUsage } from '../telemetry/usage.js';
import { countLines } from './memory-md.js';
import { evaluateLifecycle, type LifecycleSettings, type RuleChange } from './lifecycle-evaluate.js';
import type { LifecycleEvent } from './lifecycle.js';
import { IN_TARGET, withLifecycleDefaults, type CallTally, type Effectiveness, type LedgerEntry, type RuleState, type RuleStatus, type State } from './state.js';
import { addTally, effectFigures, NO_CALLS, rateWithEnough, type EffectFigures, type RateFigure } from './call-rates.js';

export interface RuleRow {
  id: string;
  state: RuleState;
  status: RuleStatus;
  pinned: boolean;
  target: string;
  tool_name: string;
  error_category: string | null;
  text: string;
  created: string;
  last_reinforced: string;
  last_accessed: string | null;
  weight: number;
  hits: number;
  effectiveness: Effectiveness | null;
  /** Failures per 100 calls of its family before and since adoption, exposed or not (null: no calls counted yet). */
  effect: EffectFigures | null;
  /** What the lifecycle would do at `now` if a run happened without new telemetry. */
  due: string | null;
}

export const RULE_STATES: readonly RuleState[] = ['active', 'decaying', 'pinned', 'archived', 'expired', 'deleted', 'rejected'];

/**
 * Every rule as `list` shows it, evaluated at `now` without writing anything: weights, effectiveness and
 * the change a run at that time would make. Observation never reinforces.
 */
export function listRules(state: State, settings: LifecycleSettings, now: Date, filter?: RuleState[]): RuleRow[] {
  const preview = evaluateLifecycle({ rules: state.rules, recurrences: [], usage: emptyUsage(), edited: [] }, settings, now);
  const due = new Map<string, RuleChange>();
  for (const change of preview.changes) if (!due.has(change.rule)) due.set(change.rule, change);
  return Object.keys(state.rules)
    .sort()
    .map((id) => {
      const stored = withLifecycleDefaults(state.rules[id]!);
      const seen = withLifecycleDefaults(preview.rules[id]!);
      const change = due.get(id);
      return {
        id, state: stored.state, status: stored.status, pinned: stored.pinned, target: stored.target, tool_name: stored.tool_name,
        error_category: stored.error_category, text: stored.text, created: stored.created, last_reinforced: stored.last_reinforced,
        last_accessed: stored.last_accessed, weight: seen.weight, hits: stored.hits, effectiveness: seen.effectiveness ?? null,
        effect: stored.effect ? effectFigures(stored.effect, settings.exposed_min_calls) : null,
        due: change ? `${change.field === 'status' ? 'status ' : ''}${change.from} → ${change.to}: ${change.reason}` : null,
      };
    })
    .filter((row) => !filter || filter.length === 0 || filter.includes(row.state));
}

export interface RuleStats {
  rules: number;
  by_state: Record<string, number>;
  by_status: Record<string, number>;
  archive: { entries: number; lines: number; bytes: number };
  /** Per run (oldest first): rules added, archived and restored. */
  runs: { run: string; time: string; added: number; archived: number; restored: number }[];
  /** Mean days from creation to archival, over rules that were archived at least once (null: none yet). */
  average_lifespan_days: number | null;
  /** Mean age in days of the rules in memory now. */
  average_age_days: number | null;
  /**
   * Did the rules work, over every rule in memory with calls counted (summed): failures per 100 calls of
   * their families when they were in front of the agent and when not, the next call after a reminder, and
   * how many are flagged ineffective.
   */
  effect: { rules_counted: number; exposed: RateFigure; unexposed: RateFigure; after_reminder: { succeeded: number; failed: number }; ineffective: number };
}

export function ruleStats(state: State, events: LifecycleEvent[], archiveText: string | undefined, now: Date, minCalls = 20): RuleStats {
  const rules = Object.values(state.rules).map(withLifecycleDefaults);
  const by_state: Record<string, number> = Object.fromEntries(RULE_STATES.map((s) => [s, 0]));
  const by_status: Record<string, number> = { active: 0, validated: 0, refined: 0, invalidated: 0 };
  for (const rule of rules) {
    by_state[rule.state] = (by_state[rule.state] ?? 0) + 1;
    by_status[rule.status] = (by_status[rule.status] ?? 0) + 1;
  }
  const runs = new Map<string, RuleStats['runs'][number]>();
  const firstArchived = new Map<string, string>();
  for (const event of events) {
    const row = runs.get(event.run) ?? { run: event.run, time: event.time, added: 0, archived: 0, restored: 0 };
    if (event.field !== 'status') {
      if (event.to === 'active' && (event.from === 'none' || event.from === 'quarantined')) row.added += 1;
      if (event.to === 'archived') row.archived += 1;
      if (event.to === 'active' && (event.from === 'archived' || event.from === 'expired')) row.restored += 1;
      if (event.to === 'archived' && !firstArchived.has(event.rule)) firstArchived.set(event.rule, event.time);
    }
    runs.set(event.run, row);
  }
  const created = new Map(rules.map((rule) => [rule.id, rule.created]));
  const lifespans = [...firstArchived].flatMap(([id, time]) => (created.has(id) ? [days(created.get(id)!, time)] : []));
  const live = rules.filter((rule) => ['active', 'decaying', 'pinned'].includes(rule.state)).map((rule) => days(rule.created, now.toISOString()));
  return {
    rules: rules.length,
    by_state,
    by_status,
    archive: {
      entries: by_state.archived! + by_state.expired!,
      lines: archiveText === undefined ? 0 : countLines(archiveText),
      bytes: archiveText === undefined ? 0 : Buffer.byteLength(archiveText),
    },
    runs: [...runs.values()].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0)).filter((r) => r.added + r.archived + r.restored > 0),
    average_lifespan_days: mean(lifespans),
    average_age_days: mean(live),
    effect: effectTotals(rules.filter((rule) => IN_TARGET.includes(rule.state)), minCalls),
  };
}

function effectTotals(rules: LedgerEntry[], minCalls: number): RuleStats['effect'] {
  const counted = rules.filter((rule) => rule.effect !== undefined);
  let exposed = NO_CALLS;
  let unexposed = NO_CALLS;
  const after_reminder = { succeeded: 0, failed: 0 };
  for (const { effect } of counted) {
    exposed = addTally(exposed, effect!.exposed);
    unexposed = addTally(unexposed, effect!.unexposed);
    after_reminder.succeeded += effect!.after_reminder.succeeded;
    after_reminder.failed += effect!.after_reminder.failed;
  }
  const figure = (tally: CallTally): RateFigure => ({ ...tally, per_100_calls: rateWithEnough(tally, minCalls) });
  const ineffective = rules.filter((rule) => rule.effectiveness?.verdict === 'ineffective' && rule.status !== 'refined').length;
  return { rules_counted: counted.length, exposed: figure(exposed), unexposed: figure(unexposed), after_reminder, ineffective };
}

function days(from: string, to: string): number {
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 86_400_000);
}

function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  return Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10;
}
