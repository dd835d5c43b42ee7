import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDirsThroughLinks } from '../../pipeline/io/build-dir-links.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'build-dir-links-'));
  dirs.push(dir);
  return dir;
};

describe('build directories that lead through a link', () => {
  it('a link out of the repository, to its root, to its sources or under a linked parent is refused; real and missing directories are not', () => {
    const outside = temp();
    const root = temp();
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'dist'));
    mkdirSync(join(root, 'packages'));
    symlinkSync(outside, join(root, 'out'));
    symlinkSync(root, join(root, 'build'));
    symlinkSync('src', join(root, 'node_modules'));
    symlinkSync(outside, join(root, 'packages/app'));
    symlinkSync(join(outside, 'missing'), join(root, 'coverage'));
    expect(buildDirsThroughLinks(root, ['dist', 'out', 'build', 'node_modules', 'packages/app/dist', 'coverage', 'target', 'packages/lib/dist'])).toEqual(['out', 'build', 'node_modules', 'packages/app/dist', 'coverage']);
  });
  it('a repository reached through a link of its own is read as it is', () => {
    const real = temp();
    mkdirSync(join(real, 'dist'));
    const alias = join(temp(), 'alias');
    symlinkSync(real, alias);
    expect(buildDirsThroughLinks(alias, ['dist', 'target'])).toEqual([]);
  });
});
