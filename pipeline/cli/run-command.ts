import { resolve } from 'node:path';
import { Option } from 'commander';
import { errors } from '../model/errors.js';
import { runSleepCycle, type RunResult } from '../run.js';
import type { Settings } from '../settings/schema.js';
import { parseTimestamp } from '../telemetry/event.js';
import { buildRunContext, loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import { terminalProgress } from './progress-bar.js';
import type { CommandSpec } from './command-spec.js';

export interface RunCommandOptions {
  root?: string;
  json?: boolean;
  dryRun?: boolean;
  since?: string;
  log?: string[];
  minRepeats?: string;
  commit?: boolean;
  requireGit?: boolean;
  requireLlm?: boolean;
  offline?: boolean;
  maxLlmCalls?: string;
  branch?: string;
  push?: string | boolean;
  now?: string;
  verbose?: boolean;
}

export async function runCommand(options: RunCommandOptions, deps: CliDeps, lifecycleOnly = false): Promise<number> {
  const root = await resolveRoot(deps, options.root);
  const flags: Partial<Settings> = {};
  if (options.minRepeats !== undefined) flags.min_repeats = parseCount(options.minRepeats, '--min-repeats');
  if (options.log && options.log.length > 0) flags.logs = options.log;
  if (options.offline) flags.synthesizer = 'offline';
  if (options.maxLlmCalls !== undefined) flags.max_llm_calls = parseCount(options.maxLlmCalls, '--max-llm-calls', 0);
  if (options.since !== undefined && (parseTimestamp(options.since) === null || /^\d+$/.test(options.since))) {
    throw errors.usage(`--since expects an ISO-8601 time such as 2026-11-20T00:00:00Z, found "${options.since.slice(0, 40)}".`);
  }
  if (flags.logs) await requireNamedLogs(deps, root, flags.logs);
  const { settings } = await loadSettings(deps, root, flags);
  const ctx = buildRunContext(deps, root, settings, {
    dryRun: Boolean(options.dryRun),
    ...(options.since !== undefined ? { since: options.since } : {}),
    commit: options.commit !== false,
    requireGit: Boolean(options.requireGit),
    requireLlm: Boolean(options.requireLlm),
    ...branchOptions(options),
    ...(lifecycleOnly ? { lifecycleOnly } : {}),
  }, options.now, Boolean(options.verbose));
  // A progress bar only for a person at a terminal: never with --json, in CI, or when stderr is piped.
  if (deps.isTTY && !options.json && deps.env.CI !== 'true') ctx.progress = terminalProgress(deps.stderr);
  if (options.requireLlm && !ctx.llm) {
    throw errors.usage('--require-llm needs the claude synthesizer: set ANTHROPIC_API_KEY (and synthesizer auto or claude).');
  }
  const result = await runSleepCycle(ctx);
  return printSuccess(deps, Boolean(options.json), result, () => renderRunText(result, lifecycleOnly));
}

function branchOptions(options: RunCommandOptions): { branch?: string; push?: string } {
  if (options.push !== undefined && options.push !== false && !options.branch) {
    throw errors.usage('--push needs --branch: sleep-cycle pushes only its own branch, never the one you are on.');
  }
  if (!options.branch) return {};
  if (!/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,100}(?<![./])$/.test(options.branch)) {
    throw errors.usage(`--branch expects a branch name such as sleep-cycle/nightly, found "${options.branch.slice(0, 40)}".`);
  }
  const remote = options.push === true ? 'origin' : options.push || undefined;
  return { branch: options.branch, ...(remote ? { push: remote } : {}) };
}

/**
 * A log named with --log must exist: a typo would otherwise read nothing and exit 0. The configured
 * logs may be missing (a fresh clone has no telemetry yet); the run says so in a notice instead.
 */
async function requireNamedLogs(deps: CliDeps, root: string, logs: string[]): Promise<void> {
  for (const log of logs) {
    const absolute = resolve(root, log);
    if (await deps.fs.identify(absolute)) continue;
    throw errors.usage(
      `--log expects an existing telemetry file, found nothing at ${log}${absolute === log ? '' : ` (${absolute})`}. Check the path (a relative one is read from the repository root), or leave out --log to read the configured logs.`,
      { path: log },
    );
  }
}

function parseCount(text: string, flag: string, min = 1): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value) || value < min) {
    throw errors.usage(`${flag} expects a whole number of at least ${min}, found "${text.slice(0, 20)}".`);
  }
  return value;
}

export function renderRunText(result: RunResult, lifecycleOnly = false): string {
  const { lines } = result;
  const promoted = result.clusters.filter((c) => c.promoted).length;
  const title = lifecycleOnly ? `decay${result.dry_run ? ' (dry run)' : ''}` : result.dry_run ? 'dry run' : 'run';
  const out = [`sleep-cycle ${title} ${result.run_id}`];
  // `decay` reads no telemetry: line and cluster counts would only be zeros that look like a failed read.
  if (!lifecycleOnly) out.push(`  lines: ${lines.read} read, ${lines.valid} valid, ${lines.invalid} invalid, ${lines.old} old`, `  clusters: ${result.clusters.length} (${promoted} promoted)`);
  for (const p of result.proposals) out.push(`  ${p.status.padEnd(11)} ${p.id} → ${p.target}: ${p.text}`);
  if (lifecycleOnly && result.lifecycle.changes.length === 0) out.push('  lifecycle: no rule changes state');
  for (const c of result.lifecycle.changes) out.push(`  ${(c.field === 'status' ? 'status' : 'lifecycle').padEnd(11)} ${c.rule} ${c.from} → ${c.to}: ${c.reason}`);
  if (result.lifecycle.ceiling.warning) out.push(`  warning: ${result.lifecycle.ceiling.warning}`);
  for (const notice of result.notices) out.push(`  notice: ${notice}`);
  out.push(...writtenLines(result));
  return `${out.join('\n')}\n`;
}

/** What this run put on disk: a night with nothing to change writes nothing, not even the report. */
function writtenLines(result: RunResult): string[] {
  if (result.dry_run) return [`  report: ${result.report_path}`];
  if (result.written.length === 0) {
    return [`  report: not rewritten (${result.report_path} is left as the last run that changed something wrote it)`, '  wrote: nothing (nothing to change)', `  ${result.commit_note}`];
  }
  return [`  report: ${result.report_path}`, `  wrote: ${result.written.join(', ')}`, `  ${result.commit_note}`];
}

export const dryRunOption = () => new Option('--dry-run', 'write only proposed_memory_updates.md; change nothing else');
export const noCommitOption = () => new Option('--no-commit', 'write files but do not commit them');

/** `--now <iso>`: evaluate at another time (also SLEEP_CYCLE_NOW). Only commands with --dry-run mention it. */
export function nowOption(withDryRun = false): Option {
  const help = 'evaluate as if it were this ISO-8601 time (or set SLEEP_CYCLE_NOW)';
  return new Option('--now <iso>', withDryRun ? `${help}; with --dry-run nothing is written` : help);
}

/** Stage-by-stage progress on stderr, for a person who wants to see where a run spends its time. */
export const verboseOption = () => new Option('--verbose', 'print each stage as it starts and finishes (on stderr)');

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const runCommandSpec: CommandSpec = {
  name: 'run',
  description: 'read new telemetry, cluster repeated failures, write safe rules to memory and commit',
  options: [
    dryRunOption(),
    new Option('--since <iso>', 'read every line from this ISO-8601 time on, ignoring the cursor'),
    new Option('--log <path>', 'telemetry file to read (repeatable; default logs/telemetry.jsonl)').argParser(collect),
    new Option('--min-repeats <n>', 'repeats needed before a pattern becomes a rule (default 3)'),
    noCommitOption(),
    new Option('--require-git', 'fail when the root is not a git repository'),
    new Option('--max-llm-calls <n>', 'most Claude calls this run; later clusters wait for the next night'),
    new Option('--branch <name>', 'commit to this branch (on top of HEAD) instead of HEAD: the nightly pull-request branch'),
    new Option('--push [remote]', 'with --branch: push the branch (default remote origin), replacing it only if it is as last fetched'),
    new Option('--offline', 'write rules with the offline synthesizer even when ANTHROPIC_API_KEY is set (fast, free: for pre-session dry runs)'),
    new Option('--require-llm', 'fail (E_LLM) instead of falling back to offline when Claude rejects the key'),
    nowOption(true),
    verboseOption(),
  ],
  action: (_args, options, deps) => runCommand(options, deps),
};
