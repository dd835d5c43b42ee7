import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

/**
 * A hostile repository's git settings must not run anything during a run: every hook, filter, monitor,
 * driver and program below would write a marker file (outside the repository) if git ran it. Each case
 * first shows that plain git does run the trap, so an absent marker means something.
 */

const HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg',
  'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive',
  'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'post-index-change', 'fsmonitor-watchman',
];

interface Trap {
  dir: string;
  markers: string;
  /** An executable that records its name in the markers folder and then runs `then` (default: behaves like `cat`). */
  program(name: string, then?: string): string;
}

function trapRepo(files: Record<string, string> = {}): Trap {
  const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})), ...files }, { git: true });
  const markers = tempDir('sleep-cycle-markers-');
  const bin = tempDir('sleep-cycle-trap-bin-');
  const program = (name: string, then = 'cat') => {
    const path = join(bin, name);
    writeFileSync(path, `#!/bin/sh\necho "$0 $*" >> '${join(markers, name)}'\n${then}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  return { dir, markers, program };
}

function installHooks(trap: Trap, hooksDir: string): void {
  mkdirSync(hooksDir, { recursive: true });
  for (const hook of HOOKS) {
    writeFileSync(join(hooksDir, hook), `#!/bin/sh\necho "$0" >> '${join(trap.markers, hook)}'\nexit 0\n`);
    chmodSync(join(hooksDir, hook), 0o755);
  }
}

function markers(trap: Trap): string[] {
  return readdirSync(trap.markers).sort();
}

/** Shows plain git running the trap (through `action`), then clears the markers. */
function provesTrap(trap: Trap, action: () => void): void {
  action();
  expect(markers(trap).length, 'plain git ran none of the traps: the test would prove nothing').toBeGreaterThan(0);
  for (const name of markers(trap)) rmSync(join(trap.markers, name));
}

async function runCommits(trap: Trap, args: string[] = []): Promise<void> {
  const run = await cli(trap.dir, ['run', ...args]);
  expect(run.code, JSON.stringify(run.json.error)).toBe(0);
  expect(run.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
  // The commit holds exactly what the run wrote, unfiltered.
  expect(git(trap.dir, 'show', 'HEAD:MEMORY.md')).toBe(read(trap.dir, 'MEMORY.md'));
}

describe('hostile repository: git runs none of its programs', () => {
  it('hooks in .git/hooks (every hook name), including reference-transaction and post-index-change', async () => {
    const trap = trapRepo();
    installHooks(trap, join(trap.dir, '.git', 'hooks'));
    provesTrap(trap, () => git(trap.dir, 'commit', '--quiet', '--allow-empty', '-m', 'plain git'));
    await runCommits(trap);
    expect(markers(trap)).toEqual([]);
  });

  it('hooks reached through core.hooksPath, set directly or through include.path and includeIf', async () => {
    for (const how of ['direct', 'include', 'includeIf'] as const) {
      const trap = trapRepo();
      const hooks = tempDir('sleep-cycle-hooks-');
      installHooks(trap, hooks);
      if (how === 'direct') git(trap.dir, 'config', 'core.hooksPath', hooks);
      else {
        const included = join(tempDir('sleep-cycle-include-'), 'evil.gitconfig');
        writeFileSync(included, `[core]\n\thooksPath = ${hooks}\n`);
        git(trap.dir, 'config', how === 'include' ? 'include.path' : `includeIf.gitdir:${trap.dir}/.path`, included);
      }
      provesTrap(trap, () => git(trap.dir, 'update-ref', 'refs/heads/probe', 'HEAD'));
      await runCommits(trap);
      expect(markers(trap), how).toEqual([]);
    }
  });

  it('core.fsmonitor naming a program', async () => {
    const trap = trapRepo({ 'MEMORY.md': '# Notes\n' });
    git(trap.dir, 'config', 'core.fsmonitor', trap.program('fsmonitor'));
    provesTrap(trap, () => git(trap.dir, 'status', '--porcelain'));
    await runCommits(trap);
    expect(markers(trap)).toEqual([]);
  });

  it('clean, smudge and process filters from .gitattributes, info/attributes and an included config, even a required one', async () => {
    for (const where of ['gitattributes', 'info', 'include'] as const) {
      const trap = trapRepo({ 'MEMORY.md': '# Notes\n', ...(where === 'gitattributes' ? { '.gitattributes': '* filter=evil diff=evil\n' } : {}) });
      if (where === 'info') writeFileSync(join(trap.dir, '.git', 'info', 'attributes'), '* filter=evil diff=evil\n');
      if (where === 'include') writeFileSync(join(trap.dir, '.gitattributes'), '*.md filter=Inc\n');
      const section = where === 'include' ? 'Inc' : 'evil';
      const config = `[filter "${section}"]\n\tclean = ${trap.program('clean')}\n\tsmudge = ${trap.program('smudge')}\n\trequired = true\n[diff "${section}"]\n\ttextconv = ${trap.program('textconv')}\n`;
      if (where === 'include') {
        const included = join(tempDir('sleep-cycle-include-'), 'filters.gitconfig');
        writeFileSync(included, config);
        git(trap.dir, 'config', 'include.path', included);
      } else {
        writeFileSync(join(trap.dir, '.git', 'config'), `${read(trap.dir, '.git/config')}${config}`);
      }
      provesTrap(trap, () => {
        git(trap.dir, 'add', '--renormalize', '.');
        git(trap.dir, 'reset', '--quiet');
      });
      await runCommits(trap);
      expect(markers(trap), where).toEqual([]);
      // The rule went into the commit as written, not through the filter.
      expect(git(trap.dir, 'show', 'HEAD:MEMORY.md')).toContain('<!-- rule:r-');
    }
  });

  it('a filter process, diff.external, textconv, a pager, commit signing and log signatures', async () => {
    const trap = trapRepo({ '.gitattributes': '* filter=proc diff=tc\n', 'MEMORY.md': '# Notes\n' });
    const settings: [string, string][] = [
      ['filter.proc.process', trap.program('process')], ['diff.tc.textconv', trap.program('textconv')], ['diff.external', trap.program('external')],
      ['core.pager', trap.program('pager')], ['commit.gpgSign', 'true'], ['gpg.program', trap.program('gpg')], ['log.showSignature', 'true'],
      ['gc.auto', '1'], ['core.askPass', trap.program('askpass', 'exit 1')],
    ];
    for (const [key, value] of settings) git(trap.dir, 'config', key, value);
    provesTrap(trap, () => {
      try {
        git(trap.dir, 'commit', '--quiet', '--allow-empty', '-m', 'signed');
      } catch {
        // The fake gpg does not sign: the commit fails, but it ran.
      }
    });
    await runCommits(trap);
    expect(markers(trap)).toEqual([]);
    expect(git(trap.dir, 'cat-file', 'commit', 'HEAD')).not.toContain('gpgsig');
  });

  it('the nightly push: a pre-push hook, the remote\'s pack programs in the repository\'s config, an ext:: url', async () => {
    const trap = trapRepo();
    const origin = tempDir('sleep-cycle-origin-');
    git(origin, 'init', '--quiet', '--bare', '--initial-branch=main');
    git(trap.dir, 'remote', 'add', 'origin', origin);
    git(trap.dir, 'push', '--quiet', 'origin', 'main');
    installHooks(trap, join(trap.dir, '.git', 'hooks'));
    git(trap.dir, 'config', 'remote.origin.receivepack', trap.program('receivepack', 'exit 1'));
    git(trap.dir, 'config', 'remote.origin.uploadpack', trap.program('uploadpack', 'exit 1'));
    git(trap.dir, 'config', 'protocol.ext.allow', 'always');
    git(trap.dir, 'config', `url.ext::${trap.program('ext', 'exit 1')} %S .insteadOf`, 'evil:');
    provesTrap(trap, () => {
      try {
        git(trap.dir, 'ls-remote', 'origin');
      } catch {
        // The fake upload-pack speaks no protocol: ls-remote fails, but it ran.
      }
    });
    const run = await cli(trap.dir, ['run', '--branch', 'sleep-cycle/nightly', '--push']);
    expect(run.code, JSON.stringify(run.json.error)).toBe(0);
    expect(git(origin, 'rev-parse', 'refs/heads/sleep-cycle/nightly').trim()).toBe(run.json.data.commit);
    expect(markers(trap)).toEqual([]);
  });

  it('a driver name git cannot be told to ignore on its command line: the run refuses with E_GIT and runs nothing', async () => {
    const trap = trapRepo({ '.gitattributes': '* filter=a=b\n' });
    writeFileSync(join(trap.dir, '.git', 'config'), `${read(trap.dir, '.git/config')}[filter "a=b"]\n\tclean = ${trap.program('clean')}\n`);
    const run = await cli(trap.dir, ['run']);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('E_GIT');
    expect(run.json.error.message).toContain('filter.a=b.clean');
    expect(markers(trap)).toEqual([]);
  });

  it("a local push remote (a path, file://, or reached through insteadOf) runs receive-pack with that repository's hooks off", async () => {
    for (const how of ['path', 'file-url', 'insteadOf'] as const) {
      const trap = trapRepo();
      const origin = tempDir('sleep-cycle-origin-');
      git(origin, 'init', '--quiet', '--bare', '--initial-branch=main');
      installHooks(trap, join(origin, 'hooks'));
      if (how === 'insteadOf') {
        git(trap.dir, 'remote', 'add', 'origin', 'https://example.invalid/acme/app.git');
        git(trap.dir, 'config', `url.${origin}.insteadOf`, 'https://example.invalid/acme/app.git');
      } else git(trap.dir, 'remote', 'add', 'origin', how === 'path' ? origin : `file://${origin}`);
      provesTrap(trap, () => git(trap.dir, 'push', '--quiet', 'origin', 'main'));
      const run = await cli(trap.dir, ['run', '--branch', 'sleep-cycle/nightly', '--push']);
      expect(run.code, `${how}: ${JSON.stringify(run.json.error)}`).toBe(0);
      expect(git(origin, 'rev-parse', 'refs/heads/sleep-cycle/nightly').trim()).toBe(run.json.data.commit);
      expect(markers(trap), how).toEqual([]);
    }
  });

  it('core.gitProxy, which keeps the first value git reads, runs for no git:// remote (the environment overrides it)', async () => {
    const trap = trapRepo();
    git(trap.dir, 'config', 'core.gitProxy', `${trap.program('proxy', 'exit 1')} for example.invalid`);
    git(trap.dir, 'remote', 'add', 'origin', 'git://example.invalid/acme/app.git');
    provesTrap(trap, () => {
      try {
        git(trap.dir, 'ls-remote', 'origin');
      } catch {
        // The proxy speaks no protocol: ls-remote fails, but it ran.
      }
    });
    const run = await cli(trap.dir, ['run', '--branch', 'sleep-cycle/nightly', '--push']);
    expect(run.json.error?.code).toBe('E_GIT');
    expect(markers(trap)).toEqual([]);
  });

  it('a FIFO git would open (an included config, .gitattributes) stops the run at once with E_IO naming it', async () => {
    for (const [name, arm] of [
      ['git.inc', (dir: string) => writeFileSync(join(dir, '.git', 'config'), `${read(dir, '.git/config')}[include]\n\tpath = ../git.inc\n`)],
      ['.gitattributes', () => {}],
    ] as const) {
      const trap = trapRepo();
      execFileSync('mkfifo', [join(trap.dir, name)]);
      arm(trap.dir);
      const started = Date.now();
      const run = await cli(trap.dir, ['run']);
      expect(run.json.error?.code, name).toBe('E_IO');
      expect(run.json.error.message).toContain(`${name} is a FIFO`);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });
});
