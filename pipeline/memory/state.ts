import { errors, truncate } from '../model/errors.js';
import { redact } from '../safety/redact.js';
import type { Problem } from './schema.js';
import { emptyMap, INVALID } from './schema.js';
import { stateSchema } from './state-schema.js';
import type { LedgerEntry, RuleState, State } from './state-types.js';

export type {
  Baseline, BurnedPattern, CallTally, Cursor, Effectiveness, EffectivenessVerdict, LedgerEntry, LlmCacheEntry, PendingCluster, QuarantineEntry,
  RuleEffect, RuleExposure, RuleState, RuleStatus, SaidByHuman, State,
} from './state-types.js';

export const STATE_VERSION = 1;

export type LifecycleRule = LedgerEntry & Required<Pick<LedgerEntry, 'status' | 'last_reinforced' | 'last_accessed' | 'accesses' | 'state_since' | 'weight' | 'tool_calls'>>;

/** A ledger entry with every lifecycle field filled: older ledgers read as if reinforced when created. */
export function withLifecycleDefaults(rule: LedgerEntry): LifecycleRule {
  const last = rule.last_seen > rule.created ? rule.last_seen : rule.created;
  return {
    ...rule,
    status: rule.status ?? (rule.pinned ? 'validated' : 'active'),
    last_reinforced: rule.last_reinforced ?? last,
    last_accessed: rule.last_accessed ?? null,
    accesses: rule.accesses ?? 0,
    state_since: rule.state_since ?? rule.created,
    weight: rule.weight ?? 1,
    tool_calls: rule.tool_calls ?? 0,
  };
}

/** States whose rule text is in its target file (MEMORY.md or a skill file). */
export const IN_TARGET: readonly RuleState[] = ['active', 'decaying', 'pinned'];
/** States whose rule text is in the archive file. */
export const IN_ARCHIVE: readonly RuleState[] = ['archived', 'expired'];

/** A burned pattern is not proposed while its burn lasts: for good, or until its review cooldown ends. */
export function isBurned(state: State, clusterId: string, now: Date): boolean {
  const burn = state.burned[clusterId];
  if (!burn) return false;
  return !burn.until || now.toISOString() < burn.until;
}

/** A first night's state: its maps have no prototype, like loaded ones (a tool named `constructor` is an entry like any other). */
export function emptyState(): State {
  return { version: STATE_VERSION, last_sleep: null, cursors: emptyMap(), baselines: emptyMap(), pending: emptyMap(), rules: emptyMap(), burned: emptyMap(), quarantine: emptyMap(), llm_cache: emptyMap() };
}

/** A state file read back: the state, and what was left out of it (see stateSchema). */
export interface ReadState {
  state: State;
  notices: string[];
}

/** Parses state.json; a missing file is a first night, a broken one is an error that names the fix. */
export function parseState(text: string | undefined, path: string): State {
  return readState(text, path).state;
}

/**
 * Parses and checks state.json against its schema: a field of the wrong type is an E_STATE naming its
 * path and the fix (nothing is written); a bad entry of a map the next nights rebuild is left out, and
 * a notice says so.
 */
export function readState(text: string | undefined, path: string): ReadState {
  if (text === undefined) return { state: emptyState(), notices: [] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw errors.state(path, 'is not valid JSON', `Restore it with "git checkout -- ${path}" or move it aside to start from an empty state`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw errors.state(path, 'is not a JSON object', `Restore it with "git checkout -- ${path}"`);
  }
  const record = data as Record<string, unknown>;
  if (!Number.isInteger(record.version) || (record.version as number) < 1) {
    throw errors.state(path, 'has no valid "version" (a whole number) — it was edited by hand or damaged', `Restore it with "git checkout -- ${path}"`);
  }
  if ((record.version as number) > STATE_VERSION) {
    throw errors.state(path, `has version ${String(record.version)}, this sleep-cycle reads version ${STATE_VERSION}`, 'Upgrade sleep-cycle, or restore a state written by this version');
  }
  const report = { problems: [] as Problem[], skipped: [] as Problem[] };
  const state = stateSchema.check(record, '', report);
  if (state === INVALID || report.problems.length > 0) throw stateProblems(path, report.problems);
  const notices = report.skipped.map((p) => `${path}: ${describe(p)}: that entry was left out (the next nights rebuild it).`);
  return { state, notices };
}

const SHOWN = 3;

function stateProblems(path: string, problems: Problem[]) {
  const more = problems.length > SHOWN ? `; and ${problems.length - SHOWN} more` : '';
  const fix = `Correct ${problems.length === 1 ? 'that field' : 'those fields'} by hand, or restore the last committed state with "git checkout -- ${path}"`;
  const error = errors.state(path, `${problems.slice(0, SHOWN).map(describe).join('; ')}${more}`, fix);
  error.details.problems = problems.slice(0, 20).map((p) => ({ path: p.path, expected: p.expected }));
  return error;
}

/** `rules.r-3f9a1c.last_reinforced: expected an ISO-8601 date, found "not-a-date"`, the value redacted and cut short. */
function describe(problem: Problem): string {
  if (problem.message !== undefined) return `${problem.path || '(the file)'}: ${redact(problem.message)}`;
  const found = problem.found === undefined ? 'nothing (the field is missing)' : redact(truncate(JSON.stringify(problem.found), 60));
  return `${problem.path || '(the file)'}: expected ${problem.expected}, found ${found}`;
}

/**
 * The state without what only the passing of time changes (weights, effectiveness figures): a night
 * with no new event and no transition must not rewrite state.json just because a day went by.
 */
export function withoutTimeDerived(state: State): State {
  const rules = Object.fromEntries(Object.entries(state.rules).map(([id, rule]) => [id, { ...rule, weight: undefined, effectiveness: undefined }]));
  return { ...state, last_sleep: null, rules };
}

/** Pretty-printed with sorted keys, so the committed diff shows only what changed. */
export function renderState(state: State): string {
  return `${JSON.stringify(sortKeys(state), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sortKeys(item)]));
}
