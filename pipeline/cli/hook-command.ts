import { dirname, resolve } from 'node:path';
import type { Option } from 'commander';
import { errors } from '../model/errors.js';
import { confineFs } from '../io/confine.js';
import { nodeFs } from '../io/fs.js';
import { readProcessStdin } from '../io/stdin.js';
import { defaultSettings, type Settings } from '../settings/schema.js';
import { parseClaudeCodeHook } from '../telemetry/claude-code-hook.js';
import { compileCategoryPatterns } from '../telemetry/classify.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import { appendHookReject, buildHookReject } from '../telemetry/hook-rejects.js';
import { claimPendingAll, recordPending } from '../telemetry/hook-pending.js';
import { ownDuration } from '../telemetry/human-wait.js';
import { createTelemetryLogger } from '../telemetry/logger.js';
import { loadSettings, type CliDeps } from './context-from-options.js';
import { printFailure, printSuccess } from './output.js';

/** The CLI's effects plus stdin, which only the hook reads. */
export interface HookDeps extends CliDeps {
  readStdin(): Promise<string>;
}

export interface HookOptions {
  root?: string;
  json?: boolean;
}

export type HookResult =
  | { outcome: 'pending'; tool_use_id: string | null }
  | { outcome: 'prompt' }
  /** `human`: paired, less the time a human was asked (or 0 when that cannot be told apart). */
  | { outcome: 'event'; event: TelemetryEvent; duration: 'paired' | 'human' | 'unknown' }
  | { outcome: 'rejected'; reason: string };

export const HOOK_AGENTS = ['claude-code'] as const;
export const PENDING_FILE = 'hook-pending.json';
export const REJECTS_FILE = 'hook-rejects.jsonl';

/**
 * `sleep-cycle hook claude-code`: one payload on stdin → one telemetry event (or a pending entry).
 * It never blocks the agent: every outcome exits 0 and prints nothing unless --json, because Claude
 * Code reads a hook's stdout and exit code (exit 2 would block the tool call).
 */
export async function hookCommand(agent: string | undefined, options: HookOptions, deps: CliDeps & Partial<HookDeps>): Promise<number> {
  const json = Boolean(options.json);
  if (agent !== 'claude-code') {
    // Exit 1, not the catalog's 2: Claude Code treats a hook's exit 2 as "block this tool call".
    printFailure(deps, json, errors.usage(`unknown hook "${String(agent).slice(0, 40)}": expected one of ${HOOK_AGENTS.join(', ')}.`));
    return 1;
  }
  const result = await handleClaudeCodeHook(options, { ...deps, readStdin: deps.readStdin ?? (() => readProcessStdin()) });
  if (json) printSuccess(deps, true, result, () => '');
  return 0;
}

/** The project a hook runs in: the nearest folder up from cwd holding .sleep-cycle/ or .git, else cwd. */
async function projectRoot(deps: HookDeps): Promise<string> {
  let dir = resolve(deps.cwd);
  for (;;) {
    if ((await deps.fs.identify(resolve(dir, '.sleep-cycle'))) || (await deps.fs.identify(resolve(dir, '.git')))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(deps.cwd);
    dir = parent;
  }
}

/** Every failure becomes a line in the rejects file; this never throws. */
export async function handleClaudeCodeHook(options: HookOptions, deps: HookDeps): Promise<HookResult> {
  const arrival = deps.clock.now();
  const root = options.root ?? deps.env.CLAUDE_PROJECT_DIR ? resolve(deps.cwd, options.root ?? deps.env.CLAUDE_PROJECT_DIR!) : await projectRoot(deps);
  let settings: Settings = defaultSettings();
  let text = '';
  try {
    text = await deps.readStdin();
    try {
      settings = (await loadSettings(deps, root, {})).settings;
    } catch (error) {
      // A broken config must not cost the agent its telemetry: record with defaults, note why once per call.
      await rejectPayload(root, settings, arrival, `config/sleep-cycle.yaml is invalid, defaults used: ${error instanceof Error ? error.message : String(error)}`, '');
    }
    return await recordHook(text, arrival, root, settings, deps);
  } catch (error) {
    const reason = `${error instanceof Error ? error.message : String(error)}`;
    return rejectPayload(root, settings, arrival, `could not record the payload: ${reason}`, text);
  }
}

async function recordHook(text: string, arrival: Date, root: string, settings: Settings, deps: HookDeps): Promise<HookResult> {
  const hook = parseClaudeCodeHook(text, compileCategoryPatterns(settings.error_categories));
  const pendingPath = resolve(root, settings.state_dir, PENDING_FILE);
  // Confined like a run's: a state folder or log that is a link out of the project is refused (and rejected).
  const fs = confineFs(deps.fs, root);
  switch (hook.kind) {
    case 'reject':
      return rejectPayload(root, settings, arrival, hook.reason, text);
    case 'pre':
      if (hook.toolUseId !== undefined) await recordPending(fs, pendingPath, hook.toolUseId, arrival.getTime());
      return { outcome: 'pending', tool_use_id: hook.toolUseId ?? null };
    case 'asked':
      await recordPending(fs, pendingPath, hook.askKey, arrival.getTime());
      return { outcome: 'prompt' };
    case 'post': {
      const keys = hook.toolUseId === undefined ? [hook.askKey] : [hook.toolUseId, hook.askKey];
      const claimed = await claimPendingAll(fs, pendingPath, keys, arrival.getTime());
      const started = hook.toolUseId === undefined ? undefined : claimed.get(hook.toolUseId);
      const own = ownDuration({ tool: hook.call.tool, startMs: started ?? arrival.getTime(), endMs: arrival.getTime(), permissionMode: hook.permissionMode, asked: claimed.has(hook.askKey) });
      const logPath = resolve(root, settings.logs[0]!);
      // The logger appends outside the port: the same check first (a link leaving the project throws E_IO).
      await fs.identify(logPath);
      const logger = createTelemetryLogger({ path: logPath, now: () => arrival });
      const event = await logger.log({ ...hook.call, durationMs: started === undefined ? 0 : own.durationMs });
      return { outcome: 'event', event, duration: started === undefined ? 'unknown' : own.wait === 'none' ? 'paired' : 'human' };
    }
  }
}

async function rejectPayload(root: string, settings: Settings, now: Date, reason: string, text: string): Promise<HookResult> {
  const reject = buildHookReject(now, reason, text);
  try {
    const path = resolve(root, settings.state_dir, REJECTS_FILE);
    await confineFs(nodeFs, root).identify(path);
    await appendHookReject(path, reject);
  } catch {
    // Nowhere left to report to (read-only checkout?): dropping the payload beats blocking the agent.
  }
  return { outcome: 'rejected', reason: reject.reason };
}

/** The row for program.ts's COMMANDS table. */
export const hookCommandSpec = {
  name: 'hook <agent>',
  description: 'record one agent hook payload from stdin as telemetry (agent: claude-code); always exits 0, prints nothing',
  options: [] as Option[],
  action: (args: string[], options: Record<string, unknown>, deps: CliDeps): Promise<number> => hookCommand(args[0], options as HookOptions, deps),
};
