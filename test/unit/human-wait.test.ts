import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookCommand, PENDING_FILE } from '../../pipeline/cli/hook-command.js';
import type { Clock } from '../../pipeline/io/clock.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { parsePending } from '../../pipeline/telemetry/hook-pending.js';
import { inputHash } from '../../pipeline/telemetry/input-hash.js';
import { mayPrompt, ownDuration } from '../../pipeline/telemetry/human-wait.js';
import { readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { runCommandInProcess } from '../helpers/command.js';
import { makeDir } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

describe('ownDuration: the call without the time a human was asked', () => {
  it.each([
    // [what, timing, duration, wait]
    ['a plain call', { tool: 'Bash', startMs: 0, endMs: 4000, permissionMode: 'default' }, 4000, 'none'],
    ['a question to the human is all his time', { tool: 'AskUserQuestion', startMs: 0, endMs: 90_000 }, 0, 'unmeasured'],
    ['a plan waiting for approval', { tool: 'ExitPlanMode', startMs: 0, endMs: 194_000, permissionMode: 'bypassPermissions' }, 0, 'unmeasured'],
    ['a command that started running late (progress line)', { tool: 'Bash', startMs: 0, endMs: 8873, runningSinceMs: 6792 }, 2081, 'excluded'],
    ['progress in whole seconds: a start within a second is no wait', { tool: 'Bash', startMs: 0, endMs: 30_000, runningSinceMs: 400 }, 30_000, 'none'],
    ['a prompt seen by the hook cannot be measured', { tool: 'Bash', startMs: 0, endMs: 60_000, asked: true }, 0, 'unmeasured'],
    ['a file edit in a mode that may prompt', { tool: 'Write', startMs: 0, endMs: 259_434, permissionMode: 'default' }, 0, 'unmeasured'],
    ['a file edit in an unknown mode (older builds)', { tool: 'Edit', startMs: 0, endMs: 300 }, 0, 'unmeasured'],
    ['a file edit when edits are accepted', { tool: 'Write', startMs: 0, endMs: 1800, permissionMode: 'acceptEdits' }, 1800, 'none'],
    ['anything when nothing prompts', { tool: 'Write', startMs: 0, endMs: 1800, permissionMode: 'bypassPermissions' }, 1800, 'none'],
    ['a clock that ran backwards', { tool: 'Bash', startMs: 5000, endMs: 4000 }, 0, 'none'],
  ] as const)('%s', (_, timing, durationMs, wait) => {
    expect(ownDuration(timing)).toEqual({ durationMs, wait });
  });

  it('knows when a prompt was possible', () => {
    expect(mayPrompt('Bash', 'default')).toBe(true);
    expect(mayPrompt('Bash', undefined)).toBe(true);
    expect(mayPrompt('Bash', 'acceptEdits')).toBe(true);
    expect(mayPrompt('Edit', 'acceptEdits')).toBe(false);
    expect(mayPrompt('mcp__github__create_issue', 'bypassPermissions')).toBe(false);
    expect(mayPrompt('Bash', 'dontAsk')).toBe(false);
  });
});

// Transcript lines in the shape of shared/formats/claude-code.md (newer builds: permissionMode, progress).
const prompt = (ms: number, permissionMode: string) => ({ type: 'user', sessionId: 's', permissionMode, timestamp: iso(ms), message: { role: 'user', content: 'go on' } });
const use = (id: string, name: string, input: unknown, ms: number) => ({ type: 'assistant', sessionId: 's', timestamp: iso(ms), message: { content: [{ type: 'tool_use', id, name, input }] } });
const done = (id: string, ms: number) => ({ type: 'user', sessionId: 's', timestamp: iso(ms), message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
const progress = (id: string, ms: number, seconds: number) => ({ type: 'progress', sessionId: 's', timestamp: iso(ms), parentToolUseID: id, toolUseID: 'bash-progress-0', data: { type: 'bash_progress', output: '', elapsedTimeSeconds: seconds } });

async function importDurations(lines: unknown[]): Promise<Record<string, number>> {
  const file = join(tempDir('human-wait-'), 'session.jsonl');
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  const durations: Record<string, number> = {};
  for await (const item of readClaudeCodeCalls(file)) if (item.kind === 'call') durations[item.event.input_summary ?? item.event.tool_name] = item.event.duration_ms;
  return durations;
}

describe('transcript durations exclude permission prompts', () => {
  it('cuts the wait before a command started (bash_progress), zeroes edits that may have waited, keeps the rest', async () => {
    const durations = await importDurations([
      prompt(0, 'default'),
      use('a', 'Bash', { command: 'python3 share.py' }, 1000),
      // Asked, approved after ~6.8 s, then ran for about 2 s.
      progress('a', 9792, 2),
      done('a', 9873),
      use('b', 'Write', { file_path: 'notes.md', content: 'x' }, 10_000),
      done('b', 269_434),
      use('c', 'Bash', { command: 'npm test' }, 270_000),
      done('c', 282_000),
      use('d', 'ExitPlanMode', { plan: 'p' }, 283_000),
      done('d', 477_000),
      prompt(478_000, 'acceptEdits'),
      use('e', 'Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, 479_000),
      done('e', 480_500),
    ]);
    expect(durations).toEqual({ 'python3 share.py': 2081, 'notes.md': 0, 'npm test': 12_000, '{plan}': 0, 'a.ts': 1500 });
  });
});

describe('hook durations exclude permission prompts', () => {
  function manualClock(): Clock & { advance(ms: number): void } {
    let now = T0;
    return { now: () => new Date(now), advance: (ms) => void (now += ms) };
  }
  const hook = (dir: string, payload: object, clock: Clock) =>
    runCommandInProcess(dir, (deps) => hookCommand('claude-code', { json: true }, deps), { stdin: JSON.stringify(payload), now: clock, json: true });
  const base = { session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', permission_mode: 'default' };
  const telemetry = (dir: string): TelemetryEvent[] => readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

  it('a call the human was asked about (PermissionRequest) is not timed; others are', async () => {
    const dir = makeDir({});
    const clock = manualClock();
    const asked = { ...base, tool_name: 'Bash', tool_input: { command: 'npm publish' } };
    const plain = { ...base, tool_name: 'Bash', tool_input: { command: 'npm test' } };
    await hook(dir, { ...asked, hook_event_name: 'PreToolUse', tool_use_id: 't1' }, clock);
    const request = await hook(dir, { ...asked, hook_event_name: 'PermissionRequest', permission_suggestions: [] }, clock);
    expect(JSON.parse(request.stdout).data).toEqual({ outcome: 'prompt' });
    expect([...parsePending(readFileSync(join(dir, '.sleep-cycle', PENDING_FILE), 'utf8')).keys()].sort()).toEqual([expect.stringMatching(/^ask:/), `use-${inputHash('t1')}`]);
    clock.advance(240_000);
    const post = await hook(dir, { ...asked, hook_event_name: 'PostToolUse', tool_use_id: 't1', tool_response: { stdout: '' } }, clock);
    expect(JSON.parse(post.stdout).data).toMatchObject({ outcome: 'event', duration: 'human', event: { tool_name: 'Bash', duration_ms: 0 } });
    await hook(dir, { ...plain, hook_event_name: 'PreToolUse', tool_use_id: 't2' }, clock);
    clock.advance(12_000);
    const second = await hook(dir, { ...plain, hook_event_name: 'PostToolUse', tool_use_id: 't2', tool_response: { stdout: '' } }, clock);
    expect(JSON.parse(second.stdout).data).toMatchObject({ duration: 'paired', event: { duration_ms: 12_000 } });
    expect(telemetry(dir).map((event) => [event.input_summary, event.duration_ms])).toEqual([['npm publish', 0], ['npm test', 12_000]]);
    // Both entries were claimed: nothing is left to match a later call by mistake.
    expect(parsePending(readFileSync(join(dir, '.sleep-cycle', PENDING_FILE), 'utf8')).size).toBe(0);
  });

  it('a Write in default mode is not timed; in bypassPermissions it is', async () => {
    const dir = makeDir({});
    const clock = manualClock();
    for (const [id, mode] of [['w1', 'default'], ['w2', 'bypassPermissions']] as const) {
      const payload = { ...base, permission_mode: mode, tool_name: 'Write', tool_input: { file_path: '/tmp/a.md', content: 'x' } };
      await hook(dir, { ...payload, hook_event_name: 'PreToolUse', tool_use_id: id }, clock);
      clock.advance(2500);
      await hook(dir, { ...payload, hook_event_name: 'PostToolUse', tool_use_id: id, tool_response: {} }, clock);
    }
    expect(telemetry(dir).map((event) => event.duration_ms)).toEqual([0, 2500]);
    expect(existsSync(join(dir, '.sleep-cycle', 'hook-rejects.jsonl'))).toBe(false);
  });
});
