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
    expect(git(origin, 'show', 'sleep-cycle/nightly:MEMORY.md')).toContain('git_push failed 3 times');
  });

  it('the pre-session hook prints one line without rule text, never applies, and never fails', () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const env = { ...childEnv(dir), PATH: `${fakeBin('/dev/null', '')}:${process.env.PATH}`, HOME: dir };
    const script = join(PACKAGE_ROOT, 'examples/hooks/pre-session.sh');
    const ok = spawnSync('sh', [script], { cwd: dir, env, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim().split('\n')).toEqual(['sleep-cycle: 3 new telemetry lines, 1 rules proposed, 0 quarantined: review .sleep-cycle/preview.md (not applied)']);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(ok.stdout).not.toContain('failed 3 times');
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toBe('# M\n');
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/safety-rules.yaml'), 'broken: [');
    const broken = spawnSync('sh', [script], { cwd: dir, env, encoding: 'utf8' });
    expect(broken.status).toBe(0);
    expect(broken.stdout).toContain('E_SAFETY_RULES');
  });
});
