import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { event, failures, git, lines, makeDir, read, runCliProcess, sha } from '../helpers/repo.js';

const MEMORY = '# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n## Later section\n\nAlso human.\n';
const POLICY = read(join(import.meta.dirname, '..', '..'), 'config/safety-rules.yaml');

function sampleRepo(telemetry: string, extra: Record<string, string> = {}): string {
  return makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': telemetry, 'config/safety-rules.yaml': POLICY, ...extra }, { git: true });
}

describe('sleep-cycle run (subprocess, temp git repo)', () => {
  it('writes a rule for a repeated failure, commits only its own files, and reports it in --json', () => {
    const dir = sampleRepo(lines(...failures(4, {}), event(), event({ exit_code: 1, tool_name: 'Read', error_category: 'not_found' })));
    appendFileSync(join(dir, 'unrelated.txt'), 'user work in progress\n');
    writeFileSync(join(dir, 'staged.txt'), 'staged by the user\n');
    git(dir, 'add', 'staged.txt');
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(0);
    expect(run.json.success).toBe(true);
    const data = run.json.data;
    expect(data.lines).toMatchObject({ read: 6, valid: 6, invalid: 0, old: 0 });
    const pushCluster = data.clusters.find((c: any) => c.tool_name === 'git_push');
    expect(pushCluster).toMatchObject({ kind: 'failure', error_category: 'git_error', count: 4, promoted: true });
    expect(data.clusters.find((c: any) => c.tool_name === 'Read')).toMatchObject({ count: 1, promoted: false });
    expect(data.proposals).toHaveLength(1);
    const [proposal] = data.proposals;
    expect(proposal).toMatchObject({ status: 'applied', target: 'memory', tool_name: 'git_push', cluster_id: pushCluster.id });
    // The rule names the error template (the path masked) and quotes how often it was seen.
    expect(pushCluster.template).toBe("fatal: Unable to create '<*>': File exists.");
    expect(pushCluster.template_id).toMatch(/^t-[0-9a-f]{12}$/);
    expect(proposal).toMatchObject({ template: pushCluster.template, template_id: pushCluster.template_id });
    expect(proposal.text).toContain("`git_push` fails with `fatal: Unable to create '<*>': File exists.` (4 times in");
    expect(proposal.text).toContain('index.lock');

    const memory = read(dir, 'MEMORY.md');
    expect(memory).toContain(`<!-- rule:${proposal.id} -->`);
    expect(memory.startsWith('# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n- `git_push` fails')).toBe(true);
    expect(memory.endsWith('\n## Later section\n\nAlso human.\n')).toBe(true);

    expect(data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toMatch(/^sleep-cycle: \+1 rule \(\d{4}-\d{2}-\d{2}\)$/);
    const committed = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    expect(committed).toEqual(['.sleep-cycle/lifecycle.jsonl', '.sleep-cycle/state.json', 'MEMORY.md', 'proposed_memory_updates.md']);
    const audit = read(dir, '.sleep-cycle/lifecycle.jsonl').trim().split('\n').map((line) => JSON.parse(line));
    expect(audit).toEqual([expect.objectContaining({ rule: proposal.id, from: 'none', to: 'active', run: data.run_id })]);
    expect(git(dir, 'status', '--porcelain')).toContain('?? unrelated.txt');
    expect(git(dir, 'status', '--porcelain')).toContain('A  staged.txt');
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    expect(state.rules[proposal.id]).toMatchObject({ state: 'active', cluster_id: pushCluster.id, target: 'memory' });
    expect(state.cursors['logs/telemetry.jsonl'].offset).toBe(read(dir, 'logs/telemetry.jsonl').length);
    expect(existsSync(join(dir, '.sleep-cycle/lock'))).toBe(false);
  });

  it('--dry-run writes only the report and leaves every other file untouched', () => {
    const dir = sampleRepo(lines(...failures(3, {}), ...failures(3, { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet.' })));
    const tracked = git(dir, 'ls-files').trim().split('\n');
    const before = Object.fromEntries(tracked.map((path) => [path, sha(dir, path)]));
    const run = runCliProcess(dir, ['run', '--dry-run', '--json']);
    expect(run.code).toBe(0);
    expect(run.json.data.proposals.map((p: any) => p.status)).toEqual(['proposed', 'proposed']);
    expect(run.json.data.commit).toBeNull();
    for (const path of tracked) expect(sha(dir, path), path).toBe(before[path]);
    expect(git(dir, 'status', '--porcelain').trim()).toBe('?? proposed_memory_updates.md');
    expect(existsSync(join(dir, '.sleep-cycle'))).toBe(false);
    const report = read(dir, 'proposed_memory_updates.md');
    expect(report).toContain('## Proposed rules');
    expect(report).toContain(run.json.data.proposals[0].id);
  });

  it('the second night reads only appended lines and promotes a cluster carried over from the first', () => {
    // Two words at one place are two events for the miner: the clusters stay apart.
    const dir = sampleRepo(lines(...failures(2, { tool_name: 'npm_test', error_category: 'test_failure', error_message: 'FAIL lint' }), event()));
    const first = runCliProcess(dir, ['run', '--json']);
    expect(first.code).toBe(0);
    expect(first.json.data.proposals).toEqual([]);
    expect(first.json.data.clusters[0]).toMatchObject({ count: 2, promoted: false });
    expect(runCliProcess(dir, ['status', '--json']).json.data.pending).toHaveLength(1);

    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(1, { tool_name: 'npm_test', error_category: 'test_failure', error_message: 'FAIL typecheck', timestamp: '2026-11-21T09:00:00.000Z' })));
    const second = runCliProcess(dir, ['run', '--json']);
    expect(second.code).toBe(0);
    expect(second.json.data.lines).toMatchObject({ read: 1, valid: 1 });
    // Two templates that reach the threshold only together are promoted together, as one rule naming both.
    expect(second.json.data.clusters[0]).toMatchObject({ count: 1, promoted: true, template: 'FAIL typecheck' });
    expect(second.json.data.proposals[0]).toMatchObject({ template: null, templates: ['FAIL lint', 'FAIL typecheck'] });
    expect(second.json.data.proposals[0].text).toContain('`npm_test` fails with `FAIL lint` or `FAIL typecheck` (3 times in');

    const third = runCliProcess(dir, ['run', '--json']);
    expect(third.json.data.lines.read).toBe(0);
    expect(third.json.data.commit).toBeNull();
  });

  it('a template that generalises on the second night keeps the first night\'s count', () => {
    const dir = sampleRepo(lines(...failures(2, { tool_name: 'npm_test', error_category: 'test_failure', error_message: 'FAIL a.test.ts' }), event()));
    expect(runCliProcess(dir, ['run', '--json']).json.data.clusters[0]).toMatchObject({ count: 2, promoted: false, template: 'FAIL a.test.ts' });
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(1, { tool_name: 'npm_test', error_category: 'test_failure', error_message: 'FAIL b.test.ts', timestamp: '2026-11-21T09:00:00.000Z' })));
    const second = runCliProcess(dir, ['run', '--json']);
    expect(second.code).toBe(0);
    // A second file name at the same place says it is a value: one template, the first night's two included.
    expect(second.json.data.clusters).toHaveLength(1);
    expect(second.json.data.clusters[0]).toMatchObject({ count: 3, promoted: true, template: 'FAIL <*>.test.ts' });
    expect(second.json.data.proposals[0]).toMatchObject({ template: 'FAIL <*>.test.ts' });
  });

  it('a torn last line is left for the next run and counted once it is complete', () => {
    const complete = lines(...failures(3, {}));
    const torn = event({ tool_name: 'Grep' });
    const dir = sampleRepo(complete + torn.slice(0, 20));
    const first = runCliProcess(dir, ['run', '--json']);
    expect(first.json.data.lines.read).toBe(3);
    expect(JSON.parse(read(dir, '.sleep-cycle/state.json')).cursors['logs/telemetry.jsonl'].offset).toBe(Buffer.byteLength(complete));
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), `${torn.slice(20)}\n`);
    const second = runCliProcess(dir, ['run', '--json']);
    expect(second.json.data.lines).toMatchObject({ read: 1, valid: 1, invalid: 0 });
  });

  it('a rule a human deleted from MEMORY.md is recorded as rejected and not proposed again', () => {
    const dir = sampleRepo(lines(...failures(3, {})));
    const id = runCliProcess(dir, ['run', '--json']).json.data.proposals[0].id;
    const memory = read(dir, 'MEMORY.md');
    const without = memory.split('\n').filter((line) => !line.includes(id)).join('\n');
    makeFile(dir, 'MEMORY.md', without);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { timestamp: '2026-11-21T10:00:00.000Z' })));
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.json.data.proposals).toEqual([]);
    expect(run.json.data.clusters[0].outcome).toBe('burned');
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    expect(state.rules[id].state).toBe('rejected');
    const audit = read(dir, '.sleep-cycle/lifecycle.jsonl').trim().split('\n').map((line) => JSON.parse(line));
    expect(audit.map((e: any) => `${e.rule} ${e.from}->${e.to}`)).toEqual([`${id} none->active`, `${id} active->rejected`]);
    expect(read(dir, 'MEMORY.md')).not.toContain(id);
  });

  it('routes a tool to skills/<name>.yaml and keeps the file\'s comments and other keys', () => {
    const skill = '# human comment\nname: git\nguidelines:\n  - keep commits small # inline\nderived_rules: []\n';
    const dir = sampleRepo(lines(...failures(3, {})), { 'skills/git.yaml': skill, 'config/sleep-cycle.yaml': 'routing:\n  git_push: git\n' });
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.json.data.proposals[0]).toMatchObject({ target: 'skill:git', status: 'applied' });
    const written = read(dir, 'skills/git.yaml');
    expect(written.startsWith('# human comment\nname: git\nguidelines:\n  - keep commits small # inline\nderived_rules:\n  - id: r-')).toBe(true);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it('quarantines a draft the safety policy blocks and never writes it to memory', () => {
    const policy = 'version: 1\nrules:\n  - id: no-index-lock-talk\n    severity: block\n    reason: test policy\n    when:\n      any:\n        - { fact: text, operator: matchesRegex, value: "index\\\\.lock" }\n';
    const dir = sampleRepo(lines(...failures(3, {})), { 'config/safety-rules.yaml': policy });
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(0);
    const [proposal] = run.json.data.proposals;
    expect(proposal.status).toBe('quarantined');
    expect(proposal.reasons.join(' ')).toContain('no-index-lock-talk');
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    expect(read(dir, 'proposed_memory_updates.md')).toContain('## Quarantined drafts');
    expect(JSON.parse(read(dir, '.sleep-cycle/state.json')).quarantine[proposal.id].reasons[0]).toContain('no-index-lock-talk');
  });

  it('a broken safety policy is E_SAFETY_RULES (exit 2) and nothing is written', () => {
    const dir = sampleRepo(lines(...failures(3, {})), { 'config/safety-rules.yaml': 'version: 1\nrules:\n  - id: broken\n    severity: sometimes\n' });
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(2);
    expect(run.json.error.code).toBe('E_SAFETY_RULES');
    expect(run.json.error.message).toContain('config/safety-rules.yaml');
    expect(run.json.error.message).toContain('broken');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a held lock makes a second run exit 3 with E_LOCKED naming the holder', () => {
    const holder = JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString(), run_id: 'other' });
    const dir = sampleRepo(lines(...failures(3, {})), { '.sleep-cycle/lock': holder });
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(3);
    expect(run.json.error.code).toBe('E_LOCKED');
    expect(run.json.error.message).toContain(`pid ${process.pid}`);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it("a human's uncommitted edits to MEMORY.md stay out of the commit, and stay in the working tree", () => {
    const dir = sampleRepo(lines(...failures(3, {})));
    writeFileSync(join(dir, 'MEMORY.md'), MEMORY.replace('Human notes stay exactly as written.', 'Human notes stay exactly as written. WIP private note'));
    const run = runCliProcess(dir, ['run', '--json']);
    const id = run.json.data.proposals[0].id;
    const committed = git(dir, 'show', 'HEAD:MEMORY.md');
    expect(committed).toContain(`<!-- rule:${id} -->`);
    expect(committed).not.toContain('WIP private note');
    expect(read(dir, 'MEMORY.md')).toContain('WIP private note');
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${id} -->`);
    expect(git(dir, 'status', '--porcelain')).toBe(' M MEMORY.md\n');
  });

  it('what an earlier run wrote but did not commit is committed by the next run; an idle night makes no commit', () => {
    const dir = sampleRepo(lines(...failures(3, {})));
    runCliProcess(dir, ['run', '--no-commit']);
    const head = git(dir, 'rev-parse', 'HEAD');
    const next = runCliProcess(dir, ['run', '--json']);
    expect(next.json.data.lines.read).toBe(0);
    expect(next.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['.sleep-cycle/lifecycle.jsonl', '.sleep-cycle/state.json', 'MEMORY.md', 'proposed_memory_updates.md']);
    expect(git(dir, 'rev-parse', 'HEAD')).not.toBe(head);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const idle = runCliProcess(dir, ['run', '--json']);
    expect(idle.json.data.commit).toBeNull();
    expect(idle.json.data.commit_note).toContain('no commit');
  });

  it('commits on a detached HEAD and says so', () => {
    const dir = sampleRepo(lines(...failures(3, {})));
    git(dir, 'checkout', '--quiet', '--detach');
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(run.json.data.commit_note).toContain('detached HEAD');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(run.json.data.commit);
  });

  it('a lock left by a process that is gone is taken over and reported', () => {
    const holder = JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), started: new Date().toISOString(), run_id: 'crashed' });
    const dir = sampleRepo(lines(...failures(3, {})), { '.sleep-cycle/lock': holder });
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(0);
    expect(run.json.data.lock_taken_over).toContain('is gone');
    expect(run.json.data.notices.join(' ')).toContain('stale lock');
    expect(existsSync(join(dir, '.sleep-cycle/lock'))).toBe(false);
  });

  it('outside a git repository it still writes and says it did not commit; --require-git makes that an error', () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    const strict = runCliProcess(dir, ['run', '--json', '--require-git']);
    expect(strict.code).toBe(2);
    expect(strict.json.error.message).toContain('nothing was written');
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    expect(existsSync(join(dir, '.sleep-cycle/state.json'))).toBe(false);
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(0);
    expect(run.json.data.commit).toBeNull();
    expect(run.json.data.commit_note).toContain('not a git repository');
    expect(read(dir, 'MEMORY.md')).toContain('<!-- rule:');
    expect(readdirSync(dir)).toContain('.sleep-cycle');
  });

  it('usage errors exit 2 with one JSON envelope and no ANSI codes', () => {
    const dir = makeDir({});
    for (const args of [['run', '--json', '--since', 'yesterday'], ['run', '--json', '--min-repeats', 'x'], ['run', '--json', '--bogus']]) {
      const run = runCliProcess(dir, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.json).toMatchObject({ success: false, data: null, error: { code: 'E_USAGE' } });
      expect(run.stdout).not.toMatch(/\u001b\[/);
    }
  });
});

function makeFile(dir: string, path: string, content: string): void {
  writeFileSync(join(dir, path), content);
}
