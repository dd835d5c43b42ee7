import { relative, resolve } from 'node:path';
import { Option } from 'commander';
import { errors, truncate } from '../model/errors.js';
import type { Settings } from '../settings/schema.js';
import { redact } from '../safety/redact.js';
import { compileCategoryPatterns } from '../telemetry/classify.js';
import { createTelemetryLogger, type TelemetryCall } from '../telemetry/logger.js';
import { loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { CONFIG_FILE } from '../settings/resolve.js';

export interface LogOptions {
  root?: string;
  json?: boolean;
  tool?: string;
  exitCode?: string;
  durationMs?: string;
  category?: string;
  message?: string;
  input?: string;
  inputSummary?: string;
  session?: string;
  agent?: string;
  memoryRef?: string[];
  log?: string;
}

/** `sleep-cycle log`: append one telemetry event for a tool call, for agents without an adapter. */
export async function logCommand(options: LogOptions, deps: CliDeps): Promise<number> {
  const call = parseLogOptions(options);
  const root = await resolveRoot(deps, options.root);
  const flags: Partial<Settings> = options.log !== undefined ? { logs: [options.log] } : {};
  const { settings } = await loadSettings(deps, root, flags);
  const path = resolve(root, settings.logs[0]!);
  // A log that is MEMORY.md (or the state, through a link) would get JSON lines in the middle of it.
  assertDistinctRunPaths(root, settings, [], CONFIG_FILE);
  const logger = createTelemetryLogger({ path, now: () => deps.clock.now(), categories: compileCategoryPatterns(settings.error_categories) });
  const event = await logger.log(call);
  const shown = relative(root, path) || path;
  return printSuccess(deps, Boolean(options.json), { log: shown, event }, () =>
    `logged ${event.tool_name} exit ${event.exit_code}${event.error_category ? ` (${event.error_category})` : ''} in ${event.duration_ms} ms to ${shown}\n`,
  );
}

/** Flags → a logger call. Numbers are strict (`12abc` is an error, not 12); every problem is reported at once. */
export function parseLogOptions(options: LogOptions): TelemetryCall {
  const problems: string[] = [];
  const required = (flag: string, value: string | undefined): string => {
    if (value === undefined || value.trim() === '') problems.push(`${flag} is required`);
    return value ?? '';
  };
  const tool = required('--tool', options.tool);
  const exitText = required('--exit-code', options.exitCode);
  const durationText = required('--duration-ms', options.durationMs);
  const exitCode = /^\s*-?\d{1,10}\s*$/.test(exitText) ? Number(exitText) : NaN;
  if (exitText !== '' && !Number.isSafeInteger(exitCode)) problems.push(`--exit-code expects a whole number such as 0 or 1, found ${quote(exitText)}`);
  const durationMs = /^\s*\d+(?:\.\d+)?\s*$/.test(durationText) ? Number(durationText) : NaN;
  if (durationText !== '' && !Number.isFinite(durationMs)) problems.push(`--duration-ms expects a number of milliseconds ≥ 0 such as 1250, found ${quote(durationText)}`);
  let input: unknown;
  if (options.input !== undefined) {
    try {
      input = JSON.parse(options.input);
    } catch {
      problems.push(`--input expects JSON such as '{"command":"git push"}', found ${quote(options.input)}`);
    }
  }
  if (problems.length > 0) throw errors.usage(`sleep-cycle log: ${problems.join('; ')}. Nothing was appended.`, { problems });
  return {
    tool,
    exitCode,
    durationMs,
    ...(options.category !== undefined ? { category: options.category } : {}),
    ...(options.message !== undefined ? { message: options.message } : {}),
    ...(options.input !== undefined ? { input } : {}),
    ...(options.inputSummary !== undefined ? { inputSummary: options.inputSummary } : {}),
    ...(options.session !== undefined ? { sessionId: options.session } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.memoryRef !== undefined && options.memoryRef.length > 0 ? { memoryRefs: options.memoryRef } : {}),
  };
}

function quote(text: string): string {
  return JSON.stringify(truncate(redact(text), 40));
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The row for program.ts's COMMANDS table. */
export const logCommandSpec = {
  name: 'log',
  description: 'append one telemetry event for a tool call (validated, input hashed, message redacted)',
  options: [
    new Option('--tool <name>', 'tool name, e.g. Bash or git_push (required)'),
    new Option('--exit-code <n>', '0 for success, non-zero for a failure (required)'),
    new Option('--duration-ms <n>', 'wall time of the call in milliseconds (required)'),
    new Option('--category <name>', 'error category; on a failure without one, it is classified from --message'),
    new Option('--message <text>', 'error text (redacted and truncated before it is written)'),
    new Option('--input <json>', "the tool's input as JSON; its hash is written, and a short summary (the command, a path, or the argument names)"),
    new Option('--input-summary <text>', 'what the call was, e.g. the command line (redacted, at most 200 characters); default: derived from --input'),
    new Option('--session <id>', 'session id'),
    new Option('--agent <name>', 'agent name'),
    new Option('--memory-ref <id>', 'id of a rule the agent applied (repeatable)').argParser(collect),
    new Option('--log <path>', 'telemetry file to append to (default: the first of the `logs` setting)'),
  ],
  action: (_args: string[], options: Record<string, unknown>, deps: CliDeps): Promise<number> => logCommand(options as LogOptions, deps),
};
