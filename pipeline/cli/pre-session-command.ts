import { resolve } from 'node:path';
import { SleepCycleError } from '../model/errors.js';
import { runSleepCycle, type RunResult } from '../run.js';
import { buildRunContext, loadSettings, type CliDeps } from './context-from-options.js';
import { printFailure, printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface PreSessionOptions {
  root?: string;
  json?: boolean;
}

/**
 * `pre-session`: before an agent's session (a Claude Code SessionStart hook, a git post-merge hook), a
 * fast offline dry run that prints one line of counts. It never applies anything and never prints rule
 * text (a SessionStart hook's stdout reaches the agent's context). Its report goes to an ignored preview
 * file, so a session start never leaves the tracked report modified. It never fails: a session must
 * start whatever happened, so an error is one line (or the --json envelope) and exit 0.
 */
export async function preSessionCommand(options: PreSessionOptions, deps: CliDeps): Promise<number> {
  try {
    const result = await previewRun(options, deps);
    const data = summaryOf(result);
    return printSuccess(deps, Boolean(options.json), data, () => `${data.summary}\n`);
  } catch (error) {
    if (options.json) printFailure(deps, true, error);
    else deps.stdout(`sleep-cycle: ${error instanceof SleepCycleError ? error.code : 'E_INTERNAL'} (see \`npx sleep-cycle run --dry-run\`)\n`);
    return 0;
  }
}

/** `run --dry-run --offline` with the report in `<state_dir>/preview.md`, and nothing on stderr. */
async function previewRun(options: PreSessionOptions, deps: CliDeps): Promise<RunResult> {
  const quiet: CliDeps = { ...deps, isTTY: false, stderr: () => {} };
  const root = resolve(deps.cwd, options.root ?? '.');
  const { settings } = await loadSettings(quiet, root, { synthesizer: 'offline' });
  const preview = { ...settings, report_file: `${settings.state_dir}/preview.md` };
  return runSleepCycle(buildRunContext(quiet, root, preview, { dryRun: true, commit: false, requireGit: false }));
}

function summaryOf(result: RunResult) {
  const proposed = result.proposals.filter((p) => p.status === 'proposed').length;
  const quarantined = result.proposals.filter((p) => p.status === 'quarantined').length;
  const read = result.lines.read;
  const summary = `sleep-cycle: ${read} new telemetry ${read === 1 ? 'line' : 'lines'}, ${proposed} ${proposed === 1 ? 'rule' : 'rules'} proposed, ${quarantined} quarantined: review ${result.report_path} (not applied)`;
  return { summary, lines_read: read, proposed, quarantined, report_path: result.report_path, applied: false };
}

export const preSessionCommandSpec: CommandSpec = {
  name: 'pre-session',
  description: 'before a session: an offline dry run that prints one line (counts only) and never applies anything or fails',
  options: [],
  action: (_args, options, deps) => preSessionCommand(options, deps),
};
