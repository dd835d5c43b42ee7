import { dirname, resolve } from 'node:path';
import type { Option } from 'commander';
import { errors } from '../model/errors.js';
import { confineFs } from '../io/confine.js';
import { nodeFs } from '../io/fs.js';
import { readProcessStdin } from '../io/stdin.js';
import { defaultSettings, type Settings } from '../settings/schema.js';
import { parseClaudeCodeHook } from '../telemetry/claude-code-hook.js';
import { classifyStored, compileCategoryPatterns } from '../telemetry/classify.js';
import { claimPendingAll, recordPending } from '../telemetry/hook-pending.js';
import { ownDuration } from '../telemetry/human-wait.js';
import { createTelemetryLogger } from '../telemetry/logger.js';
import type { CliDeps } from './context-from-options.js';
import { PENDING_FILE, rejectPayload, type HookDay, type HookDeps, type HookOptions, type HookOutput, type HookResult } from './hook-day.js';
import { mayRemind } from './hook-keys.js';
import { presentSessionContext, readSessionCache } from './hook-session-cache.js';
import { loadHookSettings } from './hook-settings.js';
import { hookPathsProblem } from './hook-paths.js';

export { PENDING_FILE, REJECTS_FILE, REMINDED_FILE, type HookDeps, type HookOptions, type HookOutput, type HookResult } from './hook-day.js';
import { printFailure, printSuccess } from './output.js';





export const HOOK_AGENTS = ['claude-code'] as const;

/**
 * `sleep-cycle hook claude-code`: one payload on stdin → one telemetry event (or a pending entry), and
 * for SessionStart and a failure that matches a rule, the rules for the agent's context on stdout.
 * It never blocks the agent: every outcome exits 0, because Claude Code reads a hook's stdout and exit
 * code (exit 2 would block the tool call). With --json, the envelope carries that output as `hook_output`.
 */
export async function hookCommand(agent: string | undefined, options: HookOptions, deps: HookDeps | (CliDeps & Partial<HookDeps>)): Promise<number> {
  const json = Boolean(options.json);
  if (agent !== 'claude-code') {
    // Exit 1, not the catalog's 2: Claude Code treats a hook's exit 2 as "block this tool call".
    printFailure(deps, json, errors.usage(`unknown hook "${String(agent).slice(0, 40)}": expected one of ${HOOK_AGENTS.join(', ')}.`));
    return 1;
  }
  const { result, output } = await handleClaudeCodeHook(options, { ...deps, readStdin: deps.readStdin ?? (() => readProcessStdin()) });
  if (json) printSuccess(deps, true, output === null ? result : { ...result, hook_output: output }, () => '');
  else if (output !== null) deps.stdout(`${JSON.stringify(output)}\n`);
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
export async function handleClaudeCodeHook(options: HookOptions, deps: HookDeps): Promise<{ result: HookResult; output: HookOutput | null }> {
  const arrival = deps.clock.now();
  const root = options.root ?? deps.env.CLAUDE_PROJECT_DIR ? resolve(deps.cwd, options.root ?? deps.env.CLAUDE_PROJECT_DIR!) : await projectRoot(deps);
  let settings: Settings = defaultSettings();
  let text = '';
  try {
    text = await deps.readStdin();
    try {
      settings = await loadHookSettings(root, deps);
    } catch (error) {
      // A broken config must not cost the agent its telemetry: record with defaults, note why once per call.
      await rejectPayload(root, settings, arrival, `config/sleep-cycle.yaml is invalid, defaults used: ${error instanceof Error ? error.message : String(error)}`, '');
    }
    const clash = hookPathsProblem(root, settings);
    if (clash !== null) return { result: { outcome: 'rejected', reason: `nothing was recorded: ${clash}` }, output: null };
    return await recordHook(text, arrival, root, settings, deps);
  } catch (error) {
    const reason = `${error instanceof Error ? error.message : String(error)}`;
    return { result: await rejectPayload(root, settings, arrival, `could not record the payload: ${reason}`, text), output: null };
  }
}

async function recordHook(text: string, arrival: Date, root: string, settings: Settings, deps: HookDeps): Promise<{ result: HookResult; output: HookOutput | null }> {
  // Not classified here: ingest classifies a failure written without a category (claude-code-hook.ts).
  const hook = parseClaudeCodeHook(text, null);
  const pendingPath = resolve(root, settings.state_dir, PENDING_FILE);
  // Confined like a run's: a state folder or log that is a link out of the project is refused (and rejected).
  const fs = confineFs(deps.fs, root);
  const day = { root, settings, fs, clock: deps.clock, arrival };
  switch (hook.kind) {
    case 'reject':
      return { result: await rejectPayload(root, settings, arrival, hook.reason, text), output: null };
    case 'session': {
      // The context the last session start built, while the memory it came from is unchanged.
      const kept = await readSessionCache(day);
      if (kept !== null) return presentSessionContext(kept, hook.sessionId, day, null);
      // Loaded only here: the other payloads (every tool call) never pay for reading the memory.
      return (await import('./hook-session-start.js')).sessionStart(hook.sessionId, day);
    }
    case 'pre':
      if (hook.toolUseId !== undefined) await recordPending(fs, pendingPath, hook.toolUseId, arrival.getTime());
      return { result: { outcome: 'pending', tool_use_id: hook.toolUseId ?? null }, output: null };
    case 'asked':
      await recordPending(fs, pendingPath, hook.askKey, arrival.getTime());
      return { result: { outcome: 'prompt' }, output: null };
    case 'post': {
      const keys = hook.toolUseId === undefined ? [hook.askKey] : [hook.toolUseId, hook.askKey];
      const claimed = await claimPendingAll(fs, pendingPath, keys, arrival.getTime());
      const started = hook.toolUseId === undefined ? undefined : claimed.get(hook.toolUseId);
      const own = ownDuration({ tool: hook.call.tool, startMs: started ?? arrival.getTime(), endMs: arrival.getTime(), permissionMode: hook.permissionMode, asked: claimed.has(hook.askKey) });
      const logPath = resolve(root, settings.logs[0]!);
      // The logger appends outside the port: the same check first (a link leaving the project throws E_IO).
      await fs.identify(logPath);
      const logger = createTelemetryLogger({ path: logPath, now: () => arrival, classify: false });
      const event = await logger.log({ ...hook.call, durationMs: started === undefined ? 0 : own.durationMs });
      const duration = started === undefined ? 'unknown' : own.wait === 'none' ? 'paired' : 'human';
      // No rule about this family and category (or no state yet): most failures stop here, without loading
      // the reminder's code or the memory.
      // The failure's category as the night will read it from the line just written (only if a rule may match).
      let category: string | undefined = event.error_category;
      const categoryOf = () => (category ??= classifyStored(event, compileCategoryPatterns(settings.error_categories)));
      if (event.exit_code === 0 || !(await hasState(root, settings, deps)) || !(await mayRemind(event, day, categoryOf).catch(() => true))) {
        return { result: { outcome: 'event', event, duration, reminded: null }, output: null };
      }
      const { remind } = await import('./hook-reminder.js');
      const reminder = await remindSafely(() => remind({ ...event, error_category: categoryOf() }, day), root, settings, arrival);
      return { result: { outcome: 'event', event, duration, reminded: reminder?.rule ?? null }, output: reminder?.output ?? null };
    }
  }
}

/** A state file exists: the night has run here (otherwise there is no rule to remind of). */
async function hasState(root: string, settings: Settings, deps: HookDeps): Promise<boolean> {
  return (await deps.fs.identify(resolve(root, settings.state_dir, 'state.json')).catch(() => undefined)) !== undefined;
}

/** The failure is already recorded: a reminder that breaks must not lose it, nor fail the agent. */
async function remindSafely<T>(fn: () => Promise<T>, root: string, settings: Settings, arrival: Date): Promise<T | null> {
  try {
    return await fn();
  } catch (error) {
    await rejectPayload(root, settings, arrival, `no reminder for this failure (it was recorded): ${error instanceof Error ? error.message : String(error)}`, '');
    return null;
  }
}


/** The row for program.ts's COMMANDS table. */
export const hookCommandSpec = {
  name: 'hook <agent>',
  description: 'record one agent hook payload from stdin as telemetry (agent: claude-code); on SessionStart and on a failure a rule covers, print the rules for the agent; always exits 0',
  options: [] as Option[],
  action: (args: string[], options: Record<string, unknown>, deps: CliDeps): Promise<number> => hookCommand(args[0], options as HookOptions, deps),
};
