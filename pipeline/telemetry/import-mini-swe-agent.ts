import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { errors, SleepCycleError } from '../model/errors.js';
import { classifyError, type CategoryPattern } from './classify.js';
import type { TelemetryEvent } from './event.js';
import { errorMessage, isRecord, textOf, type ImportItem } from './import-source.js';
import { inputHash } from './input-hash.js';
import { capSummary } from './input-summary.js';

/**
 * mini-swe-agent 1.x trajectories (`*.traj.json`) → telemetry events: one per assistant action, its
 * exit code from the next turn's `<returncode>N</returncode>`. Format: shared/formats/agent-traces.md.
 *
 * A trajectory is one task that the agent itself kept in memory and wrote with one `json.dumps`, so it
 * is read whole (with a size guard) rather than streamed: its `instance_id` comes after the messages.
 *
 * Every assistant turn becomes exactly one item, so per file: events = bash actions with a
 * `<returncode>` + the final submission (its observation is the diff, not a return code; it ran,
 * exit 0) + timed-out commands (killed, no return code: exit 124 as from timeout(1), category
 * `timeout`) + format errors. A turn with no observation after it is `unpaired`.
 */
export interface MiniSweAgentImportOptions {
  extraCategories?: readonly CategoryPattern[];
}

export function isMiniSweAgentTrajectory(name: string): boolean {
  return name.endsWith('.traj.json');
}

const MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024;
const BASH_BLOCK = /```bash[^\S\n]*\n([\s\S]*?)```/;
const FORMAT_ERROR = /^\s*Please always provide EXACTLY ONE action/;
const RETURN_CODE = /^\s*<returncode>(-?\d+)<\/returncode>/;
const TIMED_OUT = /^\s*The last command <command>[\s\S]*?<\/command> timed out/;
const SUBMIT = /\b(?:COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT)\b/;
export const TIMEOUT_EXIT_CODE = 124;
export const MINI_SWE_AGENT_TOOL = 'bash';

interface Turn {
  instance: string;
  step: number;
  timestamp: string;
  action: string;
  observation: string;
}

export async function* readMiniSweAgentCalls(file: string, options: MiniSweAgentImportOptions = {}): AsyncGenerator<ImportItem> {
  const trajectory = await readTrajectory(file);
  if (!isRecord(trajectory) || !Array.isArray(trajectory.messages)) {
    yield { kind: 'skipped', reason: 'invalid' };
    return;
  }
  const messages = trajectory.messages.filter(isRecord);
  const instance = typeof trajectory.instance_id === 'string' && trajectory.instance_id !== '' ? trajectory.instance_id : basename(file).replace(/\.traj\.json$/, '');
  const stamps = actionTimestamps(messages);
  let step = 0;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    step += 1;
    const next = messages[i + 1];
    if (next?.role !== 'user') {
      yield { kind: 'skipped', reason: 'unpaired' };
      continue;
    }
    const turn = { instance, step, timestamp: stamps.get(i)!, action: textOf(message.content), observation: textOf(next.content) };
    yield buildItem(turn, options.extraCategories ?? []);
  }
}

/** One assistant turn and the observation after it → an item (pure). */
export function buildItem(turn: Turn, extra: readonly CategoryPattern[]): ImportItem {
  const key = `${turn.instance}:${turn.step}`;
  const base = { timestamp: turn.timestamp, duration_ms: 0, session_id: turn.instance, agent: 'mini-swe-agent' };
  if (FORMAT_ERROR.test(turn.observation)) {
    const event: TelemetryEvent = {
      ...base,
      tool_name: 'format_error',
      input_hash: inputHash({ action: turn.action }),
      exit_code: 1,
      error_category: 'format_error',
      error_message: errorMessage(turn.observation.trim().split('\n')[0] ?? ''),
    };
    return { kind: 'format_error', key, event };
  }
  const command = BASH_BLOCK.exec(turn.action)?.[1] ?? '';
  const outcome = outcomeOf(turn.observation, command);
  if (outcome === null) return { kind: 'skipped', reason: 'unpaired' };
  // The agent's one tool is its shell; which program a command ran is its family (tool-family.ts), read
  // from the summary and the error text, not from the first word (`cd /testbed && python x.py` is python).
  const toolName = MINI_SWE_AGENT_TOOL;
  const summary = capSummary(command);
  const event: TelemetryEvent = { ...base, tool_name: toolName, input_hash: inputHash({ command }), exit_code: outcome.exitCode, ...(summary !== undefined ? { input_summary: summary } : {}) };
  if (outcome.exitCode !== 0) {
    event.error_category =
      outcome.exitCode === TIMEOUT_EXIT_CODE && TIMED_OUT.test(turn.observation)
        ? 'timeout'
        : classifyError({ toolName, exitCode: outcome.exitCode, message: outcome.output }, extra, command);
    const clean = errorMessage(outcome.output);
    if (clean !== '') event.error_message = clean;
  }
  return { kind: 'call', key, event };
}

function outcomeOf(observation: string, command: string): { exitCode: number; output: string } | null {
  const code = RETURN_CODE.exec(observation);
  if (code) return { exitCode: Number(code[1]), output: commandOutput(observation) };
  if (TIMED_OUT.test(observation)) return { exitCode: TIMEOUT_EXIT_CODE, output: `timed out\n${commandOutput(observation)}` };
  if (SUBMIT.test(command)) return { exitCode: 0, output: '' };
  return null;
}

/**
 * The command's output from an observation: `<output>…</output>`, or for long outputs
 * `<output_head>…</output_head><elided_chars>…</elided_chars><output_tail>…</output_tail>` (the
 * "output was too long" warning around them is the agent's advice, not the command's error).
 */
export function commandOutput(observation: string): string {
  const head = between(observation, '<output_head>', '</output_head>', false);
  const tail = between(observation, '<output_tail>', '</output_tail>', true);
  if (head !== null || tail !== null) {
    const elided = between(observation, '<elided_chars>', '</elided_chars>', false)?.trim() ?? 'output elided';
    return `${head ?? ''}\n[… ${elided} …]\n${tail ?? ''}`;
  }
  return between(observation, '<output>', '</output>', true) ?? '';
}

function between(text: string, open: string, close: string, lastClose: boolean): string | null {
  const start = text.indexOf(open);
  if (start === -1) return null;
  const end = lastClose ? text.lastIndexOf(close) : text.indexOf(close, start);
  return text.slice(start + open.length, end > start ? end : undefined).replace(/^\n/, '');
}

/**
 * ISO time of each assistant turn from `extra.response.created` (unix seconds). A turn without one
 * gets the previous turn's time + 1 ms (the first such turn: the first known time, else the epoch).
 */
function actionTimestamps(messages: Record<string, unknown>[]): Map<number, string> {
  const created = (m: Record<string, unknown>): number | null => {
    const response = isRecord(m.extra) && isRecord(m.extra.response) ? m.extra.response : undefined;
    const value = response?.created;
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value * 1000 : null;
  };
  const firstKnown = messages.map(created).find((ms) => ms !== null) ?? 0;
  const out = new Map<number, string>();
  let previous: number | null = null;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    const ms: number = created(message) ?? (previous === null ? firstKnown : previous + 1);
    out.set(i, new Date(ms).toISOString());
    previous = ms;
  }
  return out;
}

async function readTrajectory(file: string): Promise<unknown> {
  try {
    const { size } = await stat(file);
    if (size > MAX_TRAJECTORY_BYTES) {
      throw errors.usage(`${file}: ${size} bytes is not a mini-swe-agent trajectory (one task, at most ${MAX_TRAJECTORY_BYTES} bytes).`, { path: file });
    }
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    if (error instanceof SleepCycleError) throw error;
    throw errors.io('read', file, error);
  }
}
