import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { errors, SleepCycleError } from '../model/errors.js';
import { resolveLinks } from './confine.js';
import { checkConfiguredFile, checkGitFiles, checkRemoteGitDir } from './git-files.js';
import { asConfigArgs, configOverrides, FILE_KEYS, FIXED_SAFE_CONFIG, gitEnvironment, isLocalUrl, LOCAL_PACK_ARGS, PACK_ARGS, parseConfigListing, PROBED_KEYS } from './git-safety.js';

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
 * How long a git command may go without a byte of output before it is killed (simple-git's block
 * timeout; our own spawns use the same). A file git opens in a hostile repository can be a FIFO that
 * never answers; git-files.ts refuses the ones git's layout names, and this bounds the rest. Local
 * commands of a night answer in well under a second, but on a machine loaded many times over its
 * cores (a CI host running suites side by side) a starved git can be silent for seconds, and a bound
 * that fails healthy nights there is worse than a slow refusal: 30 s. A push or fetch talks to a server, whose silence
 * (`--quiet`) can be longer.
 */
export const GIT_TIMEOUT_MS = { local: 30_000, network: 120_000 } as const;

/**
 * When a git command's answer is complete. simple-git by default answers 50 ms after git's exit with
 * whatever output it had read by then (`completion.onExit`): on a loaded machine that was a file read from
 * HEAD cut short or empty, and a commit of a skill file without its human part. A local command is now
 * complete only at `close`, when its output has ended (no timer: a timer after the exit also kept the
 * process alive that long at its end). A push or fetch can leave a program holding the pipe (an ssh
 * connection kept alive, a credential cache): for those the exit still ends the wait, after a second.
 */
export const GIT_OUTPUT_GRACE_MS = { local: false, network: 1_000 } as const;

interface OpenGit {
  git: SimpleGit;
  settings: string[];
  env: Record<string, string>;
}

/**
 * simple-git, imported on first use: a pre-session `run --dry-run` asks git nothing and so never pays
 * its ~28 ms import. Before it runs anything, the files git will open are checked (git-files.ts; `paths`
 * are the work-tree paths the commands name). Every command it runs carries the settings and the
 * environment that keep the repository's hooks, filters and other programs from running
 * (git-safety.ts); simple-git refuses those `-c` keys unless told they are wanted.
 */
async function openGit(root: string, paths: readonly string[] = []): Promise<OpenGit> {
  const { settings, env } = await safeSettings(root, paths);
  return { git: await gitWith(root, settings, env), settings, env };
}

/** A new simple-git instance (its `env()` is per instance) carrying `settings`. */
async function gitWith(root: string, settings: string[], env: Record<string, string>, timeoutMs: number = GIT_TIMEOUT_MS.local): Promise<SimpleGit> {
  const { simpleGit } = await import('simple-git');
  return simpleGit({ baseDir: root, config: settings, unsafe: UNSAFE_ALLOWED, timeout: { block: timeoutMs }, completion: { onClose: true, onExit: timeoutMs === GIT_TIMEOUT_MS.local ? GIT_OUTPUT_GRACE_MS.local : GIT_OUTPUT_GRACE_MS.network } }).env(env);
}

async function gitAt(root: string): Promise<SimpleGit> {
  return (await openGit(root)).git;
}

/**
 * `git <args>`, its stdout. A command killed for its silence is an E_GIT error naming it (never an
 * answer such as "no such file", which `optional` would make of any other failure).
 */
async function raw(git: SimpleGit, args: string[], timeoutMs: number = GIT_TIMEOUT_MS.local): Promise<string> {
  try {
    return await git.raw(args);
  } catch (error) {
    throw isTimeout(error) ? timedOut(args, timeoutMs) : error;
  }
}

function isTimeout(error: unknown): boolean {
  return (error as { plugin?: unknown } | null)?.plugin === 'timeout' || /block timeout reached/.test(String((error as Error | null)?.message ?? ''));
}

function timedOut(args: readonly string[], timeoutMs: number): SleepCycleError {
  const command = args.filter((arg) => !arg.startsWith('--')).slice(0, 1).join(' ') || args[0] || '';
  return errors.git(
    command,
    `no answer for ${timeoutMs / 1000} s, so it was stopped. A file git opens in this repository may be a FIFO, a device or on a stalled disk (its config, an included file, .gitattributes, .gitignore, a ref), or a remote may not answer; nothing more was committed`,
  );
}

/**
 * The simple-git checks our own settings trip (each sets a key to a safe value, never to a program), and
 * those its environment check would raise for the user's own environment, passed on to git as it is
 * (EDITOR, GIT_CONFIG_GLOBAL, GIT_TEMPLATE_DIR…): the user's, trusted, and never given a program of the
 * repository's (gitEnvironment).
 */
const UNSAFE_ALLOWED = {
  allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true, allowUnsafePager: true, allowUnsafeFilter: true,
  allowUnsafeDiffTextConv: true, allowUnsafeDiffExternal: true, allowUnsafeCredentialHelper: true,
  allowUnsafeSshCommand: true, allowUnsafePack: true, allowUnsafeProtocolOverride: true, allowUnsafeAskPass: true,
  allowUnsafeGitProxy: true, allowUnsafeEditor: true, allowUnsafeConfigPaths: true, allowUnsafeConfigEnvCount: true,
  allowUnsafeTemplateDir: true,
};

/**
 * The fixed settings plus the overrides of what this repository's config (and what it includes) sets,
 * and the environment that overrides what no setting can. Read per command, not cached: a config edited
 * between two commands of one process is seen. The repository's files are checked first: reading the
 * config is itself a git command, which an included FIFO would block.
 */
async function safeSettings(root: string, paths: readonly string[] = []): Promise<{ settings: string[]; env: Record<string, string> }> {
  checkGitFiles(root, paths);
  const probeEnv = gitEnvironment(process.env, []);
  const listing = await gitOutput(root, [...asConfigArgs(FIXED_SAFE_CONFIG), 'config', '--null', '--show-scope', '--get-regexp', PROBED_KEYS], probeEnv);
  const entries = parseConfigListing(listing);
  const { settings, refused } = configOverrides(entries);
  if (refused.length > 0) {
    throw errors.git('configuration check', `the repository's git config sets ${refused.map((key) => JSON.stringify(key)).join(', ')}: a name with "=" cannot be neutralised on git's command line, so sleep-cycle runs no git command here. Remove that section from .git/config (or the file it includes)`);
  }
  for (const entry of entries) if (FILE_KEYS.includes(entry.key)) checkConfiguredFile(root, entry.key, entry.value);
  return { settings: [...FIXED_SAFE_CONFIG, ...settings], env: gitEnvironment(process.env, entries) };
}

/**
 * A git command's stdout; '' when it fails (`git config --get-regexp` exits 1 when nothing matches),
 * an E_GIT error when it is killed for taking longer than the local bound.
 */
async function gitOutput(root: string, args: string[], env: Record<string, string>): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd: root, env, encoding: 'utf8', maxBuffer: 16 << 20, timeout: GIT_TIMEOUT_MS.local, killSignal: 'SIGKILL' }, (error, stdout) => {
      if (error && (error as { killed?: boolean }).killed) reject(timedOut(args.filter((arg, i) => arg !== '-c' && args[i - 1] !== '-c'), GIT_TIMEOUT_MS.local));
      else resolvePromise(error ? '' : stdout);
    });
  });
}

const IDENTITY = { GIT_AUTHOR_NAME: 'sleep-cycle', GIT_AUTHOR_EMAIL: 'sleep-cycle@localhost', GIT_COMMITTER_NAME: 'sleep-cycle', GIT_COMMITTER_EMAIL: 'sleep-cycle@localhost' };

export const simpleGitPort: GitPort = {
  async inspect(root) {
    const git = await gitAt(root);
    try {
      if (!(await git.checkIsRepo())) return { repo: false, head: null };
    } catch (error) {
      if (isTimeout(error)) throw timedOut(['rev-parse'], GIT_TIMEOUT_MS.local);
      return { repo: false, head: null };
    }
    const head = await optional(raw(git, ['rev-parse', '--verify', '--quiet', 'HEAD']));
    if (!head) return { repo: true, head: { kind: 'unborn' } };
    const branch = await optional(raw(git, ['symbolic-ref', '--quiet', '--short', 'HEAD']));
    return { repo: true, head: branch ? { kind: 'branch', name: branch } : { kind: 'detached' } };
  },
  async readHead(root, path, rev = 'HEAD') {
    const git = await gitAt(root);
    path = committedPath(root, path);
    try {
      const text = await raw(git, ['show', '--no-textconv', `${rev}:${path}`]);
      return text.length > 0 ? text : undefined;
    } catch (error) {
      if (error instanceof SleepCycleError) throw error;
      // No such file or commit is an answer (git's stderr stays with simple-git, never on the terminal);
      // anything else (a damaged repository, a missing object) is an error the user must see.
      if (!(await raw(git, ['rev-parse', '--verify', '--quiet', `${rev}:${path}`]).catch((e: unknown) => (e instanceof SleepCycleError ? Promise.reject(e) : 'unknown'))).trim()) return undefined;
      throw errors.git(`show ${rev}:${path}`, error);
    }
  },
  async resolve(root, rev) {
    return (await optional(raw(await gitAt(root), ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]))) ?? null;
  },
  async commitFiles(root, files, message, options = {}) {
    files = files.map((file) => ({ ...file, path: committedPath(root, file.path) }));
    const { git, settings, env } = await openGit(root, files.map((file) => file.path));
    try {
      const paths = files.map((file) => file.path);
      const ignored = paths.length > 0 ? await bounded(git.checkIgnore(paths), ['check-ignore']) : [];
      const wanted = files.filter((file) => !ignored.includes(file.path));
      if (wanted.length === 0) return { sha: null, ignored };
      if (!options.branch) await refuseLockedIndex(git);
      const result = await commitThroughPrivateIndex(git, root, settings, env, wanted, message, options.branch);
      // The user's index now matches the new HEAD for these paths; their working-tree edits stay as edits.
      if (result.sha && !options.branch) {
        const paths = wanted.map((file) => file.path);
        try {
          await raw(git, ['reset', '--quiet', '--', ...paths]);
        } catch (error) {
          if (error instanceof SleepCycleError) throw error;
          return { ...result, ignored, indexStale: paths };
        }
      }
      return { ...result, ignored };
    } catch (error) {
      throw error instanceof SleepCycleError ? error : errors.git('commit', error);
    }
  },
  async pushBranch(root, remote, branch, expected) {
    const lease = `--force-with-lease=refs/heads/${branch}:${expected ?? ''}`;
    const { git, timeoutMs, packArgs } = await openRemote(root, remote, 'push');
    try {
      await raw(git, ['push', '--quiet', packArgs.push, lease, remote, `refs/heads/${branch}:refs/heads/${branch}`], timeoutMs);
    } catch (error) {
      if (error instanceof SleepCycleError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const hint = /stale info|rejected/i.test(reason) ? ' Someone pushed to the branch while this run worked; run again to rebuild it on their change.' : '';
      throw errors.git(`push of ${branch} to ${remote}`, `${reason}.${hint}`);
    }
  },
  async foreignCommits(root, tip, prefix) {
    const log = (await optional(raw(await gitAt(root), ['log', '--format=%h %s', `HEAD..${tip}`]))) ?? '';
    return log.split('\n').filter((line) => line.trim() !== '' && !line.slice(line.indexOf(' ') + 1).startsWith(prefix));
  },
  async repairIndex(root, paths, prefix) {
    paths = paths.map((path) => committedPath(root, path));
    const git = (await openGit(root, paths)).git;
    // One git process on the normal path: nothing of ours is staged.
    const staged = (await optional(raw(git, ['diff', '--cached', '--name-only', '--no-ext-diff', '--no-textconv', '--', ...paths]))) ?? '';
    const candidates = staged.split('\n').map((line) => line.trim()).filter(Boolean);
    if (candidates.length === 0) return [];
    const subject = (await optional(raw(git, ['log', '-1', '--format=%s']))) ?? '';
    if (!subject.startsWith(prefix)) return [];
    const blob = async (spec: string) => (await optional(raw(git, ['rev-parse', '--verify', '--quiet', spec]))) ?? null;
    const stale: string[] = [];
    for (const path of candidates) {
      const [indexed, before] = await Promise.all([blob(`:0:${path}`), blob(`HEAD~1:${path}`)]);
      // Staged as the version before sleep-cycle's commit (or absent when the commit created it): stale.
      if (indexed === before) stale.push(path);
    }
    if (stale.length > 0) {
      try {
        await raw(git, ['reset', '--quiet', '--', ...stale]);
      } catch (error) {
        throw error instanceof SleepCycleError ? error : errors.git('reset of a stale index', error);
      }
    }
    return stale;
  },
  async fetchBranch(root, remote, branch) {
    const { git, timeoutMs, packArgs } = await openRemote(root, remote, 'fetch');
    const listed = await optional(raw(git, ['ls-remote', packArgs.fetch, '--heads', remote, `refs/heads/${branch}`], timeoutMs));
    if (!listed) return null;
    try {
      // The local branch is the bot's own: it follows the remote, whatever it held before.
      await raw(git, ['fetch', '--quiet', packArgs.fetch, remote, `+refs/heads/${branch}:refs/heads/${branch}`], timeoutMs);
    } catch (error) {
      throw error instanceof SleepCycleError ? error : errors.git(`fetch of ${branch} from ${remote}`, error);
    }
    return (await optional(raw(git, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]))) ?? null;
  },
};

/**
 * git for a push or fetch: where the remote's URLs (after `insteadOf`, every `pushurl`) all lead to this
 * machine, the other side runs with our settings (LOCAL_PACK_ARGS) and the local bound, and the git
 * directory it writes is checked like ours (git-files.ts checkRemoteGitDir); a server gets git's own
 * pack programs and the network bound.
 */
async function openRemote(root: string, remote: string, direction: 'push' | 'fetch'): Promise<{ git: SimpleGit; timeoutMs: number; packArgs: { push: string; fetch: string } }> {
  const { git: probe, settings, env } = await openGit(root);
  const listed = await optional(raw(probe, ['remote', 'get-url', '--all', ...(direction === 'push' ? ['--push'] : []), remote]));
  // Not a configured remote: git takes the name itself as the URL.
  const urls = listed ? listed.split('\n').map((url) => url.trim()).filter(Boolean) : [remote];
  const local = urls.some(isLocalUrl);
  for (const url of urls.filter(isLocalUrl)) checkRemoteGitDir(root, localPath(url));
  const timeoutMs = local && urls.every(isLocalUrl) ? GIT_TIMEOUT_MS.local : GIT_TIMEOUT_MS.network;
  return { git: await gitWith(root, settings, env, timeoutMs), timeoutMs, packArgs: local ? LOCAL_PACK_ARGS : PACK_ARGS };
}

/** The path of a local URL: a `file://` URL's path (percent-decoded, as git does), or the path itself. */
function localPath(url: string): string {
  const file = /^file:\/\/(?:localhost)?(\/.*)$/i.exec(url)?.[1];
  if (file === undefined) return url;
  try {
    return decodeURIComponent(file);
  } catch {
    return file;
  }
}

/** A simple-git task other than raw(), with the same translation of a timeout. */
async function bounded<T>(task: Promise<T>, args: string[]): Promise<T> {
  try {
    return await task;
  } catch (error) {
    throw isTimeout(error) ? timedOut(args, GIT_TIMEOUT_MS.local) : error;
  }
}

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
  const lock = (await raw(git, ['rev-parse', '--git-path', 'index.lock'])).trim();
  const path = resolve((await raw(git, ['rev-parse', '--show-toplevel'])).trim(), lock);
  const exists = await stat(path).then(() => true, () => false);
  if (exists) {
    throw new Error(`${lock} exists: another git process is running, or one crashed. If none is running, remove the index.lock file (${lock}) and run sleep-cycle again (nothing was committed; the files were written)`);
  }
}

async function commitThroughPrivateIndex(
  git: SimpleGit,
  root: string,
  settings: string[],
  baseEnv: Record<string, string>,
  files: FileToCommit[],
  message: string,
  branch: string | undefined,
): Promise<{ sha: string | null; unchanged?: boolean }> {
  const gitDir = (await raw(git, ['rev-parse', '--absolute-git-dir'])).trim();
  const index = resolve(gitDir, `sleep-cycle-index-${randomBytes(4).toString('hex')}`);
  const parent = await optional(raw(git, ['rev-parse', '--verify', '--quiet', 'HEAD']));
  const env = { ...baseEnv, GIT_INDEX_FILE: index, ...(await identityEnv(git)) };
  const withIndex = await gitWith(root, settings, env);
  try {
    await raw(withIndex, parent ? ['read-tree', parent] : ['read-tree', '--empty']);
    for (const file of files) {
      const blob = (await hashObject(root, env, settings, file.content)).trim();
      await raw(withIndex, ['update-index', '--add', '--cacheinfo', `100644,${blob},${file.path}`]);
    }
    const tree = (await raw(withIndex, ['write-tree'])).trim();
    const treeOf = async (commit: string) => (await raw(git, ['rev-parse', `${commit}^{tree}`])).trim();
    if (!branch) {
      if (parent && tree === (await treeOf(parent))) return { sha: null };
      const commit = (await raw(withIndex, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim();
      // Compare-and-swap: if HEAD moved while we worked, this fails instead of dropping someone's commit.
      await raw(git, ['update-ref', '-m', `sleep-cycle: ${message}`, 'HEAD', commit, parent ?? '0'.repeat(40)]);
      return { sha: commit };
    }
    const ref = `refs/heads/${branch}`;
    const current = await optional(raw(git, ['rev-parse', '--verify', '--quiet', ref]));
    if (current) {
      const currentParent = await optional(raw(git, ['rev-parse', '--verify', '--quiet', `${current}^`]));
      if (currentParent === parent && (await treeOf(current)) === tree) return { sha: current, unchanged: true };
    }
    if (parent && tree === (await treeOf(parent))) return { sha: null };
    const commit = (await raw(withIndex, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim();
    await raw(git, ['update-ref', '-m', `sleep-cycle: ${message}`, ref, commit, current ?? '0'.repeat(40)]);
    return { sha: commit };
  } finally {
    await rm(index, { force: true });
  }
}

/** `git hash-object -w --stdin` with the content on stdin (simple-git's raw() takes no stdin), bounded like the rest. */
async function hashObject(root: string, env: Record<string, string>, settings: string[], content: string): Promise<string> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolvePromise, reject) => {
    // --no-filters: the content is ours, byte for byte; no clean filter or line-ending conversion applies.
    const child = spawn('git', [...asConfigArgs(settings), 'hash-object', '-w', '--no-filters', '--stdin'], { cwd: root, env });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(timedOut(['hash-object'], GIT_TIMEOUT_MS.local));
    }, GIT_TIMEOUT_MS.local);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdin.on('error', () => {}); // a killed git closes its stdin; the timeout says why
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(out);
      else reject(new Error(err.trim() || `git hash-object exited ${code}`));
    });
    child.stdin.end(content);
  });
}

/** Commits need an author: use the user's identity when git has one, else a sleep-cycle identity. */
async function identityEnv(git: SimpleGit): Promise<Record<string, string>> {
  const email = await optional(raw(git, ['config', 'user.email']));
  return email ? {} : IDENTITY;
}

/** The trimmed output, or undefined for empty output or a failed command; a timeout stays an error. */
async function optional(promise: Promise<string>, trim = true): Promise<string | undefined> {
  try {
    const value = await promise;
    const text = trim ? value.trim() : value;
    return text.length > 0 ? text : undefined;
  } catch (error) {
    if (error instanceof SleepCycleError) throw error;
    return undefined;
  }
}
