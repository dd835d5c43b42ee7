import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleGitPort } from '../../pipeline/io/git.js';
import { git, makeDir } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

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

describe('git port: output that arrives after git exits', () => {
  // A loaded machine can deliver git's last bytes after its exit event; simple-git's default answered
  // 50 ms after the exit with what it had, and a night once committed a skill file without its human
  // part. Here the output reaches the pipe 300 ms after the process that owns it exited.
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  let bin = '';
  let path: string | undefined;
  beforeAll(() => {
    bin = tempDir('sleep-cycle-late-git-');
    const script = `#!/bin/sh\ncase " $* " in\n  *" show "*) ( sleep 0.3; exec "${real}" "$@" ) & exit 0 ;;\nesac\nexec "${real}" "$@"\n`;
    writeFileSync(join(bin, 'git'), script, { mode: 0o755 });
    path = process.env.PATH;
    process.env.PATH = `${bin}${delimiter}${path ?? ''}`;
  });
  afterAll(() => {
    process.env.PATH = path;
  });

  it('readHead returns the whole file, not an empty or cut answer', async () => {
    const text = `# Memory\n\n${'Human text stays byte for byte.\n'.repeat(400)}`;
    const dir = makeDir({ 'MEMORY.md': text }, { git: true });
    expect(await simpleGitPort.readHead(dir, 'MEMORY.md')).toBe(text);
  });
});
