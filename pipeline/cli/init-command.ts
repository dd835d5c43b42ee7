import { resolve } from 'node:path';
import { Option } from 'commander';
import { errors } from '../model/errors.js';
import { confineFs } from '../io/confine.js';
import { withLock } from '../io/lock.js';
import { bundledSafetyRulesPath, repoPaths } from '../io/paths.js';
import { buildInitPlan, type InitFile, type LogPolicy } from '../memory/init-plan.js';
import { loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { CONFIG_FILE } from '../settings/resolve.js';

export interface InitOptions {
  root?: string;
  json?: boolean;
  logs?: string;
}

/** `init`: prepares a repository for sleep-cycle. Idempotent; never overwrites a file a user has. */
export async function initCommand(options: InitOptions, deps: CliDeps): Promise<number> {
  const policy = (options.logs ?? 'commit') as LogPolicy;
  if (policy !== 'commit' && policy !== 'ignore') throw errors.usage(`--logs expects commit or ignore, found "${String(options.logs).slice(0, 20)}".`);
  const root = await resolveRoot(deps, options.root);
  const { settings } = await loadSettings(deps, root, {});
  const safetyRules = await deps.fs.readText(bundledSafetyRulesPath());
  if (safetyRules === undefined) throw errors.internal(`the bundled safety policy is missing at ${bundledSafetyRulesPath()}: reinstall sleep-cycle.`);
  const now = deps.clock.now();
  // As a run does, before the lock file is created: a lock that is MEMORY.md would be taken for a stale one and moved.
  assertDistinctRunPaths(root, settings, [], CONFIG_FILE);
  const lock = { path: repoPaths(root, settings).lock, runId: `init-${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}`, now, staleMinutes: settings.lock_stale_minutes };
  // Read and planned under the lock: MEMORY.md gets its section from what is there now, not before a run wrote it.
  const repoFs = confineFs(deps.fs, root);
  const plan = await withLock(repoFs, lock, async () => {
    const existing: Record<string, string | undefined> = {};
    for (const path of INIT_FILES) existing[path] = await repoFs.readText(resolve(root, path));
    const built = buildInitPlan(existing, { policy, safetyRules });
    for (const file of built.filter((f) => f.action !== 'kept')) await repoFs.writeAtomic(resolve(root, file.path), file.content);
    return built;
  });
  const data = { files: plan.map(({ path, action }) => ({ path, action })), logs: policy, hook_snippet: HOOK_SNIPPET };
  return printSuccess(deps, Boolean(options.json), data, () => renderInit(plan, policy));
}

const INIT_FILES = ['config/safety-rules.yaml', 'config/sleep-cycle.yaml', 'MEMORY.md', '.sleep-cycle/.gitignore', 'logs/.gitignore'];

/**
 * The Claude Code hooks: every tool call recorded (PreToolUse and PermissionRequest only time it: a
 * prompt's wait is the human's, see human-wait.ts), the rules shown at SessionStart, and a rule shown
 * next to a failure of its cluster (PostToolUseFailure).
 */
export const HOOK_SNIPPET = `{
  "hooks": {
    "SessionStart": [{ "hooks": [{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/node_modules/.bin/sleep-cycle hook claude-code" }] }],
    "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/node_modules/.bin/sleep-cycle hook claude-code" }] }],
    "PermissionRequest": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/node_modules/.bin/sleep-cycle hook claude-code" }] }],
    "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/node_modules/.bin/sleep-cycle hook claude-code" }] }],
    "PostToolUseFailure": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/node_modules/.bin/sleep-cycle hook claude-code" }] }]
  }
}`;

function renderInit(plan: InitFile[], policy: LogPolicy): string {
  const out = plan.map((file) => `  ${file.action.padEnd(8)} ${file.path}`);
  const ignored = plan.some((file) => file.path === 'logs/.gitignore');
  out.push('', `Telemetry in logs/ is ${ignored || policy === 'ignore' ? 'ignored by git (local runs only; logs/.gitignore)' : 'committed (the nightly job reads it from git)'}.`);
  out.push('Commit these files, so the first run starts from them: git add config MEMORY.md .sleep-cycle && git commit -m "sleep-cycle init"');
  out.push('', 'Add this to .claude/settings.json so Claude Code records every tool call, starts each session with the rules', 'and is reminded of a rule when a failure matches it:', HOOK_SNIPPET, '');
  out.push('Without hooks: put "@MEMORY.md" in CLAUDE.md (or set memory_file: CLAUDE.md) so the agent reads the rules.', '');
  out.push('Then, after a few sessions: npx sleep-cycle run --dry-run');
  return `sleep-cycle init\n${out.join('\n')}\n`;
}

export const initCommandSpec = {
  name: 'init',
  description: 'prepare this repository: policy, settings, MEMORY.md section, state folder, logs policy; print the hook snippet',
  options: [new Option('--logs <policy>', 'commit (default: the nightly job reads them) or ignore telemetry in git')],
  action: (_args: string[], options: Record<string, unknown>, deps: CliDeps) => initCommand(options, deps),
};
