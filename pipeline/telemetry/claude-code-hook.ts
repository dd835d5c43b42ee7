import { classifyError, splitExitCode, type CategoryPattern } from './classify.js';
import { summarizeInput } from './input-summary.js';
import type { TelemetryCall } from './logger.js';

/**
 * Claude Code hook payload (JSON on stdin) → what to record. Pure: the command adds the arrival time,
 * the duration from the pending table and the file effects. See ../shared/formats/claude-code.md.
 */
export type ClaudeCodeHook =
  /** A call starts: remember when, keyed by `tool_use_id` (older builds send none: nothing to pair). */
  | { kind: 'pre'; toolUseId: string | undefined }
  /** A call ended: one telemetry event, its duration still to be joined from the matching `pre`. */
  | { kind: 'post'; toolUseId: string | undefined; call: Omit<TelemetryCall, 'durationMs'> }
  | { kind: 'reject'; reason: string };

export const CLAUDE_CODE_AGENT = 'claude-code';
const MAX_ID_CHARS = 200;

export function parseClaudeCodeHook(text: string, categories: readonly CategoryPattern[] = []): ClaudeCodeHook {
  if (text.trim() === '') return reject('empty payload: nothing was read from stdin');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    return reject(`payload is not JSON (${(error as Error).message.slice(0, 80)})`);
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return reject('payload is not a JSON object');
  return mapClaudeCodeHook(payload as Record<string, unknown>, categories);
}

export function mapClaudeCodeHook(payload: Record<string, unknown>, categories: readonly CategoryPattern[] = []): ClaudeCodeHook {
  const event = payload.hook_event_name;
  if (event !== 'PreToolUse' && event !== 'PostToolUse' && event !== 'PostToolUseFailure') {
    return reject(typeof event === 'string' ? `unsupported hook_event_name "${event.slice(0, 40)}"` : 'missing hook_event_name');
  }
  const tool = payload.tool_name;
  if (!isId(tool)) return reject(`${event} payload without a usable tool_name`);
  const toolUseId = isId(payload.tool_use_id) ? payload.tool_use_id : undefined;
  if (event === 'PreToolUse') return { kind: 'pre', toolUseId };

  const input = payload.tool_input ?? null;
  const summary = summarizeInput(tool, input, { cwd: typeof payload.cwd === 'string' ? payload.cwd : undefined });
  const common = {
    tool,
    input,
    ...(summary !== undefined ? { inputSummary: summary } : {}),
    agent: isId(payload.agent_type) ? payload.agent_type : CLAUDE_CODE_AGENT,
    ...(isId(payload.session_id) ? { sessionId: payload.session_id } : {}),
  };
  if (event === 'PostToolUse') return { kind: 'post', toolUseId, call: { ...common, exitCode: 0 } };

  const error = typeof payload.error === 'string' ? payload.error : '';
  const { exitCode: parsed, rest } = splitExitCode(error);
  const exitCode = parsed !== null && parsed !== 0 ? parsed : 1;
  const category = payload.is_interrupt === true ? 'interrupted' : classifyError({ toolName: tool, exitCode, message: rest }, categories, commandOf(input));
  return { kind: 'post', toolUseId, call: { ...common, exitCode, category, ...(error !== '' ? { message: error } : {}) } };
}

/** A shell tool's command line, for the benign-search check. */
function commandOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const command = (input as { command?: unknown }).command;
  return typeof command === 'string' ? command : undefined;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_CHARS;
}

function reject(reason: string): ClaudeCodeHook {
  return { kind: 'reject', reason };
}
