import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/program.js';
import { testDeps } from '../helpers/command.js';
import { failures, git, lines, makeDir, read, sha } from '../helpers/repo.js';

async function preSession(dir: string, args: string[] = [], tty = false, env: Record<string, string> = {}) {
  const { deps, out, err } = testDeps(dir, { env });
  const code = await runCli(['pre-session', ...args], { ...deps, isTTY: tty });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('sleep-cycle pre-session', () => {
  it('prints one line of counts, at a terminal too, and changes nothing tracked', async () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'proposed_memory_updates.md': '# committed report\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    // A key is set, but the preview never calls Claude (a closed port stands in for the API, should it try).
    const run = await preSession(dir, [], true, { ANTHROPIC_API_KEY: 'sk-ant-not-used', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('sleep-cycle: 3 new telemetry lines, 1 rule proposed, 0 quarantined: review .sleep-cycle/preview.md (not applied)\n');
    expect(run.stderr).toBe('');
    expect(read(dir, '.sleep-cycle/preview.md')).toContain('dry run: nothing was written but this report');
    expect(read(dir, '.sleep-cycle/preview.md')).toContain('| synthesizer | offline (no LLM calls) |');
    expect(read(dir, 'proposed_memory_updates.md')).toBe('# committed report\n');
    expect(read(dir, 'MEMORY.md')).toBe('# M\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('--json gives the counts as data, and a second call reads the same lines again (the cursor does not move)', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {}), ...failures(1, { tool_name: 'Read' })) });
    const first = await preSession(dir, ['--json']);
    expect(JSON.parse(first.stdout)).toEqual({
      success: true,
      data: {
        summary: 'sleep-cycle: 4 new telemetry lines, 1 rule proposed, 0 quarantined: review .sleep-cycle/preview.md (not applied)',
        lines_read: 4, proposed: 1, quarantined: 0, report_path: '.sleep-cycle/preview.md', applied: false,
      },
      error: null,
    });
    const preview = sha(dir, '.sleep-cycle/preview.md');
    expect(JSON.parse((await preSession(dir, ['--json'])).stdout).data.lines_read).toBe(4);
    expect(sha(dir, '.sleep-cycle/preview.md')).toBe(preview);
  });

  it('a failing run is one line and exit 0 (a session must start); --json carries the error', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/sleep-cycle.yaml': 'min_repeat: 3\n' });
    const text = await preSession(dir);
    expect(text).toEqual({ code: 0, stdout: 'sleep-cycle: E_CONFIG (see `npx sleep-cycle run --dry-run`)\n', stderr: '' });
    const json = await preSession(dir, ['--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, data: null, error: { code: 'E_CONFIG' } });
  });

  it('another run holding the lock is E_LOCKED in the line, still exit 0', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    mkdirSync(join(dir, '.sleep-cycle'), { recursive: true });
    writeFileSync(join(dir, '.sleep-cycle/lock'), JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), started: '2026-11-21T02:59:00.000Z', run: 'run-other' }));
    const run = await preSession(dir);
    expect(run).toEqual({ code: 0, stdout: 'sleep-cycle: E_LOCKED (see `npx sleep-cycle run --dry-run`)\n', stderr: '' });
  });
});
