import { join, resolve } from 'node:path';
import { resolveLinks } from './confine.js';

/**
 * The build directories (commands.build_dirs) that are, or lie under, a link. A rule may delete a build
 * directory recursively, and `rm -rf dist/` follows a link named `dist` to wherever it points (a hostile
 * repository commits `dist -> ~` or `node_modules -> src`): such an entry no longer names a directory
 * the build owns, so it is left out. A directory that does not exist yet is fine (its parents are read).
 */
export function buildDirsThroughLinks(root: string, dirs: readonly string[]): string[] {
  const top = resolveLinks(resolve(root));
  return dirs.filter((dir) => resolveLinks(resolve(root, dir)) !== join(top, dir));
}
