import { classifyError, splitExitCode, type CategoryPattern } from './classify.js';
import { safeIdentifier } from '../safety/identifier.js';
import { inputHash } from './input-hash.js';
import { summarizeInput } from './input-summary.js';
import type { TelemetryCall } from './logger.js';

/**
 * Claude Code hook payload (JSON on stdin) → what to record. Pure: the command adds the arrival time,
 * the duration from the pending table and the file effects. See ../shared/formats/claude-code.md.
 */
export type ClaudeCodeHook =
  /** A call starts: remember when, keyed by `tool_use_id` (older builds send none: nothing to pair). */
  | { kind: 'pre'; toolUseId: string | undefined }
  /**
   * Claude Code is about to ask the human for permission (a hook installed on PermissionRequest). The
   * payload has no tool_use_id: the call is known by `askKey` (session, tool and input) until it ends.
   */
  | { kind: 'asked'; askKey: string }
  /**
   * A call ended: one telemetry event, its duration still to be joined from the matching `pre` (and
   * a prompt under `askKey`, whose wait is not the tool's: see human-wait.ts).
   */
  | { kind: 'post'; toolUseId: string | undefined; askKey: string; permissionMode: string | undefined; call: Omit<TelemetryCall, 'durationMs'> }
  /** A session starts (or resumes, or its context was cleared or compacted): time to show the rules. */
  | { kind: 'session'; sessionId: string | undefined; source: string | undefined }
  | { kind: 'reject'; reason: string };

export const CLAUDE_CODE_AGENT = 'claude-code';
const MAX_ID_CHARS = 200;

/**
 * `categories`: extra patterns tried before the built-in ones. `null`: the failure is not classified here
 * but at ingest, from the stored (redacted) message and input summary, as for any event without a category
 * (the hook runs on every tool call, and compiling the classifier's patterns was its largest cost).
 */
export function parseClaudeCodeHook(text: string, categories: readonly CategoryPattern[] | null = []): ClaudeCodeHook {
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

export function mapClaudeCodeHook(payload: Record<string, unknown>, categories: readonly CategoryPattern[] | null = []): ClaudeCodeHook {
  const event = payload.hook_event_name;
  if (event === 'SessionStart') {
    return { kind: 'session', sessionId: isId(payload.session_id) ? safeIdentifier('session_id', payload.session_id) : undefined, source: isId(payload.source) ? payload.source : undefined };
  }
  if (event !== 'PreToolUse' && event !== 'PostToolUse' && event !== 'PostToolUseFailure' && event !== 'PermissionRequest') {
    return reject(typeof event === 'string' ? `unsupported hook_event_name "${event.slice(0, 40)}"` : 'missing hook_event_name');
  }
  if (!isId(payload.tool_name)) return reject(`${event} payload without a usable tool_name`);
  // The call id is kept only as a hash, and identifiers are written as the night would store them (a
  // token as a tool or session name becomes its placeholder): nothing of a payload reaches a file
  // unchecked. A call's start writes no name, so it checks none.
  const toolUseId = isId(payload.tool_use_id) ? `use-${inputHash(payload.tool_use_id)}` : undefined;
  if (event === 'PreToolUse') return { kind: 'pre', toolUseId };
  const tool = safeIdentifier('tool_name', payload.tool_name);
  const input = payload.tool_input ?? null;
  const askKey = askKeyOf(payload.session_id, tool, input);
  if (event === 'PermissionRequest') return { kind: 'asked', askKey };

  const summary = summarizeInput(tool, input, { cwd: typeof payload.cwd === 'string' ? payload.cwd : undefined });
  const common = {
    tool,
    input,
    ...(summary !== undefined ? { inputSummary: summary } : {}),
    agent: isId(payload.agent_type) ? safeIdentifier('agent', payload.agent_type) : CLAUDE_CODE_AGENT,
    ...(isId(payload.session_id) ? { sessionId: safeIdentifier('session_id', payload.session_id) } : {}),
  };
  const permissionMode = typeof payload.permission_mode === 'string' ? payload.permission_mode : undefined;
  const post = { kind: 'post', toolUseId, askKey, permissionMode } as const;
  if (event === 'PostToolUse') return { ...post, call: { ...common, exitCode: 0 } };

  const error = typeof payload.error === 'string' ? payload.error : '';
  const { exitCode: parsed, rest } = splitExitCode(error);
  const exitCode = parsed !== null && parsed !== 0 ? parsed : 1;
  const category = payload.is_interrupt === true ? 'interrupted' : categories === null ? undefined : classifyError({ toolName: tool, exitCode, message: rest }, categories, commandOf(input));
  return { ...post, call: { ...common, exitCode, ...(category !== undefined ? { category } : {}), ...(error !== '' ? { message: error } : {}) } };
}

/** A call as PermissionRequest and PostToolUse both describe it (neither carries the other's id). */
function askKeyOf(session: unknown, tool: string, input: unknown): string {
  return `ask:${inputHash({ session: typeof session === 'string' ? session : '', tool, input })}`;
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
