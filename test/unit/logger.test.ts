import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logCommand, logCommandSpec, parseLogOptions, type LogOptions } from '../../pipeline/cli/log-command.js';
import { SleepCycleError } from '../../pipeline/model/errors.js';
import { compileCategoryPatterns } from '../../pipeline/telemetry/classify.js';
import { checkEvent } from '../../pipeline/telemetry/event.js';
import { inputHash } from '../../pipeline/telemetry/input-hash.js';
import { createTelemetryLogger, MAX_MESSAGE_CHARS, truncateMiddle, type TelemetryCall } from '../../pipeline/telemetry/logger.js';
import { runCommandInProcess } from '../helpers/command.js';
import { makeDir } from '../helpers/repo.js';

const at = (iso: string) => () => new Date(iso);
const readLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

async function usageError(promise: Promise<unknown>): Promise<SleepCycleError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SleepCycleError);
  expect((error as SleepCycleError).code).toBe('E_USAGE');
  return error as SleepCycleError;
}

describe('createTelemetryLogger', () => {
  it('appends one valid contract line, stamped by the injected clock', async () => {
    const path = join(makeDir({}), 'logs', 'telemetry.jsonl');
    const logger = createTelemetryLogger({ path, now: at('2026-11-20T10:00:00.000Z') });
    const event = await logger.log({ tool: 'git_push', exitCode: 0, durationMs: 812, input: { remote: 'origin' }, sessionId: 's-1', agent: 'claude-code', memoryRefs: ['r-3f9a1c'] });
    const lines = readLines(path);
    expect(lines).toEqual([event]);
    expect(checkEvent(lines[0])).toBeNull();
    expect(event).toEqual({
      timestamp: '2026-11-20T10:00:00.000Z', tool_name: 'git_push', input_hash: inputHash({ remote: 'origin' }),
      exit_code: 0, duration_ms: 812, session_id: 's-1', agent: 'claude-code', memory_refs: ['r-3f9a1c'], input_summary: '{remote}',
    });
  });

  it('hashes the canonical input: key order does not matter, absent input is the hash of null', async () => {
    const path = join(makeDir({}), 't.jsonl');
    const logger = createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z') });
    const a = await logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, input: { command: 'ls', opts: { b: 2, a: 1 } } });
    const b = await logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, input: { opts: { a: 1, b: 2 }, command: 'ls' } });
    const c = await logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, input: { command: 'ls -a' } });
    const none = await logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1 });
    expect(a.input_hash).toBe(b.input_hash);
    expect(a.input_hash).not.toBe(c.input_hash);
    expect(a.input_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(none.input_hash).toBe(inputHash(null));
  });

  it('redacts a secret in the message before it reaches the file', async () => {
    const path = join(makeDir({}), 't.jsonl');
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const key = `sk-ant-api03-${'Zx9'.repeat(12)}`;
    const logger = createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z') });
    const event = await logger.log({ tool: 'Bash', exitCode: 128, durationMs: 40, message: `fatal: https://x:${token}@github.com/o/r.git denied; ANTHROPIC_API_KEY=${key}` });
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(key);
    expect(event.error_message).toContain('[REDACTED:');
  });

  it('truncates a long message, keeping its head and its tail', async () => {
    const path = join(makeDir({}), 't.jsonl');
    const message = `Exit code 1\nFIRST LINE\n${'x'.repeat(20_000)}\nLAST LINE: AssertionError`;
    const event = await createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z') }).log({ tool: 'Bash', exitCode: 1, durationMs: 5, message });
    expect(event.error_message!.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(event.error_message).toMatch(/^Exit code 1\nFIRST LINE/);
    expect(event.error_message).toMatch(/LAST LINE: AssertionError$/);
    expect(event.error_message).toContain('[truncated]');
    // Classified on the whole text, not the truncated one.
    expect(event.error_category).toBe('test_failure');
    expect(truncateMiddle('😀'.repeat(10), 7)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('classifies a failure without a category, leaves successes alone and keeps a given category', async () => {
    const path = join(makeDir({}), 't.jsonl');
    const categories = compileCategoryPatterns([{ category: 'stale_lock', pattern: 'index\\.lock' }]);
    const logger = createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z'), categories });
    const log = (call: Partial<TelemetryCall>) => logger.log({ tool: 'Bash', exitCode: 1, durationMs: 1, ...call });
    expect((await log({ message: 'Exit code 127\nbash: pytest: command not found' })).error_category).toBe('dependency_missing');
    expect((await log({ message: 'Exit code 1', input: { command: 'grep -rn TODO src' } })).error_category).toBe('benign');
    expect((await log({ message: "fatal: Unable to create '/r/.git/index.lock': File exists." })).error_category).toBe('stale_lock');
    expect((await log({})).error_category).toBe('uncategorized');
    expect((await log({ category: 'git_error', message: 'whatever' })).error_category).toBe('git_error');
    expect((await log({ exitCode: 0 })).error_category).toBeUndefined();
  });

  it('rejects an invalid call with E_USAGE listing every problem, and leaves the file untouched', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': '{"existing":true}\n' });
    const path = join(dir, 'logs', 'telemetry.jsonl');
    const before = readFileSync(path);
    const logger = createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z') });
    const error = await usageError(logger.log({ tool: '', exitCode: 1.5, durationMs: -3, category: 'Bad Category!' }));
    for (const field of ['tool', 'exitCode', 'durationMs', 'category']) expect(error.message).toContain(field);
    expect(error.message).toContain('Nothing was appended');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await usageError(logger.log({ tool: 'Bash', exitCode: 0, durationMs: Number.NaN }));
    await usageError(logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, input: cyclic }));
    await usageError(logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, memoryRefs: ['ok', 3 as unknown as string] }));
    await usageError(logger.log(null as unknown as TelemetryCall));
    expect(readFileSync(path)).toEqual(before);
  });

  it('never leaks a secret through an E_USAGE message', async () => {
    const token = `ghp_${'Q7w8E9r0T1'.repeat(4)}`;
    const logger = createTelemetryLogger({ path: join(makeDir({}), 't.jsonl') });
    const error = await usageError(logger.log({ tool: 'Bash', exitCode: 0, durationMs: 1, sessionId: `${token}${'x'.repeat(300)}` }));
    expect(error.message).not.toContain(token);
  });

  it('20 concurrent loggers × 50 lines each write 1,000 intact lines', async () => {
    const path = join(makeDir({}), 'logs', 'telemetry.jsonl');
    const loggers = Array.from({ length: 20 }, () => createTelemetryLogger({ path, now: at('2026-11-20T10:00:00Z') }));
    const message = 'm'.repeat(1500);
    await Promise.all(
      loggers.flatMap((logger, w) =>
        Array.from({ length: 50 }, (_, i) => logger.log({ tool: `tool_${w}`, exitCode: 1, durationMs: i, category: 'git_error', message, sessionId: `w${w}-${i}` })),
      ),
    );
    const raw = readFileSync(path, 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = raw.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1000);
    const seen = new Set<string>();
    for (const line of lines) {
      const event = JSON.parse(line);
      expect(checkEvent(event)).toBeNull();
      expect(event.error_message).toBe(message);
      expect(event.session_id).toBe(`w${event.tool_name.slice(5)}-${event.duration_ms}`);
      seen.add(event.session_id);
    }
    expect(seen.size).toBe(1000);
  });
});

describe('sleep-cycle log', () => {
  const run = (dir: string, options: LogOptions) => runCommandInProcess(dir, (deps) => logCommand({ json: true, ...options }, deps), { json: true, now: '2026-11-20T12:00:00Z' });
  const required = { tool: 'Bash', exitCode: '1', durationMs: '1250' };

  it('appends one event to the first `logs` file and prints it in the envelope', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'logs: [logs/agent.jsonl]\n' });
    const result = await run(dir, { ...required, message: 'Exit code 1\nfatal: not a git repository', input: '{"command":"git status"}', session: 's-9', agent: 'my-agent', memoryRef: ['r-1', 'r-2'] });
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope).toMatchObject({ success: true, error: null, data: { log: join('logs', 'agent.jsonl') } });
    expect(envelope.data.event).toEqual({
      timestamp: '2026-11-20T12:00:00.000Z', tool_name: 'Bash', input_hash: inputHash({ command: 'git status' }), exit_code: 1, duration_ms: 1250,
      error_category: 'git_error', error_message: 'Exit code 1\nfatal: not a git repository', session_id: 's-9', agent: 'my-agent', memory_refs: ['r-1', 'r-2'],
      input_summary: 'git status',
    });
    expect(readLines(join(dir, 'logs', 'agent.jsonl'))).toEqual([envelope.data.event]);
  });

  it('--input-summary is written redacted and cut to 200 characters; it wins over the summary --input gives', async () => {
    const dir = makeDir({});
    const key = `sk-ant-api03-${'Zx9'.repeat(12)}`;
    const long = `ANTHROPIC_API_KEY=${key} python3 -m pytest ${'tests/test_a.py '.repeat(20)}`;
    const result = await run(dir, { ...required, input: '{"command":"ls"}', inputSummary: long });
    const event = JSON.parse(result.stdout).data.event;
    expect(event.input_hash).toBe(inputHash({ command: 'ls' }));
    expect(event.input_summary).toHaveLength(200);
    expect(event.input_summary).toMatch(/^ANTHROPIC_API_KEY=\[REDACTED:[a-z_]+\] python3 -m pytest tests\/test_a\.py .*…$/);
    expect(readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8')).not.toContain(key);
    // Without either flag there is nothing to summarise.
    const bare = JSON.parse((await run(dir, required)).stdout).data.event;
    expect(bare).not.toHaveProperty('input_summary');
  });

  it('--log overrides the setting; without --json it prints one readable line', async () => {
    const dir = makeDir({});
    const result = await runCommandInProcess(dir, (deps) => logCommand({ ...required, exitCode: '0', log: 'other.jsonl' }, deps));
    expect(result).toMatchObject({ code: 0, stdout: 'logged Bash exit 0 in 1250 ms to other.jsonl\n' });
    expect(readLines(join(dir, 'other.jsonl'))).toHaveLength(1);
  });

  it.each([
    [{ ...required, exitCode: '1x' }, '--exit-code'],
    [{ ...required, exitCode: '1.0' }, '--exit-code'],
    [{ ...required, durationMs: '12abc' }, '--duration-ms'],
    [{ ...required, durationMs: '-5' }, '--duration-ms'],
    [{ ...required, durationMs: '' }, '--duration-ms is required'],
    [{ ...required, input: '{command: ls}' }, '--input expects JSON'],
    [{ exitCode: '1' }, '--tool is required'],
    [{ ...required, category: 'Not an id' }, 'category'],
  ] as [LogOptions, string][])('bad flags are E_USAGE (exit 2) and append nothing: %j', async (options, mention) => {
    const dir = makeDir({ 'logs/telemetry.jsonl': '' });
    const result = await run(dir, options);
    expect(result.code).toBe(2);
    const envelope = JSON.parse(result.stdout);
    expect(envelope).toMatchObject({ success: false, data: null, error: { code: 'E_USAGE' } });
    expect(envelope.error.message).toContain(mention);
    expect(readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8')).toBe('');
  });

  it('parses flags strictly and reports all problems at once', () => {
    expect(parseLogOptions({ tool: 'x', exitCode: '-1', durationMs: '0.5' })).toEqual({ tool: 'x', exitCode: -1, durationMs: 0.5 });
    expect(() => parseLogOptions({})).toThrow(/--tool is required; --exit-code is required; --duration-ms is required/);
  });

  it('exports a command-table row', () => {
    expect(logCommandSpec.name).toBe('log');
    expect(logCommandSpec.options.map((option) => option.long)).toEqual(
      expect.arrayContaining(['--tool', '--exit-code', '--duration-ms', '--category', '--message', '--input', '--input-summary', '--session', '--agent', '--log']),
    );
  });
});
