import { errors, truncate } from '../model/errors.js';
import { redact } from '../safety/redact.js';
import { appendTelemetry } from './append.js';
import { CATEGORY_NAME, classifyError, splitExitCode, type CategoryPattern } from './classify.js';
import type { TelemetryEvent } from './event.js';
import { inputHash } from './input-hash.js';
import { capSummary, summarizeInput } from './input-summary.js';

/** One tool call as a producer describes it; the logger turns it into a contract event. */
export interface TelemetryCall {
  tool: string;
  exitCode: number;
  durationMs: number;
  /**
   * Left out on a failure: the classifier picks one from `message` (and `input.command` for shells), or,
   * with the logger's `classify: false`, ingest does (from the stored message and input summary).
   */
  category?: string;
  /** Raw error text: redacted and truncated before it is written. */
  message?: string;
  /** The tool's request; its canonical JSON is hashed into `input_hash` (absent: the hash of null). */
  input?: unknown;
  /** What the call was (a command, a path): redacted and cut to 200 characters; absent, it is derived from `input`. */
  inputSummary?: string;
  sessionId?: string;
  agent?: string;
  memoryRefs?: string[];
}

export interface BuildEventOptions {
  now: Date;
  categories?: readonly CategoryPattern[];
  /** false: a failure without a category is written without one (ingest classifies it). Default true. */
  classify?: boolean;
  maxMessageChars?: number;
}

export interface TelemetryLoggerOptions {
  path: string;
  now?: () => Date;
  /** Extra category patterns (settings' `error_categories`), tried before the built-in ones. */
  categories?: readonly CategoryPattern[];
  /** See BuildEventOptions.classify. */
  classify?: boolean;
  maxMessageChars?: number;
}

export interface TelemetryLogger {
  readonly path: string;
  /** Validates, builds and appends one event with a single write; E_USAGE (nothing written) if invalid. */
  log(call: TelemetryCall): Promise<TelemetryEvent>;
}

export const MAX_MESSAGE_CHARS = 2000;
const MAX_ID_CHARS = 200;
/** Classification reads at most this much text (head and tail): enough for test summaries at the end. */
const MAX_CLASSIFY_CHARS = 64 * 1024;

export function createTelemetryLogger(options: TelemetryLoggerOptions): TelemetryLogger {
  const now = options.now ?? (() => new Date());
  return {
    path: options.path,
    async log(call) {
      const event = buildTelemetryEvent(call, { now: now(), categories: options.categories, classify: options.classify, maxMessageChars: options.maxMessageChars }, options.path);
      await appendTelemetry(options.path, [event]);
      return event;
    },
  };
}

/** Pure: the contract event for one call, or E_USAGE listing every problem (`target` names the file in it). */
export function buildTelemetryEvent(call: TelemetryCall, options: BuildEventOptions, target = 'the telemetry file'): TelemetryEvent {
  const problems = findProblems(call);
  if (problems.length > 0) {
    throw errors.usage(`not a valid telemetry call: ${problems.join('; ')}. Nothing was appended to ${target}.`, { problems });
  }
  const event: TelemetryEvent = {
    timestamp: options.now.toISOString(),
    tool_name: call.tool,
    input_hash: inputHash(call.input ?? null),
    exit_code: call.exitCode,
    duration_ms: call.durationMs,
  };
  const category = call.category ?? (call.exitCode !== 0 && options.classify !== false ? classifyCall(call, options.categories ?? []) : undefined);
  if (category !== undefined) event.error_category = category;
  if (call.message !== undefined && call.message !== '') {
    event.error_message = truncateMiddle(redact(call.message), options.maxMessageChars ?? MAX_MESSAGE_CHARS);
  }
  if (call.sessionId !== undefined) event.session_id = call.sessionId;
  if (call.agent !== undefined) event.agent = call.agent;
  if (call.memoryRefs !== undefined) event.memory_refs = [...call.memoryRefs];
  const summary = call.inputSummary !== undefined ? capSummary(call.inputSummary) : call.input !== undefined ? summarizeInput(call.tool, call.input) : undefined;
  if (summary !== undefined) event.input_summary = summary;
  return event;
}

function classifyCall(call: TelemetryCall, categories: readonly CategoryPattern[]): string {
  const { rest } = splitExitCode(clip(call.message ?? '', MAX_CLASSIFY_CHARS));
  const input = call.input as { command?: unknown } | null | undefined;
  const command = typeof input === 'object' && input !== null && typeof input.command === 'string' ? input.command : undefined;
  return classifyError({ toolName: call.tool, exitCode: call.exitCode, message: rest }, categories, command);
}

function findProblems(call: TelemetryCall): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, field: string, expected: string, found: unknown) => {
    if (!ok) problems.push(`${field} must be ${expected}, found ${describe(found)}`);
  };
  if (typeof call !== 'object' || call === null) return [`the call must be an object, found ${describe(call)}`];
  expect(isId(call.tool), 'tool', `a non-empty string of at most ${MAX_ID_CHARS} characters`, call.tool);
  expect(Number.isSafeInteger(call.exitCode), 'exitCode', 'an integer', call.exitCode);
  expect(typeof call.durationMs === 'number' && Number.isFinite(call.durationMs) && call.durationMs >= 0, 'durationMs', 'a finite number ≥ 0', call.durationMs);
  if (call.category !== undefined) expect(typeof call.category === 'string' && CATEGORY_NAME.test(call.category), 'category', 'a lower_snake_case identifier such as git_error', call.category);
  if (call.message !== undefined) expect(typeof call.message === 'string', 'message', 'a string', call.message);
  if (call.inputSummary !== undefined) expect(typeof call.inputSummary === 'string', 'inputSummary', 'a string', call.inputSummary);
  if (call.sessionId !== undefined) expect(isId(call.sessionId), 'sessionId', `a non-empty string of at most ${MAX_ID_CHARS} characters`, call.sessionId);
  if (call.agent !== undefined) expect(isId(call.agent), 'agent', `a non-empty string of at most ${MAX_ID_CHARS} characters`, call.agent);
  if (call.memoryRefs !== undefined) expect(Array.isArray(call.memoryRefs) && call.memoryRefs.every(isId), 'memoryRefs', 'a list of rule ids', call.memoryRefs);
  if (call.input !== undefined && !isJson(call.input)) problems.push('input must be JSON data (no functions, BigInts or cycles)');
  return problems;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_CHARS;
}

function isJson(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/** Found values are untrusted: redacted and cut before they reach an error message. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return truncate(redact(text), 60);
}

/**
 * Keeps the head and the tail: a long error's first lines say what ran, its last lines usually say
 * what broke. Never splits a surrogate pair.
 */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - TRUNCATED.length);
  const headEnd = isHighSurrogate(text, Math.ceil(room * 0.75) - 1) ? Math.ceil(room * 0.75) - 1 : Math.ceil(room * 0.75);
  const tailLength = room - headEnd;
  const tailStart = isHighSurrogate(text, text.length - tailLength - 1) ? text.length - tailLength + 1 : text.length - tailLength;
  return `${text.slice(0, headEnd)}${TRUNCATED}${text.slice(tailStart)}`;
}

const TRUNCATED = '\n…[truncated]…\n';

function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max / 2)}\n${text.slice(-max / 2)}`;
}
