import { classifyStored } from '../../pipeline/telemetry/classify.js';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, sc } from '../helpers/in-process.js';
import { CLI, git, makeDir, read } from '../helpers/repo.js';
import { childEnv } from '../helpers/temp.js';

/**
 * The day side of the loop (issue 15): the rules in the agent's context at session start, the rule
 * next to a failure of its cluster (once per session), and the exposures a night counts. In real temp
 * git repositories, through the CLI's own command table, with the telemetry written by the hook itself.
 */
type Payload = Record<string, unknown>;

const failure = (session: string, command: string, error: string, id: string): Payload => ({
  session_id: session, transcript_path: '/dev/null', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command }, tool_use_id: id, error,
});
const start = (session: string): Payload => ({ session_id: session, transcript_path: '/dev/null', hook_event_name: 'SessionStart', source: 'startup' });

const PYTEST = 'Exit code 127\nbash: pytest: command not found';
// Causes that differ (not one missing program three times): rules whose advice is the same are one bullet.
const RUFF = 'Exit code 2\nerror: Failed to parse pyproject.toml';

async function hook(dir: string, payload: Payload | string, now: string) {
  const run = await sc(dir, ['hook', 'claude-code'], { stdin: typeof payload === 'string' ? payload : JSON.stringify(payload), now });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  return { stdout: run.stdout, output: run.stdout === '' ? null : (JSON.parse(run.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }) };
}

const lines = (dir: string) => read(dir, 'logs/telemetry.jsonl').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
const state = (dir: string) => JSON.parse(read(dir, '.sleep-cycle/state.json'));

/** Session 1 (three sessions, in fact) fails three times per program; the night writes one rule each. */
async function dayAndNight(programs: [string, string][] = [['pytest -q', PYTEST]]) {
  const dir = makeDir({ 'MEMORY.md': '# Memory\n\nHuman notes.\n\n## Derived Rules\n' }, { git: true });
  for (const [p, [command, error]] of programs.entries()) {
    for (let i = 1; i <= 3; i++) await hook(dir, failure(`s${i}`, command, error, `toolu_${p}${i}`), `2026-11-20T10:0${p}:0${i}Z`);
  }
  const night = await cli(dir, ['run'], '2026-11-20T22:00:00Z');
  expect(night.code).toBe(0);
  const ids = (night.json.data.proposals as { id: string; status: string }[]).filter((p) => p.status === 'applied').map((p) => p.id);
  expect(ids).toHaveLength(programs.length);
  return { dir, ids };
}

describe('session start: the rules in the agent context', () => {
  it('prints the active rules as SessionStart additionalContext and records the exposure', async () => {
    const { dir, ids } = await dayAndNight();
    const before = git(dir, 'status', '--porcelain', '--untracked-files=no');
    const { output } = await hook(dir, start('s4'), '2026-11-21T09:00:00Z');
    expect(output?.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context = output!.hookSpecificOutput.additionalContext;
    expect(context.split('\n')[0]).toBe('sleep-cycle: rules learnt from repeated tool failures in this project (most useful first):');
    expect(context).toContain('`pytest` is not on PATH');
    expect(context).toContain(`[${ids[0]}]`);
    expect(lines(dir).at(-1)).toEqual({
      timestamp: '2026-11-21T09:00:00.000Z', tool_name: 'sleep-cycle', input_hash: expect.stringMatching(/^[0-9a-f]{16}$/), exit_code: 0, duration_ms: 0,
      session_id: 's4', agent: 'sleep-cycle', memory_refs: [ids[0]], exposure: 'session_start',
    });
    // --json: the envelope, with what Claude Code would read as hook_output.
    const json = await sc(dir, ['hook', 'claude-code', '--json'], { stdin: JSON.stringify(start('s4')), now: '2026-11-21T09:00:01Z' });
    expect(JSON.parse(json.stdout)).toEqual({ success: true, error: null, data: { outcome: 'context', shown: [ids[0]], omitted: 0, notice: null, hook_output: output } });
    // Read-only otherwise: nothing tracked changed, no lock left behind.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe(before);
    expect(existsSync(join(dir, '.sleep-cycle/lock'))).toBe(false);
  });

  it('puts pinned and validated rules first, then the heavier, and stays within context_budget_chars', async () => {
    const { dir, ids } = await dayAndNight([['pytest -q', PYTEST], ['ruff check .', RUFF], ['mypy .', 'Exit code 2\nerror: Cannot find module yaml']]);
    const ledger = state(dir);
    const [a, b, c] = ids as [string, string, string];
    ledger.rules[a].weight = 0.55;
    ledger.rules[b].weight = 0.95;
    ledger.rules[c].weight = 0.2;
    ledger.rules[c].status = 'validated';
    writeFileSync(join(dir, '.sleep-cycle/state.json'), `${JSON.stringify(ledger, null, 2)}\n`);
    const { output } = await hook(dir, start('s4'), '2026-11-21T09:00:00Z');
    const order = [...output!.hookSpecificOutput.additionalContext.matchAll(/\[(r-[0-9a-f]+)\]$/gm)].map((m) => m[1]);
    expect(order).toEqual([c, b, a]);

    // A budget for the header and one rule: the first one only, and a line saying how many are left out.
    const oneRule = output!.hookSpecificOutput.additionalContext.split('\n').slice(0, 2).join('\n').length + 45;
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/sleep-cycle.yaml'), `context_budget_chars: ${oneRule}\n`);
    const small = (await hook(dir, start('s5'), '2026-11-21T09:05:00Z')).output!.hookSpecificOutput.additionalContext;
    expect(small.length).toBeLessThanOrEqual(oneRule);
    expect([...small.matchAll(/\[(r-[0-9a-f]+)\]$/gm)].map((m) => m[1])).toEqual([c]);
    expect(small.split('\n').at(-1)).toBe('(2 more in MEMORY.md and skills/)');
    expect(lines(dir).at(-1)).toMatchObject({ exposure: 'session_start', session_id: 's5', memory_refs: [c] });
  });

  it('leaves out a rule a human deleted from MEMORY.md today, and shows a human edit as written', async () => {
    const { dir, ids } = await dayAndNight([['pytest -q', PYTEST], ['ruff check .', RUFF]]);
    const memory = read(dir, 'MEMORY.md').split('\n').filter((line) => !line.includes(`rule:${ids[1]}`)).join('\n')
      .replace(/- [^\n]*(<!-- rule:r-[0-9a-f]+ -->)/, '- Run the tests as `python -m pytest`. $1');
    writeFileSync(join(dir, 'MEMORY.md'), memory);
    const context = (await hook(dir, start('s4'), '2026-11-21T09:00:00Z')).output!.hookSpecificOutput.additionalContext;
    expect(context.split('\n').slice(1)).toEqual([`- Run the tests as \`python -m pytest\`. [${ids[0]}]`]);
  });

  it('keeps the context it built for the next session starts, and builds it again when the memory changes', async () => {
    const { dir, ids } = await dayAndNight([['pytest -q', PYTEST], ['ruff check .', RUFF]]);
    const first = (await hook(dir, start('s4'), '2026-11-21T09:00:00Z')).stdout;
    expect(first).toContain(`[${ids[1]}]`);
    expect(existsSync(join(dir, '.sleep-cycle/hook-session.json'))).toBe(true);
    // Kept: the same context for the next session, with an exposure line of its own.
    expect((await hook(dir, start('s5'), '2026-11-21T09:10:00Z')).stdout).toBe(first);
    expect(lines(dir).at(-1)).toMatchObject({ session_id: 's5', memory_refs: expect.arrayContaining(ids), exposure: 'session_start' });
    // A human deletes a rule from MEMORY.md: the kept context is not the answer any more.
    writeFileSync(join(dir, 'MEMORY.md'), read(dir, 'MEMORY.md').split('\n').filter((line) => !line.includes(`rule:${ids[1]}`)).join('\n'));
    const after = (await hook(dir, start('s6'), '2026-11-21T09:20:00Z')).output!.hookSpecificOutput.additionalContext;
    expect(after).toContain(`[${ids[0]}]`);
    expect(after).not.toContain(ids[1]);
    // A kept file edited by hand under a key that is not the files' own is ignored too.
    const kept = JSON.parse(read(dir, '.sleep-cycle/hook-session.json'));
    writeFileSync(join(dir, '.sleep-cycle/hook-session.json'), JSON.stringify({ ...kept, key: '[]', context: { ...kept.context, text: 'forged' } }));
    expect((await hook(dir, start('s7'), '2026-11-21T09:30:00Z')).output!.hookSpecificOutput.additionalContext).toBe(after);
  });

  it('shows skill rules only for tools the agent used lately', async () => {
    const dir = makeDir({ 'MEMORY.md': '# Memory\n', 'config/sleep-cycle.yaml': 'routing:\n  ruff: lint\n' }, { git: true });
    for (let i = 1; i <= 3; i++) await hook(dir, failure(`s${i}`, 'ruff check .', RUFF, `t${i}`), `2026-11-20T10:00:0${i}Z`);
    const night = await cli(dir, ['run'], '2026-11-20T22:00:00Z');
    expect(night.json.data.proposals[0]).toMatchObject({ status: 'applied', target: 'skill:lint' });
    // The log's tail still shows ruff: the rule is shown.
    expect((await hook(dir, start('s4'), '2026-11-21T09:00:00Z')).output?.hookSpecificOutput.additionalContext).toContain('ruff');
    // A log whose recent calls are other tools: no skill rule, so no output at all.
    const others = Array.from({ length: 600 }, (_, i) => JSON.stringify({ timestamp: '2026-11-21T10:00:00.000Z', tool_name: 'Read', input_hash: `h${i}`, exit_code: 0, duration_ms: 3 }));
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), `${read(dir, 'logs/telemetry.jsonl')}${others.join('\n')}\n`);
    expect((await hook(dir, start('s5'), '2026-11-21T11:00:00Z')).stdout).toBe('');
  });
});

describe('just in time: the rule next to a failure of its cluster', () => {
  it('reminds once per rule per session, and again in another session', async () => {
    const { dir, ids } = await dayAndNight();
    const first = await hook(dir, failure('s4', 'pytest tests/', PYTEST, 'u1'), '2026-11-21T09:01:00Z');
    expect(first.output).toEqual({
      hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: expect.stringContaining(`\`pytest\` is not on PATH`) },
    });
    expect(first.output!.hookSpecificOutput.additionalContext).toMatch(new RegExp(`^sleep-cycle: this failure matches a rule learnt from earlier sessions: .*\\[${ids[0]}\\]$`));
    // The failure itself is recorded (its category left to the night, which reads the one the reminder matched), then the exposure.
    expect(classifyStored(lines(dir).at(-2))).toBe('dependency_missing');
    expect(lines(dir).slice(-2)).toEqual([
      expect.objectContaining({ tool_name: 'Bash', exit_code: 127, session_id: 's4' }),
      expect.objectContaining({ tool_name: 'sleep-cycle', exposure: 'reminder', memory_refs: [ids[0]], session_id: 's4' }),
    ]);
    const again = await hook(dir, failure('s4', 'pytest -x', PYTEST, 'u2'), '2026-11-21T09:02:00Z');
    expect(again.stdout).toBe('');
    expect(lines(dir).at(-1)).toMatchObject({ tool_name: 'Bash', input_summary: 'pytest -x' });
    const other = await hook(dir, failure('s5', 'pytest', PYTEST, 'u3'), '2026-11-21T09:03:00Z');
    expect(other.output?.hookSpecificOutput.additionalContext).toContain(`[${ids[0]}]`);
  });

  it('says nothing for a failure no rule covers (another program, another error of the same program)', async () => {
    const { dir } = await dayAndNight();
    expect((await hook(dir, failure('s4', 'ruff check .', RUFF, 'u1'), '2026-11-21T09:01:00Z')).stdout).toBe('');
    expect((await hook(dir, failure('s4', 'pytest -q', 'Exit code 1\nE   AssertionError: assert 1 == 2', 'u2'), '2026-11-21T09:02:00Z')).stdout).toBe('');
    expect(lines(dir).filter((line) => line.exposure !== undefined)).toEqual([]);
  });

  it('the quick list of rule families never hides a rule the next night wrote', async () => {
    const { dir } = await dayAndNight();
    await hook(dir, start('s4'), '2026-11-21T09:00:00Z');
    expect(JSON.parse(read(dir, '.sleep-cycle/hook-keys.json')).pairs).toEqual(['pytest\u0000dependency_missing']);
    for (let i = 1; i <= 3; i++) expect((await hook(dir, failure(`s${i + 4}`, 'ruff check .', RUFF, `r${i}`), `2026-11-21T10:00:0${i}Z`)).stdout).toBe('');
    const night = await cli(dir, ['run'], '2026-11-21T22:00:00Z');
    const ruff = night.json.data.proposals.find((p: { tool_name: string }) => p.tool_name === 'ruff');
    expect(ruff).toMatchObject({ status: 'applied' });
    const reminded = await hook(dir, failure('s9', 'ruff check src', RUFF, 'r9'), '2026-11-22T09:00:00Z');
    expect(reminded.output?.hookSpecificOutput.additionalContext).toContain(`[${ruff.id}]`);
    expect(JSON.parse(read(dir, '.sleep-cycle/hook-keys.json')).pairs).toEqual(['pytest\u0000dependency_missing', `ruff\u0000${ruff.error_category}`]);
  });

  it('a rule written before templates (no template in the ledger) covers its whole family and category', async () => {
    const { dir, ids } = await dayAndNight();
    const zsh = 'Exit code 127\nzsh: command not found: pytest';
    // With its template, the rule does not cover another error line of pytest.
    expect((await hook(dir, failure('s3', 'pytest', zsh, 'u0'), '2026-11-21T09:00:00Z')).stdout).toBe('');
    const ledger = state(dir);
    const rule = ledger.rules[ids[0]!];
    const family = rule.cluster_id;
    delete rule.template;
    delete rule.template_id;
    // Its cluster id is then the family's: the same hash without a template.
    rule.cluster_id = (await import('../../pipeline/model/cluster.js')).clusterId('failure', 'pytest', 'dependency_missing');
    expect(rule.cluster_id).not.toBe(family);
    writeFileSync(join(dir, '.sleep-cycle/state.json'), `${JSON.stringify(ledger, null, 2)}\n`);
    // Another error line of pytest in the same category (another template): the legacy rule covers it.
    const other = await hook(dir, failure('s4', 'pytest', zsh, 'u1'), '2026-11-21T09:01:00Z');
    expect(classifyStored(lines(dir).at(-2))).toBe('dependency_missing');
    expect(other.output?.hookSpecificOutput.additionalContext).toContain(`[${ids[0]}]`);
  });
});

describe('exposures at the next night', () => {
  it('reinforce the rule and are counted per rule; list and explain change nothing', async () => {
    const { dir, ids } = await dayAndNight();
    const id = ids[0]!;
    const before = state(dir).rules[id];
    expect(before.accesses ?? 0).toBe(0);
    await hook(dir, start('s4'), '2026-11-21T09:00:00Z');
    await hook(dir, failure('s4', 'pytest', PYTEST, 'u1'), '2026-11-21T09:01:00Z');
    // The agent follows the reminder: the next call of the family succeeds (a plain call, not an exposure).
    const success = { session_id: 's4', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'python -m pytest' }, tool_use_id: 'u2', tool_response: { stdout: 'ok' } };
    expect((await hook(dir, success, '2026-11-21T09:02:00Z')).stdout).toBe('');
    await hook(dir, start('s5'), '2026-11-21T10:00:00Z');
    const observed = read(dir, '.sleep-cycle/state.json');
    await sc(dir, ['list'], { now: '2026-11-21T11:00:00Z' });
    await sc(dir, ['explain', id], { now: '2026-11-21T11:00:00Z' });
    expect(read(dir, '.sleep-cycle/state.json')).toBe(observed);

    const night = await cli(dir, ['run'], '2026-11-21T22:00:00Z');
    expect(night.code).toBe(0);
    // Exposure lines are no tool calls: the night read them, and proposed nothing for the tool "sleep-cycle".
    expect(night.json.data.clusters.map((c: { tool_name: string }) => c.tool_name)).not.toContain('sleep-cycle');
    const after = state(dir).rules[id];
    expect(after.exposures).toEqual({ session_start: 2, reminder: 1, sessions: 2, last: '2026-11-21T10:00:00.000Z' });
    // The reminder is an access that reinforces the rule; the session starts count as accesses (the
    // rule's importance) without resetting its decay.
    expect(after.accesses).toBe(3);
    expect(after.last_accessed).toBe('2026-11-21T09:01:00.000Z');
    expect(after.last_reinforced).toBe('2026-11-21T09:01:00.000Z');
    expect(after.last_reinforced > before.last_reinforced).toBe(true);
    const explain = await sc(dir, ['explain', id], { now: '2026-11-21T23:00:00Z' });
    expect(explain.stdout).toContain('exposed: 2 session starts, 1 reminder after a failure, in 2 sessions; last 2026-11-21T10:00:00.000Z');
    const json = await cli(dir, ['explain', id], '2026-11-21T23:00:00Z');
    expect(json.json.data.exposures).toEqual(after.exposures);
  });
});

describe('the hook never fails the agent', () => {
  it('malformed stdin: exit 0, nothing on stdout, a reject line', async () => {
    const { dir } = await dayAndNight();
    expect((await hook(dir, '{"hook_event_name": "SessionStart", ', '2026-11-21T09:00:00Z')).stdout).toBe('');
    const rejects = read(dir, '.sleep-cycle/hook-rejects.jsonl').trim().split('\n').map((line) => JSON.parse(line));
    expect(rejects.at(-1).reason).toMatch(/^payload is not JSON/);
  });

  it('no state yet: session start prints nothing; a failure is recorded without a reminder', async () => {
    const dir = makeDir({ 'MEMORY.md': '# Memory\n' }, { git: true });
    expect((await hook(dir, start('s1'), '2026-11-21T09:00:00Z')).stdout).toBe('');
    expect((await hook(dir, failure('s1', 'pytest', PYTEST, 'u1'), '2026-11-21T09:01:00Z')).stdout).toBe('');
    expect(lines(dir)).toEqual([expect.objectContaining({ tool_name: 'Bash', exit_code: 127 })]);
  });

  it('a broken state.json: the memory file bullets in their order, and the reason in the rejects file', async () => {
    const { dir, ids } = await dayAndNight([['pytest -q', PYTEST], ['ruff check .', RUFF]]);
    writeFileSync(join(dir, '.sleep-cycle/state.json'), '{"version": 1, "rules": ');
    const context = (await hook(dir, start('s4'), '2026-11-21T09:00:00Z')).output!.hookSpecificOutput.additionalContext;
    expect([...context.matchAll(/\[(r-[0-9a-f]+)\]$/gm)].map((m) => m[1])).toEqual(ids);
    expect(read(dir, '.sleep-cycle/hook-rejects.jsonl')).toContain('the rule ledger could not be read');
    // A failure still lands (no reminder: the ledger is what says which cluster a rule has).
    expect((await hook(dir, failure('s4', 'pytest', PYTEST, 'u1'), '2026-11-21T09:01:00Z')).stdout).toBe('');
    expect(lines(dir).filter((l) => l.tool_name === 'Bash')).toHaveLength(7);
  });

  it('a locked repository (a night running): session start and reminders work, the event is kept', async () => {
    const { dir, ids } = await dayAndNight();
    writeFileSync(join(dir, '.sleep-cycle/lock'), JSON.stringify({ pid: 999999, run_id: 'run-x', started: '2026-11-21T08:59:00Z' }));
    expect((await hook(dir, start('s4'), '2026-11-21T09:00:00Z')).output?.hookSpecificOutput.additionalContext).toContain(`[${ids[0]}]`);
    expect((await hook(dir, failure('s4', 'pytest', PYTEST, 'u1'), '2026-11-21T09:01:00Z')).output?.hookSpecificOutput.additionalContext).toContain(`[${ids[0]}]`);
    expect(readFileSync(join(dir, '.sleep-cycle/lock'), 'utf8')).toContain('run-x');
  });
});

describe('the snippet init prints, run by a shell as Claude Code runs it (built CLI: npm run build)', () => {
  it('SessionStart prints the rules; PermissionRequest and PostToolUseFailure keep working through the small entry', async () => {
    const { dir, ids } = await dayAndNight();
    const init = await cli(dir, ['init'], '2026-11-21T08:00:00Z');
    const snippet = JSON.parse(init.json.data.hook_snippet).hooks;
    expect(Object.keys(snippet)).toEqual(['SessionStart', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure']);
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/.bin/sleep-cycle'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(dir, 'node_modules/.bin/sleep-cycle'), 0o755);
    mkdirSync(join(dir, 'src'), { recursive: true });
    const run = (event: string, payload: Payload) => spawnSync('sh', ['-c', snippet[event][0].hooks[0].command], {
      cwd: join(dir, 'src'), input: JSON.stringify(payload), encoding: 'utf8', env: { ...childEnv(dir), PATH: process.env.PATH, HOME: dir, CLAUDE_PROJECT_DIR: dir },
    });
    const started = run('SessionStart', start('s9'));
    expect(started.status).toBe(0);
    expect(started.stderr).toBe('');
    expect(JSON.parse(started.stdout).hookSpecificOutput.additionalContext).toContain(`[${ids[0]}]`);
    const asked = run('PermissionRequest', { session_id: 's9', hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'pytest' } });
    expect([asked.status, asked.stdout]).toEqual([0, '']);
    const failed = run('PostToolUseFailure', failure('s9', 'pytest', PYTEST, 'v1'));
    expect(failed.status).toBe(0);
    expect(JSON.parse(failed.stdout).hookSpecificOutput).toMatchObject({ hookEventName: 'PostToolUseFailure', additionalContext: expect.stringContaining(`[${ids[0]}]`) });
    expect(lines(dir).slice(-3).map((line) => line.exposure ?? line.tool_name)).toEqual(['session_start', 'Bash', 'reminder']);
  });
});
