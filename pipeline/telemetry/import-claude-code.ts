import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import chain from 'stream-chain';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { errors } from '../model/errors.js';
import { classifyError, splitExitCode, type CategoryPattern } from './classify.js';
import { parseTimestamp, type TelemetryEvent } from './event.js';
import { ownDuration } from './human-wait.js';
import { errorMessage, isRecord, textOf, type ImportItem } from './import-source.js';
import { inputHash } from './input-hash.js';
import { summarizeInput } from './input-summary.js';

/**
 * Claude Code transcripts → telemetry events. Accepts the native JSONL (one transcript line per line,
 * subagent files included) and JSON-array dumps of the same lines (hook scripts write those), which are
 * streamed element by element so a dump is never held in memory whole. Format: shared/formats/claude-code.md.
 */
export interface ClaudeCodeImportOptions {
  /** Settings-provided patterns tried before the default categories. */
  extraCategories?: readonly CategoryPattern[];
}

/** Which files a folder import reads. */
export function isClaudeCodeTranscript(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.json');
}

/** What is kept of a tool_use until its result arrives: small fields only, never the input itself. */
interface PendingCall {
  name: string;
  hash: string;
  timestamp: string | number | null;
  ms: number | null;
  command: string | undefined;
  summary: string | undefined;
  session: string | undefined;
  agent: string;
  /** The session's permission mode when the call was made (newer transcripts write it on user lines). */
  permissionMode: string | undefined;
  /** When the tool started running, from its earliest progress line (a prompt before it is not its time). */
  runningSinceMs: number | undefined;
}

/** What a transcript says about the session as it goes: its latest permission mode. */
interface SessionState {
  permissionMode: string | undefined;
}

/** A parallel call that Claude Code cancelled because a sibling failed: not a failure of its own. */
const CANCELLED = /^\s*(?:<tool_use_error>)?\s*Sibling tool call errored/;
const TOOL_USE_ERROR = /^\s*<tool_use_error>([\s\S]*?)<\/tool_use_error>\s*$/;

/** Yields one item per tool call of one transcript file, paired with its result by tool_use id. */
export async function* readClaudeCodeCalls(file: string, options: ClaudeCodeImportOptions = {}): AsyncGenerator<ImportItem> {
  const pending = new Map<string, PendingCall>();
  const session: SessionState = { permissionMode: undefined };
  for await (const line of transcriptLines(file)) {
    if (!isRecord(line)) {
      yield { kind: 'skipped', reason: 'invalid' };
      continue;
    }
    if (typeof line.permissionMode === 'string') session.permissionMode = line.permissionMode;
    if (line.type === 'progress') noteProgress(line, pending);
    yield* convertLine(line, pending, session, options.extraCategories ?? []);
  }
  for (let i = 0; i < pending.size; i += 1) yield { kind: 'skipped', reason: 'unpaired' };
}

/** `bash_progress` says how long the command has been running: it started `elapsedTimeSeconds` before the line. */
function noteProgress(line: Record<string, unknown>, pending: Map<string, PendingCall>): void {
  const call = typeof line.parentToolUseID === 'string' ? pending.get(line.parentToolUseID) : undefined;
  const elapsed = isRecord(line.data) ? line.data.elapsedTimeSeconds : undefined;
  const at = parseTimestamp(line.timestamp);
  if (call === undefined || typeof elapsed !== 'number' || !(elapsed >= 0) || at === null) return;
  const since = at - elapsed * 1000;
  if (call.runningSinceMs === undefined || since < call.runningSinceMs) call.runningSinceMs = since;
}

function* convertLine(line: Record<string, unknown>, pending: Map<string, PendingCall>, session: SessionState, extra: readonly CategoryPattern[]): Generator<ImportItem> {
  const content = isRecord(line.message) ? line.message.content : undefined;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      pending.set(block.id, pendingCall(block, line, session));
    } else if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      const call = pending.get(block.tool_use_id);
      if (!call) {
        yield { kind: 'skipped', reason: 'unpaired' };
        continue;
      }
      pending.delete(block.tool_use_id);
      yield buildItem(block.tool_use_id, call, block, line, extra);
    }
  }
}

function pendingCall(block: Record<string, unknown>, line: Record<string, unknown>, session: SessionState): PendingCall {
  const input = block.input;
  const ms = parseTimestamp(line.timestamp);
  return {
    name: String(block.name).slice(0, 200),
    hash: inputHash(input ?? null),
    timestamp: ms === null ? null : (line.timestamp as string | number),
    ms,
    command: isRecord(input) && typeof input.command === 'string' ? input.command : undefined,
    summary: summarizeInput(String(block.name), input, { cwd: typeof line.cwd === 'string' ? line.cwd : undefined }),
    session: typeof line.sessionId === 'string' ? line.sessionId : undefined,
    agent: typeof line.agentId === 'string' && line.agentId !== '' ? `agent-${line.agentId}` : 'claude-code',
    permissionMode: typeof line.permissionMode === 'string' ? line.permissionMode : session.permissionMode,
    runningSinceMs: undefined,
  };
}

function buildItem(id: string, call: PendingCall, result: Record<string, unknown>, line: Record<string, unknown>, extra: readonly CategoryPattern[]): ImportItem {
  const text = textOf(result.content);
  if (CANCELLED.test(text)) return { kind: 'skipped', reason: 'cancelled' };
  const endMs = parseTimestamp(line.timestamp);
  const timestamp = call.timestamp ?? (endMs === null ? null : new Date(endMs).toISOString());
  if (timestamp === null) return { kind: 'skipped', reason: 'invalid' };
  const event: TelemetryEvent = {
    timestamp,
    tool_name: call.name,
    input_hash: call.hash,
    exit_code: 0,
    // The call's own time: a permission prompt before it ran is the human's (human-wait.ts).
    duration_ms: call.ms !== null && endMs !== null ? ownDuration({ tool: call.name, startMs: call.ms, endMs, permissionMode: call.permissionMode, runningSinceMs: call.runningSinceMs }).durationMs : 0,
    ...(call.session !== undefined ? { session_id: call.session } : {}),
    agent: call.agent,
    ...(call.summary !== undefined ? { input_summary: call.summary } : {}),
  };
  if (result.is_error === true) {
    // Only an error's text is read for "Exit code N": a successful result is tool output, which may
    // legitimately start with those words.
    const { exitCode, rest } = splitExitCode(text);
    const message = TOOL_USE_ERROR.exec(rest)?.[1] ?? rest;
    event.exit_code = exitCode !== null && exitCode !== 0 ? exitCode : 1;
    event.error_category = classifyError({ toolName: call.name, exitCode: event.exit_code, message }, extra, call.command);
    const clean = errorMessage(message);
    if (clean !== '') event.error_message = clean;
  }
  return { kind: 'call', key: id, event };
}

/**
 * The transcript lines of a file, whichever form it has: a JSON array (streamed) or JSONL. A line that
 * does not parse comes out as `undefined`, which the caller counts as invalid.
 */
async function* transcriptLines(file: string): AsyncGenerator<unknown> {
  const array = (await firstSignificantByte(file)) === '['.charCodeAt(0);
  try {
    yield* array ? arrayElements(file) : jsonLines(file);
  } catch (error) {
    throw errors.io('read', file, error);
  }
}

async function* jsonLines(file: string): AsyncGenerator<unknown> {
  const reader = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let first = true;
  for await (const raw of reader) {
    const text = first ? raw.replace(/^\uFEFF/, '') : raw;
    first = false;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    yield value;
  }
}

/**
 * The elements of a top-level JSON array, one at a time (stream-json: parser → streamArray). A dump cut
 * short ends as one invalid item after the elements read so far, instead of failing the whole import.
 */
async function* arrayElements(file: string): AsyncGenerator<unknown> {
  const pipeline = chain([createReadStream(file), parser(), streamArray()]);
  try {
    for await (const item of pipeline as AsyncIterable<{ key: number; value: unknown }>) yield item.value;
  } catch (error) {
    // Read errors carry a system code (ENOENT, EACCES…); anything else is the parser rejecting the text.
    if (typeof (error as NodeJS.ErrnoException).code !== 'string') {
      yield undefined;
      return;
    }
    throw error;
  } finally {
    pipeline.destroy();
  }
}

/** The first byte that is not whitespace or a byte-order mark: `[` means a JSON-array dump. */
async function firstSignificantByte(file: string): Promise<number | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw errors.io('read', file, error);
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return null;
      for (let i = 0; i < bytesRead; i += 1) {
        const byte = buffer[i]!;
        if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09 && byte !== 0xef && byte !== 0xbb && byte !== 0xbf) return byte;
      }
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}
