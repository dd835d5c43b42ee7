import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookCommand, hookCommandSpec, PENDING_FILE, REJECTS_FILE } from '../../pipeline/cli/hook-command.js';
import { HOOK_SNIPPET } from '../../pipeline/cli/init-command.js';
import type { Clock } from '../../pipeline/io/clock.js';
import { parseClaudeCodeHook } from '../../pipeline/telemetry/claude-code-hook.js';
import { classifyStored } from '../../pipeline/telemetry/classify.js';
import { checkEvent, type TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { canonicalJson, inputHash } from '../../pipeline/telemetry/input-hash.js';
import { parsePending, PENDING_MAX_AGE_MS, prunePending, renderPending } from '../../pipeline/telemetry/hook-pending.js';
import { runCommand } from '../../pipeline/cli/run-command.js';
import { runCommandInProcess } from '../helpers/command.js';
import { makeDir, PACKAGE_ROOT } from '../helpers/repo.js';

/** Real hook payloads (PII-bearing paths): read here at test time, never copied into the repository. */
const QUANTSTATS = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'claude-code-hooks-misc', 'quantstats');
const haveData = existsSync(QUANTSTATS);
type Payload = Record<string, any>;
const realPayloads = (file: string): Payload[] => JSON.parse(readFileSync(join(QUANTSTATS, file), 'utf8'));

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

/** A clock the test moves by hand, shared by every hook call of one test. */
function manualClock(start = T0): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
}

async function hook(dir: string, stdin: string, options: { clock?: Clock; json?: boolean; env?: Record<string, string> } = {}) {
  return runCommandInProcess(dir, (deps) => hookCommand('claude-code', { json: options.json }, deps), {
    stdin, now: options.clock ?? manualClock(), json: options.json, ...(options.env ? { env: options.env } : {}),
  });
}

const telemetry = (dir: string, path = 'logs/telemetry.jsonl'): TelemetryEvent[] =>
  existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
const rejects = (dir: string): { time: string; reason: string; payload: string }[] =>
  existsSync(join(dir, '.sleep-cycle', REJECTS_FILE)) ? readFileSync(join(dir, '.sleep-cycle', REJECTS_FILE), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
const pending = (dir: string) => parsePending(existsSync(join(dir, '.sleep-cycle', PENDING_FILE)) ? readFileSync(join(dir, '.sleep-cycle', PENDING_FILE), 'utf8') : undefined);

describe.skipIf(!haveData)('sleep-cycle hook claude-code on the real quantstats payloads', () => {
  const pre = haveData ? realPayloads('pre_tool_use.json') : [];
  const post = haveData ? realPayloads('post_tool_use.json') : [];

  it('every PreToolUse converts: exit 0, nothing on stdout, nothing appended (these old payloads carry no tool_use_id)', async () => {
    const dir = makeDir({});
    expect(pre).toHaveLength(20);
    for (const payload of pre) {
      expect(await hook(dir, JSON.stringify(payload))).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(telemetry(dir)).toEqual([]);
    expect(rejects(dir)).toEqual([]);
    expect(pending(dir).size).toBe(0);
  });

  it('every PostToolUse appends one valid success event (duration 0 without a tool_use_id)', async () => {
    const dir = makeDir({});
    expect(post).toHaveLength(14);
    for (const payload of post) {
      expect(await hook(dir, JSON.stringify(payload))).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const events = telemetry(dir);
    expect(events).toHaveLength(14);
    events.forEach((event, i) => {
      expect(checkEvent(event)).toBeNull();
      expect(event).toEqual({
        timestamp: new Date(T0).toISOString(), tool_name: post[i]!.tool_name, input_hash: inputHash(post[i]!.tool_input),
        exit_code: 0, duration_ms: 0, session_id: post[i]!.session_id, agent: 'claude-code', input_summary: expect.any(String),
      });
      expect(event.input_summary!.length).toBeLessThanOrEqual(200);
      // Paths are shown relative to the project (the payload's cwd), so no home folder is written.
      if (post[i]!.tool_input.file_path) expect(event.input_summary).toBe(post[i]!.tool_input.file_path.slice(post[i]!.cwd.length + 1));
    });
    const byTool: Record<string, number> = {};
    for (const event of events) byTool[event.tool_name] = (byTool[event.tool_name] ?? 0) + 1;
    expect(byTool).toEqual({ TodoWrite: 5, Read: 4, Edit: 3, Bash: 2 });
    expect(events.filter((event) => event.error_category !== undefined)).toEqual([]);
    expect(rejects(dir)).toEqual([]);
  });

  it('pairs Pre and Post by tool_use_id: the event carries the time between them, and the pending entry is gone', async () => {
    const dir = makeDir({});
    const clock = manualClock();
    // Real payloads, given the tool_use_id that newer Claude Code builds send.
    const pairs = post.map((p, i) => {
      const match = pre.find((q) => q.tool_name === p.tool_name && canonicalJson(q.tool_input) === canonicalJson(p.tool_input));
      return { id: `toolu_test_${i}`, pre: match!, post: p, ms: 100 * (i + 1) };
    });
    expect(pairs.every((pair) => pair.pre !== undefined)).toBe(true);
    for (const pair of pairs) {
      await hook(dir, JSON.stringify({ ...pair.pre, tool_use_id: pair.id }), { clock });
      // Kept under a hash of the call id, never the id itself (a payload's fields are untrusted).
      expect(pending(dir).get(`use-${inputHash(pair.id)}`)).toBe(clock.now().getTime());
      expect(pending(dir).has(pair.id)).toBe(false);
      clock.advance(pair.ms);
      await hook(dir, JSON.stringify({ ...pair.post, tool_use_id: pair.id }), { clock });
    }
    // A file edit's own work takes milliseconds: in a mode that may prompt (these payloads carry none),
    // its wall time may be a human's answer, and is recorded as not measured (0).
    expect(telemetry(dir).map((event) => event.duration_ms)).toEqual(pairs.map((pair) => (pair.post.tool_name === 'Edit' ? 0 : pair.ms)));
    expect(pairs.filter((pair) => pair.post.tool_name === 'Edit')).toHaveLength(3);
    expect(pending(dir).size).toBe(0);
  });

  it('a Post whose Pre is unknown or expired gets duration 0', async () => {
    const dir = makeDir({});
    const clock = manualClock();
    await hook(dir, JSON.stringify({ ...pre[0], tool_use_id: 'toolu_old' }), { clock });
    clock.advance(PENDING_MAX_AGE_MS + 1);
    await hook(dir, JSON.stringify({ ...post[0], tool_use_id: 'toolu_old' }), { clock });
    await hook(dir, JSON.stringify({ ...post[1], tool_use_id: 'toolu_never_seen' }), { clock });
    expect(telemetry(dir).map((event) => event.duration_ms)).toEqual([0, 0]);
  });
});

describe('PostToolUseFailure', () => {
  const failure = (overrides: Payload): Payload => ({
    session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash', tool_input: { command: 'npm test', description: 'run tests' }, tool_use_id: 'toolu_f1', ...overrides,
  });

  it('"Exit code 1\\n…" gives exit 1 and the redacted error as message; the night reads its category from them', async () => {
    const dir = makeDir({});
    const clock = manualClock();
    const token = `ghp_${'k3Y9m2P8q1'.repeat(4)}`;
    await hook(dir, JSON.stringify(failure({ hook_event_name: 'PreToolUse' })), { clock });
    clock.advance(2500);
    const result = await hook(dir, JSON.stringify(failure({ error: `Exit code 1\n FAIL  test/a.test.ts\n      Tests  3 failed | 10 passed (13)\nGITHUB_TOKEN=${token}` })), { clock });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const [event] = telemetry(dir);
    expect(event).toMatchObject({ tool_name: 'Bash', exit_code: 1, duration_ms: 2500, session_id: 'sess-1', agent: 'claude-code' });
    // Classified at ingest (the hook compiles none of the classifier's patterns), from what the line holds.
    expect(event!.error_category).toBeUndefined();
    expect(classifyStored(event!)).toBe('test_failure');
    expect(event!.input_hash).toBe(inputHash({ command: 'npm test', description: 'run tests' }));
    expect(event!.input_summary).toBe('npm test');
    expect(event!.error_message).toMatch(/^Exit code 1\n FAIL/);
    expect(readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8')).not.toContain(token);
  });

  const CASES: [Payload, number, string][] = [
    [{ error: 'Exit code 127\nbash: line 1: pytest: command not found', tool_input: { command: 'pytest -q' } }, 127, 'dependency_missing'],
    [{ error: 'Exit code 1', tool_input: { command: 'grep -rn "needle" src' } }, 1, 'benign'],
    [{ error: 'Exit code 1\nsrc/a.ts:3: needle', tool_input: { command: 'grep -rn "needle" src && false' } }, 1, 'uncategorized'],
    [{ tool_name: 'Read', tool_input: { file_path: '/x' }, error: 'File does not exist.' }, 1, 'not_found'],
    [{ tool_name: 'Edit', tool_input: {}, error: 'String to replace not found in file.' }, 1, 'edit_mismatch'],
    [{ error: 'Exit code 130\n^C', is_interrupt: true }, 130, 'interrupted'],
    [{ error: undefined }, 1, 'uncategorized'],
  ];

  it.each(CASES)('%j → exit %s, %s (the payload parsed with classification, as an importer does)', (overrides, exitCode, category) => {
    const hookEvent = parseClaudeCodeHook(JSON.stringify(failure(overrides)));
    expect(hookEvent.kind).toBe('post');
    if (hookEvent.kind !== 'post') return;
    expect(hookEvent.call).toMatchObject({ exitCode, category });
  });

  it.each(CASES)('%j: the hook writes exit %s, and the night reads %s from the line it wrote', async (overrides, exitCode, category) => {
    const dir = makeDir({});
    await hook(dir, JSON.stringify(failure(overrides)));
    const [event] = telemetry(dir);
    expect(event).toMatchObject({ exit_code: exitCode });
    // Only an interruption (a payload flag, no pattern) is named by the hook itself.
    expect(event!.error_category).toBe(category === 'interrupted' ? 'interrupted' : undefined);
    expect(event!.error_category ?? classifyStored(event!)).toBe(category);
  });

  it('a subagent call is attributed to its agent_type', () => {
    const hookEvent = parseClaudeCodeHook(JSON.stringify(failure({ agent_id: 'a1', agent_type: 'code-reviewer', error: 'x' })));
    expect(hookEvent.kind === 'post' && hookEvent.call.agent).toBe('code-reviewer');
  });

  it('settings error_categories apply to hook events (in the night that reads them)', async () => {
    const config = 'error_categories:\n  - category: flaky_registry\n    pattern: "npm ERR! 503"\n';
    const dir = makeDir({ 'config/sleep-cycle.yaml': config });
    await hook(dir, JSON.stringify(failure({ error: 'Exit code 1\nnpm ERR! 503 Service Unavailable' })));
    await hook(dir, JSON.stringify(failure({ error: 'Exit code 1\nnpm ERR! 503 Service Unavailable' })));
    const night = await runCommandInProcess(dir, (deps) => runCommand({ dryRun: true, offline: true, json: true }, deps), { json: true, now: manualClock(T0 + 3600_000) });
    const clusters = (JSON.parse(night.stdout) as { data: { clusters: { error_category: string; count: number }[] } }).data.clusters;
    expect(clusters.map((c) => [c.error_category, c.count])).toEqual([['flaky_registry', 2]]);
  });
});

describe('broken payloads never block the agent', () => {
  it.each([
    ['invalid JSON', '{"hook_event_name": "PostToolUse", ', 'not JSON'],
    ['empty stdin', '', 'empty payload'],
    ['an array', '[1,2]', 'not a JSON object'],
    ['missing tool_name', JSON.stringify({ hook_event_name: 'PostToolUse', session_id: 's', tool_input: {} }), 'tool_name'],
    ['missing hook_event_name', JSON.stringify({ tool_name: 'Bash' }), 'missing hook_event_name'],
    ['an unsupported event', JSON.stringify({ hook_event_name: 'Stop', session_id: 's' }), 'unsupported hook_event_name "Stop"'],
  ])('%s goes to hook-rejects.jsonl with a reason; exit 0, nothing on stdout, no telemetry', async (_name, stdin, reason) => {
    const dir = makeDir({});
    expect(await hook(dir, stdin)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(telemetry(dir)).toEqual([]);
    const [reject] = rejects(dir);
    expect(reject!.reason).toContain(reason);
    expect(reject!.time).toBe(new Date(T0).toISOString());
  });

  it('a rejected payload is redacted and truncated in the rejects file', async () => {
    const dir = makeDir({});
    const key = `sk-ant-api03-${'Rt5'.repeat(12)}`;
    await hook(dir, `{"hook_event_name":"PostToolUse","error":"ANTHROPIC_API_KEY=${key}","pad":"${'p'.repeat(10_000)}"`);
    const text = readFileSync(join(dir, '.sleep-cycle', REJECTS_FILE), 'utf8');
    expect(text).not.toContain(key);
    expect(rejects(dir)[0]!.payload.length).toBeLessThanOrEqual(2000);
  });

  it('a broken config is noted in the rejects file, and the event is still recorded with default settings', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'min_repeats: [\n' });
    expect(await hook(dir, JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {} }))).toMatchObject({ code: 0, stdout: '' });
    expect(rejects(dir)[0]!.reason).toContain('not valid YAML');
    expect(telemetry(dir)).toEqual([expect.objectContaining({ tool_name: 'Bash', exit_code: 0 })]);
  });

  it('a rejected payload keeps no secret and no tool input', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'min_repeat: 3\n' });
    const payload = JSON.stringify({ hook_event_name: 'Unknown', tool_name: 'Bash', tool_input: { command: 'echo SECRET_INPUT' }, error: 'Exit code 128\nfatal\nAKIAIOSFODNN7EXAMPLE' });
    await hook(dir, payload);
    const text = readFileSync(join(dir, '.sleep-cycle/hook-rejects.jsonl'), 'utf8');
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(text).not.toContain('SECRET_INPUT');
  });

  it('an unreadable stdin is a reject', async () => {
    const dir = makeDir({});
    const result = await runCommandInProcess(dir, (deps) => hookCommand('claude-code', {}, { ...deps, readStdin: () => Promise.reject(new Error('EPIPE')) }));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(rejects(dir)[0]!.reason).toContain('EPIPE');
  });

  it('with --json it prints exactly one envelope', async () => {
    const dir = makeDir({});
    const ok = await hook(dir, JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Glob', tool_input: { pattern: '*.md' }, session_id: 's' }), { json: true });
    expect(JSON.parse(ok.stdout)).toMatchObject({ success: true, error: null, data: { outcome: 'event', duration: 'unknown', event: { tool_name: 'Glob', exit_code: 0 } } });
    const bad = await hook(dir, 'nope', { json: true });
    expect(bad.code).toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ success: true, data: { outcome: 'rejected' } });
  });

  it('an unknown agent is a usage error with exit 1, never 2 (Claude Code blocks the tool call on 2)', async () => {
    const dir = makeDir({});
    const result = await runCommandInProcess(dir, (deps) => hookCommand('cursor', {}, deps));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('E_USAGE');
    expect(hookCommandSpec.name).toBe('hook <agent>');
  });

  it('uses CLAUDE_PROJECT_DIR as the root when no --root is given', async () => {
    const project = makeDir({});
    const elsewhere = makeDir({});
    await hook(elsewhere, JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), { env: { CLAUDE_PROJECT_DIR: project } });
    expect(telemetry(project)).toHaveLength(1);
    expect(telemetry(elsewhere)).toEqual([]);
  });
});

describe('the pending table', () => {
  it('drops entries older than an hour and keeps at most the newest 1,000', () => {
    const table = new Map<string, number>();
    for (let i = 0; i < 1500; i += 1) table.set(`toolu_${i}`, T0 - i * 1000);
    const pruned = prunePending(table, T0);
    expect(pruned.size).toBe(1000);
    expect(pruned.has('toolu_0')).toBe(true);
    expect(pruned.has('toolu_1000')).toBe(false);
    expect(prunePending(new Map([['old', T0 - PENDING_MAX_AGE_MS - 1], ['new', T0]]), T0)).toEqual(new Map([['new', T0]]));
  });

  it('round-trips, and a torn or foreign file reads as empty', () => {
    const table = new Map([['b', 2], ['a', 1]]);
    expect(parsePending(renderPending(table))).toEqual(table);
    expect(parsePending('{"pending": {"a": 1')).toEqual(new Map());
    expect(parsePending('[]')).toEqual(new Map());
    expect(parsePending('{"pending": {"a": "soon"}}')).toEqual(new Map());
  });

  it('parallel PreToolUse hooks all land in the file', async () => {
    const dir = makeDir({});
    const payloads = Array.from({ length: 12 }, (_, i) => JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: `/f${i}` }, tool_use_id: `toolu_p${i}` }));
    await Promise.all(payloads.map((payload) => hook(dir, payload)));
    expect(pending(dir).size).toBe(12);
    expect(existsSync(join(dir, '.sleep-cycle', `${PENDING_FILE}.lock`))).toBe(false);
  });

  it('a lock left behind by a killed hook is taken over', async () => {
    const dir = makeDir({ [`.sleep-cycle/${PENDING_FILE}.lock`]: JSON.stringify({ pid: 1, at: T0 - 10_000 }) });
    await hook(dir, JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {}, tool_use_id: 'toolu_after_crash' }));
    expect(pending(dir).has(`use-${inputHash('toolu_after_crash')}`)).toBe(true);
    expect(existsSync(join(dir, '.sleep-cycle', `${PENDING_FILE}.lock`))).toBe(false);
  });
});

describe('examples/claude-code/settings.json', () => {
  it('installs the hook on SessionStart, PreToolUse, PermissionRequest, PostToolUse and PostToolUseFailure, as init prints it', () => {
    const example = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'examples', 'claude-code', 'settings.json'), 'utf8'));
    expect(Object.keys(example.hooks)).toEqual(['SessionStart', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure']);
    const hooks = [{ type: 'command', command: '\"$CLAUDE_PROJECT_DIR\"/node_modules/.bin/sleep-cycle hook claude-code' }];
    // SessionStart matches on how a session began (startup, resume, clear, compact): no matcher is all of them.
    expect(example.hooks.SessionStart).toEqual([{ hooks }]);
    for (const [event, entries] of Object.entries(example.hooks) as [string, any][]) {
      if (event !== 'SessionStart') expect(entries).toEqual([{ matcher: '*', hooks }]);
    }
    expect(example).toEqual(JSON.parse(HOOK_SNIPPET));
  });
});

describe('identifiers a payload carries are written as the night stores them', () => {
  it('a token as session_id, agent_type, tool_name or tool_use_id reaches no file and no output', async () => {
    const dir = makeDir({});
    const token = `ghp_${'Zq7Wm2Kx9Vb4'.repeat(3)}`;
    const random = 'kQ9xZ2vB7mW4nT8rY3pL6hJ1';
    const base = { transcript_path: '/tmp/t.jsonl', cwd: '/tmp', tool_input: { command: 'npm test' } };
    await hook(dir, JSON.stringify({ ...base, session_id: token, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: token }));
    const post = await hook(dir, JSON.stringify({ ...base, session_id: token, hook_event_name: 'PostToolUseFailure', tool_name: `mcp__${random}__run`, agent_type: random, tool_use_id: token, error: 'boom' }), { json: true });
    const files = [readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8'), existsSync(join(dir, '.sleep-cycle', PENDING_FILE)) ? readFileSync(join(dir, '.sleep-cycle', PENDING_FILE), 'utf8') : ''];
    for (const text of [...files, post.stdout]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(random);
    }
    const [event] = telemetry(dir);
    expect(event).toMatchObject({ session_id: expect.stringMatching(/^session-[0-9a-f]{6}$/), tool_name: expect.stringMatching(/^tool-[0-9a-f]{6}$/), agent: expect.stringMatching(/^agent-[0-9a-f]{6}$/) });
  });

  it('ordinary ids are written as they are', async () => {
    const dir = makeDir({});
    await hook(dir, JSON.stringify({ session_id: 'a6f1c0de-1234-4abc-9def-0123456789ab', transcript_path: '/t', cwd: '/tmp', hook_event_name: 'PostToolUse', tool_name: 'mcp__github__list_prs', agent_type: 'code-reviewer', tool_use_id: 'toolu_01', tool_input: {} }));
    expect(telemetry(dir)[0]).toMatchObject({ session_id: 'a6f1c0de-1234-4abc-9def-0123456789ab', tool_name: 'mcp__github__list_prs', agent: 'code-reviewer' });
  });
});
