import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildDirProblem, hostProblem, normalBuildDir } from '../../pipeline/safety/policy-places.js';

describe('what a repository may add to build_dirs', () => {
  it.each(['dist', 'packages/web/dist', './out/', 'tmp', '.cache', 'target/debug', '.venv', './/gen'])('%s is a build directory', (entry) => {
    expect(buildDirProblem(entry)).toBeNull();
  });
  it('is compared as the recursive-delete check compares it', () => {
    expect(['./out/', './/gen', 'a//b/'].map(normalBuildDir)).toEqual(['out', 'gen', 'a/b']);
  });
  it.each([
    ['/', 'a path outside the repository'],
    ['/var/tmp', 'a path outside the repository'],
    ['~', 'a path outside the repository'],
    ['..', 'a path that climbs out with ..'],
    ['dist/../../x', 'a path that climbs out with ..'],
    ['.', 'the repository itself'],
    ['./', 'the repository itself'],
    ['', 'the repository itself'],
    ['.git', 'the git directory'],
    ['sub/.GIT/objects', 'the git directory'],
    ['$HOME', 'not a plain path'],
    ['dist/*', 'not a plain path'],
    ['{a,b}', 'not a plain path'],
    ['-rf', 'not a plain path'],
    ['a/./b', 'not a plain path'],
    ['C:\\Windows', 'a path outside the repository'],
    ['./~', 'a path outside the repository'],
    ['.//~', 'a path outside the repository'],
  ])('%s is refused: %s', (entry, why) => {
    expect(buildDirProblem(entry)).toBe(why);
  });
  it('no accepted entry climbs out or names the root, whatever it is made of', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('..', '.', '', 'a', '.git', '~', '/', 'b-c'), { maxLength: 5 }), (parts) => {
        const entry = parts.join('/');
        if (buildDirProblem(entry) !== null) return;
        const path = normalBuildDir(entry);
        expect(path).not.toBe('');
        expect(path.split('/')).not.toContain('..');
        expect(path.startsWith('/')).toBe(false);
        expect(path.startsWith('~')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('what a repository may add to hosts', () => {
  it.each(['github.com', 'registry.npmjs.org', 'pypi.org', 'example.co.uk', 'git.internal.example'])('%s is a host', (entry) => {
    expect(hostProblem(entry)).toBeNull();
  });
  it.each([
    ['*', 'a wildcard'],
    ['*.github.com', 'a wildcard'],
    ['com', 'a top-level name (every host under it would pass)'],
    ['localhost', 'a top-level name (every host under it would pass)'],
    ['co.uk', 'a public suffix (every host under it would pass)'],
    ['10.0.0.0/8', 'an IP address or range'],
    ['127.0.0.1', 'an IP address or range'],
    ['::1', 'an IP address or range'],
    ['[fe80::1]', 'an IP address or range'],
    ['1.2.3.4.5', 'an IP address or range'],
    ['github.com/org', 'not a plain host name'],
    ['exa mple.com', 'not a plain host name'],
    ['-x.com', 'not a plain host name'],
    ['a..com', 'not a plain host name'],
  ])('%s is refused: %s', (entry, why) => {
    expect(hostProblem(entry)).toBe(why);
  });
});
