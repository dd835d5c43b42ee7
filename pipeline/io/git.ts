import { simpleGit } from 'simple-git';
import { errors } from '../errors.js';

export interface CommitResult {
  sha: string | null;
  /** Paths git ignores: written, but left out of the commit. */
  ignored: string[];
}

/** The git effects the pipeline needs; `commitFiles` commits exactly the given paths and nothing else. */
export interface GitPort {
  isRepo(root: string): Promise<boolean>;
  commitFiles(root: string, paths: string[], message: string): Promise<CommitResult>;
}

const FALLBACK_IDENTITY = ['-c', 'user.name=sleep-cycle', '-c', 'user.email=sleep-cycle@localhost'];

export const simpleGitPort: GitPort = {
  async isRepo(root) {
    try {
      return await simpleGit({ baseDir: root }).checkIsRepo();
    } catch {
      return false;
    }
  },
  async commitFiles(root, paths, message) {
    const git = simpleGit({ baseDir: root });
    try {
      const ignored = paths.length > 0 ? await git.checkIgnore(paths) : [];
      const wanted = paths.filter((path) => !ignored.includes(path));
      if (wanted.length === 0) return { sha: null, ignored };
      await git.raw(['add', '--', ...wanted]);
      const changed = await git.raw(['diff', '--cached', '--name-only', '--', ...wanted]);
      if (changed.trim() === '') return { sha: null, ignored };
      const identity = (await hasIdentity(git)) ? [] : FALLBACK_IDENTITY;
      // --only with pathspecs: whatever else the user staged stays staged and out of this commit.
      await git.raw([...identity, 'commit', '--only', '-m', message, '--', ...wanted]);
      const sha = (await git.revparse(['HEAD'])).trim();
      return { sha, ignored };
    } catch (error) {
      throw errors.git('commit', error);
    }
  },
};

async function hasIdentity(git: ReturnType<typeof simpleGit>): Promise<boolean> {
  try {
    const email = await git.raw(['config', 'user.email']);
    return email.trim().length > 0;
  } catch {
    return false;
  }
}
