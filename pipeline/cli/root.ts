import { dirname, join, resolve } from 'node:path';
import type { FsPort } from '../io/fs.js';
import { errors } from '../model/errors.js';

/** What `--root` means, shown in every command's help. */
export const ROOT_HELP =
  'the repository to work on (default: the top level of the git repository around the current directory, ' +
  'else the current directory); an explicit --root must be an existing directory and, inside a git repository, its top level';

/**
 * The folder a command works on. Without `--root`: the top level of the git repository around the current
 * directory, so a command run from `src/` sees the same state as the hook does; outside a repository,
 * the current directory. An explicit `--root` is taken as written, and must be an existing directory (a
 * typo must not create a folder and report success) and, in a repository, its top level: state, memory
 * paths and commits are per repository, and a subfolder root would commit its files at the wrong paths.
 */
export async function resolveRoot(deps: { fs: FsPort; cwd: string }, root: string | undefined): Promise<string> {
  if (root === undefined) return (await gitTopLevel(deps.fs, resolve(deps.cwd))) ?? resolve(deps.cwd);
  const dir = resolve(deps.cwd, root);
  const shown = JSON.stringify(root.slice(0, 200));
  const problem = await notADirectory(deps.fs, dir);
  if (problem) throw errors.usage(`--root expects an existing directory, found ${shown} (${problem}). Check the path; nothing was written.`);
  const top = await gitTopLevel(deps.fs, dir);
  if (top !== undefined && top !== dir) {
    throw errors.usage(
      `--root expects the top level of a git repository, found ${shown}, a folder inside the repository at ${top}: ` +
        `sleep-cycle keeps one memory per repository. Use --root ${top}, or leave --root out to use the repository around the current directory.`,
    );
  }
  return dir;
}

async function notADirectory(fs: FsPort, dir: string): Promise<string | null> {
  try {
    return (await fs.list(dir)) === undefined ? 'no such directory' : null;
  } catch (error) {
    return /ENOTDIR/.test(error instanceof Error ? error.message : '') ? 'a file, not a directory' : 'not a readable directory';
  }
}

/** The nearest folder up from `dir` that holds `.git` (a folder, or a file in a worktree or submodule), as git finds it. */
async function gitTopLevel(fs: FsPort, dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    if (await exists(fs, join(current, '.git'))) return current;
    if (dirname(current) === current) return undefined;
  }
}

async function exists(fs: FsPort, path: string): Promise<boolean> {
  try {
    return (await fs.identify(path)) !== undefined;
  } catch {
    // A folder we may not look into (EACCES) is no repository of ours.
    return false;
  }
}
