import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CLI, failures, git, lines, makeDir, PACKAGE_ROOT } from '../helpers/repo.js';
import { childEnv, tempDir } from '../helpers/temp.js';

/** A PATH with `npx sleep-cycle` (the built CLI) and a fake `gh` that records its calls. */
function fakeBin(ghLog: string, openPr: string): string {
  const bin = tempDir('sleep-cycle-bin-');
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\n[ "$1" = "--no-install" ] && shift\n[ "$1" = "sleep-cycle" ] && shift\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  writeFileSync(join(bin, 'gh'), `#!/bin/sh\necho "gh $*" >> "${ghLog}"\nif [ "$1 $2" = "pr list" ]; then echo "${openPr}"; fi\n`);
  chmodSync(join(bin, 'npx'), 0o755);
  chmodSync(join(bin, 'gh'), 0o755);
  return bin;
}

function workflowSteps(): Record<string, string> {
  const workflow = parseYaml(readFileSync(join(PACKAGE_ROOT, 'examples/github-actions/sleep-cycle-nightly.yml'), 'utf8'));
  return Object.fromEntries(workflow.jobs.sleep.steps.filter((s: any) => s.run).map((s: any) => [s.name, s.run]));
}

describe('the shipped examples', () => {
  it('the nightly workflow steps open the pull request once, then update it', () => {
    const steps = workflowSteps();
    const origin = tempDir('sleep-cycle-remote-');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
    const work = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    git(work, 'remote', 'add', 'origin', origin);
    git(work, 'push', '--quiet', 'origin', 'main');
    const ghLog = join(tempDir('gh-'), 'calls.log');

    const night = (openPr: string) => {
      const checkout = join(tempDir('sleep-cycle-ci-'), 'repo');
      execFileSync('git', ['clone', '--quiet', origin, checkout]);
      const env = { ...childEnv(checkout), PATH: `${fakeBin(ghLog, openPr)}:${process.env.PATH}`, HOME: checkout, BRANCH: 'sleep-cycle/nightly', BASE: 'main', GH_TOKEN: 'x' };
      for (const name of ['Run the sleep cycle', 'Open or update the pull request']) {
        const result = spawnSync('bash', ['-e', '-c', steps[name]!], { cwd: checkout, env, encoding: 'utf8' });
        expect(result.status, `${name}: ${result.stderr}`).toBe(0);
      }
    };
    night('');
    night('7');
    const calls = readFileSync(ghLog, 'utf8').trim().split('\n');
    expect(calls.filter((c) => c.startsWith('gh pr create'))).toEqual([
      'gh pr create --head sleep-cycle/nightly --base main --title sleep-cycle: proposed memory updates --body-file proposed_memory_updates.md',
    ]);
    expect(calls.filter((c) => c.startsWith('gh pr edit'))).toEqual(['gh pr edit 7 --body-file proposed_memory_updates.md']);
    expect(git(origin, 'show', 'sleep-cycle/nightly:MEMORY.md')).toContain('`git_push` fails with `fatal: Unable to create');
  });

  it('the SessionStart hook runs `sleep-cycle pre-session`: one line without rule text, nothing applied, never a failure', () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    // What `npm install --save-dev sleep-cycle` leaves: node_modules/.bin/sleep-cycle (here, the built CLI).
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/.bin/sleep-cycle'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(dir, 'node_modules/.bin/sleep-cycle'), 0o755);
    writeFileSync(join(dir, '.git/info/exclude'), 'node_modules/\n');
    const hooks = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'examples/claude-code/session-start.json'), 'utf8')).hooks.SessionStart;
    const command: string = hooks[0].hooks[0].command;
    expect(command).toContain('sleep-cycle pre-session');
    mkdirSync(join(dir, 'src'));
    // Claude Code runs the command with a shell, in the session's directory (here a subfolder).
    const session = () => spawnSync('sh', ['-c', command], { cwd: join(dir, 'src'), env: { ...childEnv(dir), PATH: process.env.PATH, HOME: dir, CLAUDE_PROJECT_DIR: dir }, encoding: 'utf8' });
    const ok = session();
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('sleep-cycle: 3 new telemetry lines, 1 rule proposed, 0 quarantined: review .sleep-cycle/preview.md (not applied)\n');
    expect(ok.stderr).toBe('');
    expect(readFileSync(join(dir, '.sleep-cycle/preview.md'), 'utf8')).toContain('(3 times in');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe('# M\n');
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/safety-rules.yaml'), 'broken: [');
    const broken = session();
    expect(broken.status).toBe(0);
    expect(broken.stdout).toBe('sleep-cycle: E_SAFETY_RULES (see `npx sleep-cycle run --dry-run`)\n');
  });

  it('the post-merge git hook prints the pre-session line after a merge and never fails it', () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const hook = join(dir, '.git/hooks/post-merge');
    writeFileSync(hook, readFileSync(join(PACKAGE_ROOT, 'examples/hooks/post-merge')));
    chmodSync(hook, 0o755);
    git(dir, 'checkout', '--quiet', '-b', 'topic');
    writeFileSync(join(dir, 'notes.txt'), 'x\n');
    git(dir, 'add', 'notes.txt');
    git(dir, 'commit', '--quiet', '-m', 'notes');
    git(dir, 'checkout', '--quiet', 'main');
    const env = { PATH: `${fakeBin('/dev/null', '')}:${process.env.PATH}`, HOME: dir };
    const merge = spawnSync('git', ['merge', '--quiet', 'topic'], { cwd: dir, env, encoding: 'utf8' });
    expect(merge.status).toBe(0);
    // git shows a hook's output on its stderr.
    expect(merge.stderr).toContain('sleep-cycle: 3 new telemetry lines, 1 rule proposed, 0 quarantined: review .sleep-cycle/preview.md (not applied)\n');
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe('# M\n');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('no example points at a script a user\'s repository would not have', () => {
    for (const file of ['examples/claude-code/session-start.json', 'examples/hooks/post-merge', 'examples/claude-code/README.md', 'README.md']) {
      expect(readFileSync(join(PACKAGE_ROOT, file), 'utf8'), file).not.toContain('pre-session.sh');
    }
  });
});
