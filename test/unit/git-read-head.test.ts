import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simpleGitPort } from '../../pipeline/io/git.js';
import { git, makeDir } from '../helpers/repo.js';

describe('git port: readHead', () => {
  it('a file at HEAD: its content; a file not at HEAD, or a commit that does not exist: undefined', async () => {
    const dir = makeDir({ 'MEMORY.md': '# Memory\n' }, { git: true });
    expect(await simpleGitPort.readHead(dir, 'MEMORY.md')).toBe('# Memory\n');
    expect(await simpleGitPort.readHead(dir, 'memory/archive.md')).toBeUndefined();
    expect(await simpleGitPort.readHead(dir, 'MEMORY.md', 'refs/heads/no-such-branch')).toBeUndefined();
  });

  it('a repository without a commit yet: undefined', async () => {
    const dir = makeDir({});
    git(dir, 'init', '--quiet');
    expect(await simpleGitPort.readHead(dir, 'MEMORY.md')).toBeUndefined();
  });

  it('a damaged repository (the blob HEAD names is gone): E_GIT naming what failed, not a silent "no file"', async () => {
    const dir = makeDir({ 'MEMORY.md': '# Memory\n' }, { git: true });
    const blob = git(dir, 'rev-parse', 'HEAD:MEMORY.md').trim();
    rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    expect(readdirSync(join(dir, '.git', 'objects', blob.slice(0, 2)))).not.toContain(blob.slice(2));
    await expect(simpleGitPort.readHead(dir, 'MEMORY.md')).rejects.toMatchObject({ code: 'E_GIT', message: expect.stringMatching(/^git show HEAD:MEMORY\.md failed: .*/s) });
  });
});
