import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, linkSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfiguredFile, checkGitFiles, checkRemoteGitDir, configValues } from '../../pipeline/io/git-files.js';
import { git } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

/** A repository with one commit (so refs, reflogs and objects exist), and a folder next to it. */
function repo(): { root: string; outside: string } {
  const base = realpathSync(tempDir('git-files-'));
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  git(root, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(join(root, 'MEMORY.md'), '# memory\n');
  git(root, 'add', '.');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'first');
  return { root, outside };
}

const fifo = (path: string) => execFileSync('mkfifo', [path]);
const refusal = (root: string, paths: string[] = []) => {
  try {
    checkGitFiles(root, paths);
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
  return undefined;
};

describe('the files git opens, checked before git runs', () => {
  it('accepts a plain repository and names its directories', () => {
    const { root } = repo();
    expect(checkGitFiles(root)).toEqual({ gitDir: join(root, '.git'), commonDir: join(root, '.git') });
    expect(checkGitFiles(join(root, '..', 'outside'))).toBeUndefined();
  });

  it.each(['HEAD', 'index', 'config', 'packed-refs', 'refs/heads/main', 'logs/HEAD', 'info/exclude', 'objects/info/alternates', 'commondir', 'shallow'])(
    'refuses .git/%s as a FIFO with E_IO naming it',
    (name) => {
      const { root } = repo();
      rmSync(join(root, '.git', name), { force: true });
      mkdirSync(join(root, '.git', name, '..'), { recursive: true });
      fifo(join(root, '.git', name));
      const error = refusal(root);
      expect(error?.code).toBe('E_IO');
      expect(error?.message).toContain(`.git/${name} is a FIFO`);
    },
  );

  it.each(['logs/HEAD', 'logs/refs/heads/main', 'logs/refs/heads/sleep-cycle/nightly', 'FETCH_HEAD', 'refs/heads/main', 'index', 'HEAD', 'ORIG_HEAD', 'packed-refs', 'config'])(
    'refuses .git/%s as a hard link (a name of a file outside: git writes reflogs and FETCH_HEAD in place)',
    (name) => {
      const { root, outside } = repo();
      const path = join(root, '.git', name);
      const shared = join(outside, 'shared');
      mkdirSync(join(path, '..'), { recursive: true });
      try {
        copyFileSync(path, shared); // git's own content: only the second name differs
      } catch {
        writeFileSync(shared, '0000000000000000000000000000000000000000\n');
      }
      rmSync(path, { force: true });
      linkSync(shared, path);
      const found = refusal(root);
      expect(found?.code).toBe('E_IO');
      expect(found?.message).toContain(`.git/${name}`);
      expect(found?.message).toMatch(/hard link \(one file with 2 names\)/);
      // A copy of its own is accepted: the refusal is about the shared file, not the content.
      rmSync(path);
      copyFileSync(shared, path);
      expect(refusal(root)).toBeUndefined();
    },
  );

  it('accepts hard-linked objects, as git clone --local makes them (git never writes through an object file)', () => {
    const { root, outside } = repo();
    const clone = join(outside, 'clone');
    git(outside, 'clone', '--quiet', '--local', root, clone);
    const packs = execFileSync('find', [join(clone, '.git', 'objects'), '-type', 'f', '-links', '+1'], { encoding: 'utf8' }).trim();
    expect(packs).not.toBe(''); // the clone shares object files with the source
    expect(checkGitFiles(clone)).toEqual({ gitDir: join(clone, '.git'), commonDir: join(clone, '.git') });
  });

  it("checks a local remote's git directory like ours: a hard-linked reflog, a FIFO as packed-refs or an included config, a link leaving it", () => {
    const { root, outside } = repo();
    const bare = join(outside, 'mirror.git');
    git(outside, 'init', '--quiet', '--bare', bare);
    git(root, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
    expect(checkRemoteGitDir(root, bare)).toBe(bare);
    expect(checkRemoteGitDir(root, join(outside, 'mirror'))).toBe(bare); // git tries <path>.git too
    expect(checkRemoteGitDir(root, join(outside, 'none'))).toBeUndefined();
    const remoteRefusal = (location: string) => {
      try {
        checkRemoteGitDir(root, location);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    mkdirSync(join(bare, 'logs/refs/heads'), { recursive: true });
    writeFileSync(join(outside, 'notes.md'), 'notes\n');
    linkSync(join(outside, 'notes.md'), join(bare, 'logs/refs/heads/main'));
    expect(remoteRefusal(bare)).toMatch(/logs\/refs\/heads\/main is a hard link/);
    rmSync(join(bare, 'logs/refs/heads/main'));
    fifo(join(bare, 'packed-refs'));
    expect(remoteRefusal(bare)).toMatch(/packed-refs is a FIFO/);
    rmSync(join(bare, 'packed-refs'));
    fifo(join(outside, 'remote.cfg'));
    // Written by hand: git itself would read the FIFO when it starts (that is the hang refused).
    const config = readFileSync(join(bare, 'config'), 'utf8');
    appendFileSync(join(bare, 'config'), `[include]\n\tpath = ${join(outside, 'remote.cfg')}\n`);
    expect(remoteRefusal(bare)).toMatch(/remote\.cfg is a FIFO/);
    writeFileSync(join(bare, 'config'), config);
    rmSync(join(bare, 'refs/heads'), { recursive: true });
    mkdirSync(join(outside, 'elsewhere'));
    symlinkSync(join(outside, 'elsewhere'), join(bare, 'refs/heads'));
    expect(remoteRefusal(bare)).toMatch(/refs\/heads resolves to .*elsewhere/);
    // A work tree with a .git folder is checked there; the file outside was never written.
    expect(checkRemoteGitDir(root, root)).toBe(join(root, '.git'));
    expect(readFileSync(join(outside, 'notes.md'), 'utf8')).toBe('notes\n');
  });

  it('refuses parts of the git directory that are links leaving the repository (git would write there)', () => {
    for (const part of ['objects', 'refs/heads', 'logs/HEAD']) {
      const { root, outside } = repo();
      renameSync(join(root, '.git', part), join(outside, 'moved'));
      symlinkSync(join(outside, 'moved'), join(root, '.git', part));
      expect(refusal(root)?.message, part).toContain(`resolves to ${join(outside, 'moved')}`);
    }
  });

  it('refuses a .git file or link naming a git directory outside, and a commondir or alternates outside', () => {
    const a = repo();
    renameSync(join(a.root, '.git'), join(a.outside, 'gitdir'));
    writeFileSync(join(a.root, '.git'), 'gitdir: ../outside/gitdir\n');
    expect(refusal(a.root)?.message).toContain('outside the repository');
    rmSync(join(a.root, '.git'));
    symlinkSync(join(a.outside, 'gitdir'), join(a.root, '.git'));
    expect(refusal(a.root)?.message).toContain('outside the repository');

    const b = repo();
    writeFileSync(join(b.root, '.git', 'commondir'), `${b.outside}\n`);
    expect(refusal(b.root)?.message).toContain('the common git directory it names');

    const c = repo();
    writeFileSync(join(c.root, '.git', 'objects', 'info', 'alternates'), `${c.outside}\n`);
    expect(refusal(c.root)?.message).toContain('an object store it names');
  });

  it('accepts a linked worktree and a submodule: their git directory names them back', () => {
    const { root, outside } = repo();
    git(root, 'worktree', 'add', '--quiet', join(outside, 'wt'));
    expect(checkGitFiles(join(outside, 'wt'))).toEqual({ gitDir: join(root, '.git', 'worktrees', 'wt'), commonDir: join(root, '.git') });
    // A work tree whose .git file names that same git directory is not the one it names back.
    mkdirSync(join(outside, 'impostor'));
    writeFileSync(join(outside, 'impostor', '.git'), `gitdir: ${join(root, '.git', 'worktrees', 'wt')}\n`);
    expect(refusal(join(outside, 'impostor'))?.message).toContain('outside the repository');

    const sub = join(outside, 'sub');
    mkdirSync(sub);
    git(root, 'config', 'core.worktree', sub); // as `git submodule` writes it into .git/modules/<name>/config
    writeFileSync(join(sub, '.git'), `gitdir: ${join(root, '.git')}\n`);
    expect(checkGitFiles(sub)?.gitDir).toBe(join(root, '.git'));
  });

  it('refuses an included config file that is a FIFO or a device, however it is included', () => {
    for (const section of ['[include]', '[includeIf "onbranch:main"]', '[includeIf "gitdir:/nowhere/"]']) {
      const { root } = repo();
      fifo(join(root, 'git.inc'));
      appendFileSync(join(root, '.git', 'config'), `${section}\n\tpath = ../git.inc\n`);
      expect(refusal(root)?.message, section).toContain('git.inc is a FIFO');
    }
    const { root } = repo();
    appendFileSync(join(root, '.git', 'config'), '[include]\n\tpath = /dev/zero\n');
    expect(refusal(root)?.message).toContain('/dev/zero is a character device');
  });

  it('follows nested includes and accepts regular and missing ones', () => {
    const { root } = repo();
    writeFileSync(join(root, '.git', 'a.cfg'), '[include]\n\tpath = b.cfg\n');
    appendFileSync(join(root, '.git', 'config'), '[include]\n\tpath = a.cfg\n\tpath = missing.cfg\n');
    expect(refusal(root)).toBeUndefined();
    fifo(join(root, '.git', 'b.cfg'));
    expect(refusal(root)?.message).toContain('b.cfg is a FIFO');
  });

  it('refuses a FIFO as .gitattributes, .gitignore or .mailmap, and in the folders of the paths given', () => {
    for (const name of ['.gitattributes', '.gitignore', '.mailmap']) {
      const { root } = repo();
      fifo(join(root, name));
      expect(refusal(root)?.message, name).toContain(`${name} is a FIFO`);
    }
    const { root } = repo();
    mkdirSync(join(root, '.sleep-cycle'));
    fifo(join(root, '.sleep-cycle', '.gitattributes'));
    expect(refusal(root)).toBeUndefined();
    expect(refusal(root, ['.sleep-cycle/state.json'])?.message).toContain('.sleep-cycle/.gitattributes is a FIFO');
    // A link there is harmless: git opens these files without following links.
    const linked = repo();
    symlinkSync('/dev/zero', join(linked.root, '.gitignore'));
    expect(refusal(linked.root)).toBeUndefined();
  });

  it('refuses a file a setting names when it is not a regular file', () => {
    const { root } = repo();
    fifo(join(root, 'excludes'));
    expect(() => checkConfiguredFile(root, 'core.excludesfile', 'excludes')).toThrow(/excludes is a FIFO.*core\.excludesfile/);
    expect(() => checkConfiguredFile(root, 'core.attributesfile', '/dev/zero')).toThrow(/character device/);
    expect(() => checkConfiguredFile(root, 'mailmap.file', 'missing')).not.toThrow();
  });
});

describe('configValues', () => {
  it('reads sections, subsections, quotes, escapes, comments and continuation lines as git does', () => {
    const text = '[core]\n\tworktree = "../a b" ; comment\n[includeIf "gitdir:~/x/"]\n\tPath = ~/inc.cfg\n[include] path = one\\\n.cfg\n[Section.Sub]\n\tkey\n# path = no\n';
    expect(configValues(text)).toEqual([
      { section: 'core', key: 'worktree', value: '../a b' },
      { section: 'includeif', key: 'path', value: '~/inc.cfg' },
      { section: 'include', key: 'path', value: 'one.cfg' },
      { section: 'section', key: 'key', value: '' },
    ]);
  });
});
