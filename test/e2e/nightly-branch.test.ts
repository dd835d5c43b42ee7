import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failures, git, lines, makeDir, read, runCliProcess } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const BRANCH = 'sleep-cycle/nightly';

function cloneOf(remote: string): string {
  const dir = join(tempDir('sleep-cycle-ci-'), 'repo');
  execFileSync('git', ['clone', '--quiet', remote, dir]);
  git(dir, 'config', 'user.name', 'ci');
  git(dir, 'config', 'user.email', 'ci@example.invalid');
  return dir;
}

describe('the nightly pull-request branch (run --branch --push against a bare remote)', () => {
  it('creates the branch, leaves it alone when nothing changed, and updates it when something did', () => {
    const origin = tempDir('sleep-cycle-remote-');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
    const work = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    git(work, 'remote', 'add', 'origin', origin);
    git(work, 'push', '--quiet', 'origin', 'main');

    // Night 1, in a fresh CI checkout of main.
    const night1 = cloneOf(origin);
    const first = runCliProcess(night1, ['run', '--json', '--branch', BRANCH, '--push']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.data.commit_note).toContain(`on branch ${BRANCH}; pushed to origin`);
    const tip1 = git(origin, 'rev-parse', BRANCH).trim();
    expect(tip1).toBe(first.json.data.commit);
    expect(git(origin, 'rev-parse', `${BRANCH}^`).trim()).toBe(git(origin, 'rev-parse', 'main').trim());
    expect(git(origin, 'show', `${BRANCH}:MEMORY.md`)).toContain('`git_push` fails with `fatal: Unable to create');
    expect(git(night1, 'rev-parse', 'HEAD').trim()).toBe(git(origin, 'rev-parse', 'main').trim());

    // Night 2: the pull request is not merged and nothing new happened: the branch is left alone.
    const night2 = cloneOf(origin);
    const second = runCliProcess(night2, ['run', '--json', '--branch', BRANCH, '--push']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.data.commit_note).toContain('already proposes the same change');
    expect(git(origin, 'rev-parse', BRANCH).trim()).toBe(tip1);

    // Night 3: main moved on with new telemetry: the branch is rebuilt on the new main and pushed.
    appendFileSync(join(work, 'logs/telemetry.jsonl'), lines(...failures(3, { tool_name: 'Read', error_category: 'not_found', error_message: 'File does not exist.', timestamp: '2026-11-21T10:00:00.000Z' })));
    git(work, 'commit', '--quiet', '-am', 'more telemetry');
    git(work, 'push', '--quiet', 'origin', 'main');
    const night3 = cloneOf(origin);
    const third = runCliProcess(night3, ['run', '--json', '--branch', BRANCH, '--push']);
    expect(third.code, third.stderr).toBe(0);
    const tip3 = git(origin, 'rev-parse', BRANCH).trim();
    expect(tip3).not.toBe(tip1);
    expect(git(origin, 'rev-parse', `${BRANCH}^`).trim()).toBe(git(origin, 'rev-parse', 'main').trim());
    const memory = git(origin, 'show', `${BRANCH}:MEMORY.md`);
    expect(memory).toContain('`git_push` fails with `fatal: Unable to create');
    expect(memory).toContain('`Read` fails with');
    expect(read(night3, 'proposed_memory_updates.md')).toContain('## Proposed rules');
  });

  it("stops instead of dropping a reviewer's commit on the branch, and refuses the branch you are on", () => {
    const origin = tempDir('sleep-cycle-remote-');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
    const work = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    git(work, 'remote', 'add', 'origin', origin);
    git(work, 'push', '--quiet', 'origin', 'main');
    expect(runCliProcess(cloneOf(origin), ['run', '--json', '--branch', BRANCH, '--push']).code).toBe(0);

    const reviewer = cloneOf(origin);
    git(reviewer, 'checkout', '--quiet', BRANCH);
    appendFileSync(join(reviewer, 'MEMORY.md'), '- reviewer: reworded\n');
    git(reviewer, 'commit', '--quiet', '-am', 'reviewer: reword rule');
    git(reviewer, 'push', '--quiet', 'origin', BRANCH);
    const reviewed = git(origin, 'rev-parse', BRANCH).trim();

    const night = runCliProcess(cloneOf(origin), ['run', '--json', '--branch', BRANCH, '--push']);
    expect(night.code).toBe(1);
    expect(night.json.error.code).toBe('E_GIT');
    expect(night.json.error.message).toContain('reviewer: reword rule');
    expect(git(origin, 'rev-parse', BRANCH).trim()).toBe(reviewed);

    const here = runCliProcess(work, ['run', '--json', '--branch', 'main']);
    expect(here.code).toBe(2);
    expect(here.json.error.message).toContain('is the branch you are on');
  });

  it('--push without --branch is a usage error: it never pushes the branch you are on', () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const run = runCliProcess(dir, ['run', '--json', '--push']);
    expect(run.code).toBe(2);
    expect(run.json.error.message).toContain('--push needs --branch');
  });
});
