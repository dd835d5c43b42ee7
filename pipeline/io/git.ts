import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { errors } from '../model/errors.js';
import { resolveLinks } from './confine.js';
import { asConfigArgs, configOverrides, FIXED_SAFE_CONFIG, PACK_ARGS, parseConfigListing, PROBED_KEYS } from './git-safety.js';

export interface RepoInfo {
  repo: boolean;
  /** `branch` (with its name), `detached`, or `unborn` (no commit yet). */
  head: { kind: 'branch'; name: string } | { kind: 'detached' } | { kind: 'unborn' } | null;
}

export interface FileToCommit {
  path: string;
  content: string;
}

export interface CommitResult {
  sha: string | null;
  /** Paths git ignores: left out of the commit. */
  ignored: string[];
  /** With a branch: the branch already held exactly this change on top of HEAD, so it was left as is. */
  unchanged?: boolean;
  /** The commit was made but the user's index could not be refreshed for these paths. */
  indexStale?: string[];
}

export interface CommitOptions {
  /**
   * Commit to this branch instead of HEAD: the commit's parent is HEAD and the branch is (re)pointed at
   * it, the way a bot keeps one pull-request branch up to date. HEAD and the user's index do not move.
   */
  branch?: string;
}

/**
 * The git effects the pipeline needs. `commitFiles` commits exactly the given contents at the given
 * paths on top of HEAD, through a private index: the user's index and working tree are not read, so
 * their staged or unstaged work can never slip into a sleep-cycle commit.
 */
export interface GitPort {
  inspect(root: string): Promise<RepoInfo>;
  /** A file's content at HEAD (or at `rev`), or undefined (no such file, or no such commit). */
  readHead(root: string, path: string, rev?: string): Promise<string | undefined>;
  /** The commit `rev` names, or null. */
  resolve(root: string, rev: string): Promise<string | null>;
  commitFiles(root: string, files: FileToCommit[], message: string, options?: CommitOptions): Promise<CommitResult>;
  /** Pushes a branch, replacing the remote copy only if it is still at `expected` (lease). */
  pushBranch(root: string, remote: string, branch: string, expected: string | null): Promise<void>;
  /** Commits in `tip` but not in HEAD whose subject does not start with `prefix`, as "sha subject". */
  foreignCommits(root: string, tip: string, prefix: string): Promise<string[]>;
  /** Fetches a remote branch into the local branch of the same name; its commit, or null when the remote has none. */
  fetchBranch(root: string, remote: string, branch: string): Promise<string | null>;
  /**
   * Repairs the user's index after a run killed between moving HEAD and refreshing the index: of `paths`,
   * those staged exactly as they were before HEAD's sleep-cycle commit are reset to HEAD. Returns them.
   */
  repairIndex(root: string, paths: string[], prefix: string): Promise<string[]>;
}

/**
 * simple-git, imported on first use: a pre-session `run --dry-run` asks git nothing and so never pays
 * its ~28 ms import. Every command it runs carries the settings that keep the repository's hooks,
 * filters and other programs from running (git-safety.ts); simple-git refuses those `-c` keys unless
 * told they are wanted.
 */
async function openGit(root: string): Promise<{ git: SimpleGit; settings: string[] }> {
  const settings = await safeSettings(root);
  return { git: await gitWith(root, settings), settings };
}

/** A new simple-git instance (its `env()` is per instance) carrying `settings`. */
async function gitWith(root: string, settings: string[]): Promise<SimpleGit> {
  const { simpleGit } = await import('simple-git');
  return simpleGit({ baseDir: root, config: settings, unsafe: UNSAFE_ALLOWED });
}

async function gitAt(root: string): Promise<SimpleGit> {
  return (await openGit(root)).git;
}

/** The simple-git checks our own settings trip (each sets a key to a safe value, never to a program). */
const UNSAFE_ALLOWED = {
  allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true, allowUnsafePager: true, allowUnsafeFilter: true,
  allowUnsafeDiffTextConv: true, allowUnsafeDiffExternal: true, allowUnsafeCredentialHelper: true,
  allowUnsafeSshCommand: true, allowUnsafePack: true, allowUnsafeProtocolOverride: true, allowUnsafeAskPass: true,
  allowUnsafeGitProxy: true,
};

/**
 * The fixed settings plus the overrides of what this repository's config (and what it includes) sets.
 * Read per command, not cached: a config edited between two commands of one process is seen.
 */
async function safeSettings(root: string): Promise<string[]> {
  const listing = await gitOutput(root, [...asConfigArgs(FIXED_SAFE_CONFIG), 'config', '--null', '--show-scope', '--get-regexp', PROBED_KEYS]);
  const { settings, refused } = configOverrides(parseConfigListing(listing));
  if (refused.length > 0) {
    throw errors.git('configuration check', `the repository's git config sets ${refused.map((key) => JSON.stringify(key)).join(', ')}: a name with "=" cannot be neutralised on git's command line, so sleep-cycle runs no git command here. Remove that section from .git/config (or the file it includes)`);
  }
  return [...FIXED_SAFE_CONFIG, ...settings];
}

/** A git command's stdout; '' when it fails (`git config --get-regexp` exits 1 when nothing matches). */
async function gitOutput(root: string, args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolvePromise) => {
    execFile('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 }, (error, stdout) => resolvePromise(error ? '' : stdout));
  });
}

const IDENTITY = { GIT_AUTHOR_NAME: 'sleep-cycle', GIT_AUTHOR_EMAIL: 'sleep-cycle@localhost', GIT_COMMITTER_NAME: 'sleep-cycle', GIT_COMMITTER_EMAIL: 'sleep-cycle@localhost' };

export const simpleGitPort: GitPort = {
  async inspect(root) {
    const git = await gitAt(root);
    try {
      if (!(await git.checkIsRepo())) return { repo: false, head: null };
    } catch {
      return { repo: false, head: null };
    }
    const head = await optional(git.raw(['rev-parse', '--verify', '--quiet', 'HEAD']));
    if (!head) return { repo: true, head: { kind: 'unborn' } };
    const branch = await optional(git.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']));
    return { repo: true, head: branch ? { kind: 'branch', name: branch } : { kind: 'detached' } };
  },
  async readHead(root, path, rev = 'HEAD') {
    const git = await gitAt(root);
    path = committedPath(root, path);
    try {
      const text = await git.raw(['show', '--no-textconv', `${rev}:${path}`]);
      return text.length > 0 ? text : undefined;
    } catch (error) {
      // No such file or commit is an answer (git's stderr stays with simple-git, never on the terminal);
      // anything else (a damaged repository, a missing object) is an error the user must see.
      if (!(await git.raw(['rev-parse', '--verify', '--quiet', `${rev}:${path}`]).catch(() => 'unknown')).trim()) return undefined;
      throw errors.git(`show ${rev}:${path}`, error);
    }
  },
  async resolve(root, rev) {
    return (await optional((await gitAt(root)).raw(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]))) ?? null;
  },
  async commitFiles(root, files, message, options = {}) {
    const { git, settings } = await openGit(root);
    try {
      files = files.map((file) => ({ ...file, path: committedPath(root, file.path) }));
      const paths = files.map((file) => file.path);
      const ignored = paths.length > 0 ? await git.checkIgnore(paths) : [];
      const wanted = files.filter((file) => !ignored.includes(file.path));
      if (wanted.length === 0) return { sha: null, ignored };
      if (!options.branch) await refuseLockedIndex(git);
      const result = await commitThroughPrivateIndex(git, root, settings, wanted, message, options.branch);
      // The user's index now matches the new HEAD for these paths; their working-tree edits stay as edits.
      if (result.sha && !options.branch) {
        const paths = wanted.map((file) => file.path);
        try {
          await git.raw(['reset', '--quiet', '--', ...paths]);
        } catch {
          return { ...result, ignored, indexStale: paths };
        }
      }
      return { ...result, ignored };
    } catch (error) {
      throw errors.git('commit', error);
    }
  },
  async pushBranch(root, remote, branch, expected) {
    const lease = `--force-with-lease=refs/heads/${branch}:${expected ?? ''}`;
    try {
      await (await gitAt(root)).raw(['push', '--quiet', PACK_ARGS.push, lease, remote, `refs/heads/${branch}:refs/heads/${branch}`]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const hint = /stale info|rejected/i.test(reason) ? ' Someone pushed to the branch while this run worked; run again to rebuild it on their change.' : '';
      throw errors.git(`push of ${branch} to ${remote}`, `${reason}.${hint}`);
    }
  },
  async foreignCommits(root, tip, prefix) {
    const log = (await optional((await gitAt(root)).raw(['log', '--format=%h %s', `HEAD..${tip}`]))) ?? '';
    return log.split('\n').filter((line) => line.trim() !== '' && !line.slice(line.indexOf(' ') + 1).startsWith(prefix));
  },
  async repairIndex(root, paths, prefix) {
    const git = await gitAt(root);
    paths = paths.map((path) => committedPath(root, path));
    // One git process on the normal path: nothing of ours is staged.
    const staged = (await optional(git.raw(['diff', '--cached', '--name-only', '--no-ext-diff', '--no-textconv', '--', ...paths]))) ?? '';
    const candidates = staged.split('\n').map((line) => line.trim()).filter(Boolean);
    if (candidates.length === 0) return [];
    const subject = (await optional(git.raw(['log', '-1', '--format=%s']))) ?? '';
    if (!subject.startsWith(prefix)) return [];
    const blob = async (spec: string) => (await optional(git.raw(['rev-parse', '--verify', '--quiet', spec]))) ?? null;
    const stale: string[] = [];
    for (const path of candidates) {
      const [indexed, before] = await Promise.all([blob(`:0:${path}`), blob(`HEAD~1:${path}`)]);
      // Staged as the version before sleep-cycle's commit (or absent when the commit created it): stale.
      if (indexed === before) stale.push(path);
    }
    if (stale.length > 0) {
      try {
        await git.raw(['reset', '--quiet', '--', ...stale]);
      } catch (error) {
        throw errors.git('reset of a stale index', error);
      }
    }
    return stale;
  },
  async fetchBranch(root, remote, branch) {
    const git = await gitAt(root);
    const listed = await optional(git.raw(['ls-remote', PACK_ARGS.fetch, '--heads', remote, `refs/heads/${branch}`]));
    if (!listed) return null;
    try {
      // The local branch is the bot's own: it follows the remote, whatever it held before.
      await git.raw(['fetch', '--quiet', PACK_ARGS.fetch, remote, `+refs/heads/${branch}:refs/heads/${branch}`]);
    } catch (error) {
      throw errors.git(`fetch of ${branch} from ${remote}`, error);
    }
    return (await optional(git.raw(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]))) ?? null;
  },
};

/**
 * The path git should record for a file written through a link: an in-repository link (`MEMORY.md ->
 * docs/AGENT_NOTES.md`) stays a link in the commit, and its target gets the new content. (The confined
 * filesystem already refused links that leave the repository.)
 */
function committedPath(root: string, path: string): string {
  const rootReal = resolveLinks(resolve(root));
  const rel = relative(rootReal, resolveLinks(resolve(root, path)));
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

/** A held index.lock means another git command is running (or crashed): stop before HEAD moves. */
async function refuseLockedIndex(git: SimpleGit): Promise<void> {
  const lock = (await git.raw(['rev-parse', '--git-path', 'index.lock'])).trim();
  const path = resolve(await git.revparse(['--show-toplevel']), lock);
  const exists = await stat(path).then(() => true, () => false);
  if (exists) {
    throw new Error(`${lock} exists: another git process is running, or one crashed. If none is running, remove the index.lock file (${lock}) and run sleep-cycle again (nothing was committed; the files were written)`);
  }
}

async function commitThroughPrivateIndex(
  git: SimpleGit,
  root: string,
  settings: string[],
  files: FileToCommit[],
  message: string,
  branch: string | undefined,
): Promise<{ sha: string | null; unchanged?: boolean }> {
  const gitDir = (await git.raw(['rev-parse', '--absolute-git-dir'])).trim();
  const index = resolve(gitDir, `sleep-cycle-index-${randomBytes(4).toString('hex')}`);
  const parent = await optional(git.raw(['rev-parse', '--verify', '--quiet', 'HEAD']));
  // Only what git needs: simple-git refuses environments carrying editor or pager commands.
  const env = { ...pick(process.env, ['PATH', 'HOME', 'LANG', 'LC_ALL', 'SYSTEMROOT', 'XDG_CONFIG_HOME']), GIT_INDEX_FILE: index, ...(await identityEnv(git)) };
  const withIndex = (await gitWith(root, settings)).env(env);
  try {
    await withIndex.raw(parent ? ['read-tree', parent] : ['read-tree', '--empty']);
    for (const file of files) {
      const blob = (await hashObject(root, env, settings, file.content)).trim();
      await withIndex.raw(['update-index', '--add', '--cacheinfo', `100644,${blob},${file.path}`]);
    }
    const tree = (await withIndex.raw(['write-tree'])).trim();
    const treeOf = async (commit: string) => (await git.raw(['rev-parse', `${commit}^{tree}`])).trim();
    if (!branch) {
      if (parent && tree === (await treeOf(parent))) return { sha: null };
      const commit = (await withIndex.raw(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim();
      // Compare-and-swap: if HEAD moved while we worked, this fails instead of dropping someone's commit.
      await git.raw(['update-ref', '-m', `sleep-cycle: ${message}`, 'HEAD', commit, parent ?? '0'.repeat(40)]);
      return { sha: commit };
    }
    const ref = `refs/heads/${branch}`;
    const current = await optional(git.raw(['rev-parse', '--verify', '--quiet', ref]));
    if (current) {
      const currentParent = await optional(git.raw(['rev-parse', '--verify', '--quiet', `${current}^`]));
      if (currentParent === parent && (await treeOf(current)) === tree) return { sha: current, unchanged: true };
    }
    if (parent && tree === (await treeOf(parent))) return { sha: null };
    const commit = (await withIndex.raw(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim();
    await git.raw(['update-ref', '-m', `sleep-cycle: ${message}`, ref, commit, current ?? '0'.repeat(40)]);
    return { sha: commit };
  } finally {
    await rm(index, { force: true });
  }
}

/** `git hash-object -w --stdin` with the content on stdin (simple-git's raw() takes no stdin). */
async function hashObject(root: string, env: NodeJS.ProcessEnv, settings: string[], content: string): Promise<string> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolvePromise, reject) => {
    // --no-filters: the content is ours, byte for byte; no clean filter or line-ending conversion applies.
    const child = spawn('git', [...asConfigArgs(settings), 'hash-object', '-w', '--no-filters', '--stdin'], { cwd: root, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(err.trim() || `git hash-object exited ${code}`))));
    child.stdin.end(content);
  });
}

/** Commits need an author: use the user's identity when git has one, else a sleep-cycle identity. */
async function identityEnv(git: SimpleGit): Promise<Record<string, string>> {
  const email = await optional(git.raw(['config', 'user.email']));
  return email ? {} : IDENTITY;
}

function pick(env: NodeJS.ProcessEnv, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]!]])));
}

async function optional(promise: Promise<string>, trim = true): Promise<string | undefined> {
  try {
    const value = await promise;
    const text = trim ? value.trim() : value;
    return text.length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}
