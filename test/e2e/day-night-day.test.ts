import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, git, makeDir, read } from '../helpers/repo.js';
import { childEnv } from '../helpers/temp.js';

/**
 * Issue 15, "Done when": a day, a night and a day, in a real temp git repository, driving the built CLI
 * with hook payloads on stdin exactly as Claude Code sends them (../shared/formats/claude-code.md).
 * Session 1 fails three times the same way; the night writes a rule; session 2 starts with the rule in
 * its context, gets the reminder on its first failure, and its next call succeeds; the night after,
 * `explain` shows the exposure, the reminder, the rates before and after, what the next call did, and
 * the rule reinforced.
 */
type Payload = Record<string, unknown>;
const common = (session: string) => ({ session_id: session, transcript_path: '/dev/null', cwd: '/repo', permission_mode: 'default' });
const start = (session: string): Payload => ({ ...common(session), hook_event_name: 'SessionStart', source: 'startup' });
const failed = (session: string, id: string, command: string): Payload => ({
  ...common(session), hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command, description: 'Run the tests' }, tool_use_id: id,
  error: 'Exit code 127\nbash: pytest: command not found', is_interrupt: false,
});
const succeeded = (session: string, id: string, tool: string, input: Record<string, unknown>, response: Record<string, unknown>): Payload => ({
  ...common(session), hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_use_id: id, tool_response: response,
});

function sleepCycle(dir: string, args: string[], stdin = '', env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', env: { ...childEnv(dir), ...env }, input: stdin });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The hook as Claude Code runs it: the payload on stdin; it never fails and prints only what the agent reads. */
function hook(dir: string, payload: Payload): { hookSpecificOutput: { hookEventName: string; additionalContext: string } } | null {
  const run = sleepCycle(dir, ['hook', 'claude-code'], JSON.stringify(payload));
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  return run.stdout === '' ? null : JSON.parse(run.stdout);
}

function night(dir: string) {
  const run = sleepCycle(dir, ['run', '--offline', '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout).data;
}

describe('day, night, day: the rule is seen when it matters, and the night after shows whether it worked', () => {
  it('session 1 fails three times, the night writes a rule, session 2 is shown it and recovers, the next night measures it; a rule that keeps failing when shown is flagged', () => {
    // A low minimum of calls, so a two-session story has rates to show (the default, 20, is checked below).
    const dir = makeDir({ 'MEMORY.md': '# Memory\n\nHuman notes.\n\n## Derived Rules\n', 'config/sleep-cycle.yaml': 'exposed_min_calls: 2\n' }, { git: true });

    // Day 1: the same failure three times, and a call of another tool.
    hook(dir, start('s1'));
    hook(dir, succeeded('s1', 'toolu_01', 'Read', { file_path: '/repo/setup.cfg' }, { type: 'text', file: { filePath: '/repo/setup.cfg', content: '' } }));
    for (const [i, command] of ['pytest -q', 'pytest tests/', 'pytest -x'].entries()) expect(hook(dir, failed('s1', `toolu_1${i}`, command))).toBeNull();

    // Night 1: one rule, committed.
    const first = night(dir);
    const applied = first.proposals.filter((p: { status: string }) => p.status === 'applied');
    expect(applied).toHaveLength(1);
    const id: string = applied[0].id;
    expect(applied[0]).toMatchObject({ tool_name: 'pytest', error_category: 'dependency_missing' });
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${id} -->`);
    expect(git(dir, 'log', '--format=%s', '-1')).toMatch(/^sleep-cycle: \+1 rule/);

    // Day 2: the rule is in the context at session start…
    const context = hook(dir, start('s2'));
    expect(context?.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(context!.hookSpecificOutput.additionalContext).toContain(`[${id}]`);
    expect(context!.hookSpecificOutput.additionalContext).toContain('python -m pytest');
    // …the first failure gets the reminder…
    const reminder = hook(dir, failed('s2', 'toolu_21', 'pytest tests/'));
    expect(reminder?.hookSpecificOutput).toEqual({ hookEventName: 'PostToolUseFailure', additionalContext: expect.stringMatching(new RegExp(`^sleep-cycle: this failure matches a rule learnt from earlier sessions: .*\\[${id}\\]$`)) });
    // …and the next call of the program succeeds (the agent followed the rule).
    expect(hook(dir, succeeded('s2', 'toolu_22', 'Bash', { command: 'python -m pytest tests/' }, { stdout: '3 passed', stderr: '', interrupted: false, isImage: false }))).toBeNull();

    // Night 2: measured, and reinforced by the reminder (not by the observation commands).
    const second = night(dir);
    expect(second.proposals.filter((p: { status: string }) => p.status === 'applied')).toEqual([]);
    const explained = sleepCycle(dir, ['explain', id, '--json']);
    expect(explained.code).toBe(0);
    const e = JSON.parse(explained.stdout).data;
    const created = JSON.parse(read(dir, '.sleep-cycle/state.json')).rules[id].created as string;
    expect(e.exposures).toMatchObject({ session_start: 1, reminder: 1, sessions: 1 });
    expect(e.accesses).toBeGreaterThanOrEqual(1);
    expect(e.last_reinforced > created).toBe(true);
    expect(e.hits_since_created).toBe(1);
    expect(e.effect).toEqual({
      min_calls: 2,
      before: { failures: 3, calls: 3, per_100_calls: 100 },
      after: { failures: 1, calls: 2, per_100_calls: 50 },
      exposed: { failures: 1, calls: 2, per_100_calls: 50 },
      unexposed: { failures: 0, calls: 0, per_100_calls: null },
      after_reminder: { succeeded: 1, failed: 0 },
    });
    expect(e.effectiveness.verdict).toBe('measuring');

    const text = sleepCycle(dir, ['explain', id]).stdout;
    expect(text).toContain('exposed: 1 session start, 1 reminder after a failure, in 1 session');
    expect(text).toContain('before adoption (the night it was written): 100 per 100 calls (3 of 3)');
    expect(text).toContain('since adoption: 50 per 100 calls (1 of 2)');
    expect(text).toContain('exposed (after it was put in front of the agent in the session): 50 per 100 calls (1 of 2)');
    expect(text).toContain('not exposed: – (not enough calls: 0 of 2)');
    expect(text).toContain('after a reminder, the next call of pytest in that session succeeded 1 of 1 times');
    expect(text).toMatch(/last reinforced \d{4}-/);

    // The same figures in list, stats and the night's report; under the default minimum, no rate at all.
    expect(sleepCycle(dir, ['list']).stdout).toContain('failures per 100 calls: 100 before → 50 since; exposed 50, not exposed – (– under 2 calls); next call after a reminder succeeded 1 of 1');
    expect(sleepCycle(dir, ['stats']).stdout).toContain('did it work (1 rule with calls counted): failures per 100 calls of their tools exposed 50 (1 of 2), not exposed – (not enough calls: 0)');
    expect(read(dir, 'proposed_memory_updates.md')).toContain(`| \`${id}\` | \`pytest\` | 100 | 50 | 50 | – | 1 of 1 | measuring |`);
    const strict = sleepCycle(dir, ['explain', id], '', { SLEEP_CYCLE_EXPOSED_MIN_CALLS: '20' }).stdout;
    expect(strict).toContain('before adoption (the night it was written): – (not enough calls: 3 of 20)');
    // Observation never reinforces: explain, list and stats left state as the night wrote it.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');

    // Day 3: a session shown the rule keeps failing; a session without the hook's start runs the tests fine.
    hook(dir, start('s3'));
    for (const [i, command] of ['pytest', 'pytest -q', 'pytest tests/'].entries()) hook(dir, failed('s3', `toolu_3${i}`, command));
    for (const i of [0, 1]) hook(dir, succeeded('s4', `toolu_4${i}`, 'Bash', { command: 'python -m pytest' }, { stdout: '3 passed', stderr: '', interrupted: false, isImage: false }));
    night(dir);
    const flagged = JSON.parse(sleepCycle(dir, ['explain', id, '--json']).stdout).data;
    expect(flagged.effect.exposed).toEqual({ failures: 4, calls: 5, per_100_calls: 80 });
    expect(flagged.effect.unexposed).toEqual({ failures: 0, calls: 2, per_100_calls: 0 });
    expect(flagged.effectiveness).toMatchObject({ verdict: 'ineffective', basis: 'exposure', why: '80 failures per 100 calls when it was in front of the agent, 0 when it was not' });
    expect(read(dir, 'proposed_memory_updates.md')).toContain(`- \`${id}\` (\`pytest\`): 80 failures per 100 calls when it was in front of the agent, 0 when it was not`);

    // Day 4: it recurs, and the successor path takes it from there (a rewrite, or a human when the rewrite would repeat it).
    for (const [i, command] of ['pytest', 'pytest -q', 'pytest -x'].entries()) hook(dir, failed('s5', `toolu_5${i}`, command));
    const fourth = night(dir);
    // Offline, the rewrite says the same: not written, and the rule is left to a human or Claude.
    expect(fourth.proposals).toEqual([expect.objectContaining({
      cluster_id: applied[0].cluster_id, status: 'duplicate', text: expect.stringContaining('even after an earlier rule'),
      duplicate_of: expect.objectContaining({ kind: 'predecessor', rule_id: id }),
    })]);
  }, 180_000);
});
