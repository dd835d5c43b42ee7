import { lstatSync, readdirSync, readFileSync, statSync, type Dirent, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errors } from '../model/errors.js';
import { resolveLinks, statOrUndefined, within } from './confine.js';

/**
 * What git itself opens in an untrusted repository, checked before any git command runs. The confined
 * filesystem (confine.ts) guards the tool's own paths; git reads and writes others: its directory (which
 * a `.git` file, a `.git` link or `commondir` may put anywhere), objects, refs and reflogs (links in
 * them make git write outside), the config files the repository's config includes, attribute, ignore
 * and mailmap files. A FIFO there makes git wait forever, a device never ends, a link leaving the
 * repository receives the commit's objects or a reflog line. So, before git runs:
 *
 * - the git directory and its common directory resolve inside the repository, unless the repository is
 *   a linked worktree or a submodule whose git directory names it back (`gitdir`, `core.worktree`):
 *   then git's own directories are where the user put them;
 * - git's own files and folders there (HEAD, index, config, packed-refs, objects, refs, logs, info,
 *   alternates) are regular files and folders that stay inside those directories, and the files git
 *   writes (all but objects/) have one name: git appends to a reflog and rewrites FETCH_HEAD in place,
 *   so a hard link there (a file shared with one outside) would receive the write. objects/ is left out:
 *   git writes an object to a new file it renames into place, never through an existing one, and
 *   `git clone --local` hard-links the source's objects on purpose;
 * - every file an include of the repository's config names, and `.gitattributes`, `.gitignore` and
 *   `.mailmap` in the folders of the paths git is given, is a regular file or absent.
 *
 * A failed check is an E_IO error naming the path, what it is and the fix; git is not started. What is
 * changed between this check and git's use of it is not covered (README: not guaranteed).
 */

export interface GitDirs {
  gitDir: string;
  commonDir: string;
}

/** Text files git reads whole (the `.git` file, commondir, HEAD, configs): larger is no repository's. */
const MAX_TEXT_BYTES = 16 << 20;
/** Entries looked at under refs/ and logs/ (a repository with more leaves the rest to git's timeout). */
const MAX_WALK = 5000;
/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;

/** Files of the git directory of a worktree (per-worktree) and of the common directory (shared). */
const WORKTREE_FILES = ['HEAD', 'index', 'config.worktree', 'commondir', 'gitdir', 'ORIG_HEAD', 'FETCH_HEAD', 'logs/HEAD'];
const COMMON_FILES = ['config', 'packed-refs', 'shallow', 'info/exclude', 'info/attributes', 'info/grafts', 'info/sparse-checkout', 'objects/info/alternates', 'objects/info/commit-graph'];
const COMMON_DIRS = ['objects', 'objects/info', 'objects/pack', 'refs', 'refs/heads', 'refs/tags', 'logs', 'logs/refs', 'info'];

/**
 * Checks the repository at `root` before git runs (see above); `paths` are the work-tree paths the
 * command will name (the attribute and ignore files of their folders are read). Returns git's
 * directories, or undefined when `root` holds no `.git`.
 */
export function checkGitFiles(root: string, paths: readonly string[] = []): GitDirs | undefined {
  folders.clear();
  const top = realOrSelf(resolve(root));
  const dirs = gitDirsOf(root, top);
  if (dirs === undefined) return undefined;
  const allowed = [...new Set([top, dirs.gitDir, dirs.commonDir])];
  checkGitDirectory(root, dirs, allowed);
  checkAlternates(root, join(dirs.commonDir, 'objects'), allowed, 0);
  checkWorkTreeFiles(root, top, paths);
  return dirs;
}

/**
 * The git directory of a local remote a night pushes to or fetches from (a path or `file://` URL):
 * receive-pack appends to its reflogs and reads its config, packed-refs and refs, so its files pass the
 * same checks, kept inside that directory (wherever the user put it). Its alternates may name any
 * store (a fork's): git only reads objects there. Returns the directory checked, or undefined when
 * `location` names no git directory (git itself will say so).
 */
export function checkRemoteGitDir(root: string, location: string): string | undefined {
  folders.clear();
  const path = expandHome(location, resolve(root));
  // Where git's local transport looks (setup.c enter_repo): <path>/.git, <path>.git, <path>.
  const candidates = [join(path, '.git'), `${path}.git`, path];
  for (const candidate of candidates) {
    const info = statOrUndefined(candidate);
    if (!info) continue;
    const gitDir = info.isFile() ? gitFileTarget(root, candidate) : info.isDirectory() && statOrUndefined(join(candidate, 'HEAD')) ? candidate : undefined;
    if (gitDir === undefined) continue;
    const real = resolveLinks(gitDir);
    checkGitDirectory(root, { gitDir: real, commonDir: commonDirOf(root, real, [real, dirname(dirname(real))]) }, [real]);
    return real;
  }
  return undefined;
}

/** git's own files and folders in `dirs` (see the top of this file), with links kept inside `allowed`. */
function checkGitDirectory(root: string, dirs: GitDirs, allowed: readonly string[]): void {
  for (const name of WORKTREE_FILES) checkEntry(root, join(dirs.gitDir, name), 'file', allowed, WRITTEN);
  for (const name of COMMON_FILES) checkEntry(root, join(dirs.commonDir, name), 'file', allowed, name.startsWith('objects/') ? SHARED_OK : WRITTEN);
  for (const name of COMMON_DIRS) checkEntry(root, join(dirs.commonDir, name), 'dir', allowed);
  checkObjects(root, dirs.commonDir, allowed);
  const budget = { left: MAX_WALK };
  for (const name of ['refs', 'logs']) walk(root, join(dirs.commonDir, name), allowed, budget);
  if (dirs.gitDir !== dirs.commonDir) walk(root, join(dirs.gitDir, 'logs'), allowed, budget);
  checkHeadRef(root, dirs, allowed);
  for (const config of [join(dirs.commonDir, 'config'), join(dirs.gitDir, 'config.worktree')]) checkIncludes(root, config, 0);
}

/** The git directory a `.git` file names, or undefined (no `gitdir:` line, or no folder there). */
function gitFileTarget(root: string, file: string): string | undefined {
  const named = /^gitdir: *(.+?)\s*$/m.exec(readText(root, file, 'the .git file'))?.[1];
  const gitDir = named === undefined ? undefined : resolve(dirname(file), named);
  return gitDir !== undefined && statOrUndefined(gitDir)?.isDirectory() ? gitDir : undefined;
}

/**
 * A file a setting of git's config names (`core.excludesFile`, `core.attributesFile`, `mailmap.file`),
 * as git reads it: `~/` is the home folder, a relative path is relative to the work tree. It must be a
 * regular file or absent.
 */
export function checkConfiguredFile(root: string, key: string, value: string): void {
  if (value === '') return;
  const path = expandHome(value, resolve(root));
  const info = statOrUndefined(path);
  if (info && !info.isFile()) throw special(root, path, info, `the git setting ${key} names it, and git would read it`);
  if (info && info.size > MAX_TEXT_BYTES) throw tooLarge(root, path, info.size, `the git setting ${key} names it`);
}

// ---- the git directory ----------------------------------------------------------------------------

function gitDirsOf(root: string, top: string): GitDirs | undefined {
  const dotGit = join(resolve(root), '.git');
  let link: Stats;
  try {
    link = lstatSync(dotGit);
  } catch {
    return undefined;
  }
  const real = resolveLinks(dotGit);
  const info = statOrUndefined(real);
  if (!info) return undefined;
  if (link.isSymbolicLink() && !within(real, top)) throw outside(root, dotGit, real, 'the git directory');
  if (info.isDirectory()) return { gitDir: real, commonDir: commonDirOf(root, real, [top]) };
  if (!info.isFile()) throw special(root, real, info, 'it is the repository\'s .git');
  // A `.git` file: `gitdir: <path>` (a linked worktree, a submodule, or `git init --separate-git-dir`).
  const named = /^gitdir: *(.+?)\s*$/m.exec(readText(root, real, 'the .git file'))?.[1];
  if (named === undefined) throw errors.unsafePath(shown(root, dotGit), 'is a file without a "gitdir:" line, so git cannot tell where the repository is', 'Restore the .git folder or file');
  const gitDir = resolveLinks(resolve(dirname(real), named));
  if (!statOrUndefined(gitDir)?.isDirectory()) return undefined; // git itself says this is no repository
  if (within(gitDir, top)) return { gitDir, commonDir: commonDirOf(root, gitDir, [top]) };
  if (!namesBack(gitDir, dotGit, top)) throw outside(root, dotGit, gitDir, 'the git directory it names (git would write this repository\'s objects, index and refs there)');
  // A worktree or submodule the user made: its shared directory is wherever the main repository keeps it.
  const commonDir = commonDirOf(root, gitDir, [top, gitDir, dirname(dirname(gitDir))]);
  return { gitDir, commonDir };
}

/**
 * Whether an outside git directory belongs to this work tree: a linked worktree's `gitdir` file names
 * this `.git` file, a submodule's `core.worktree` names this folder. A `.git` file in a hostile
 * repository can name any git directory on the machine; only its owner's record says it is ours.
 */
function namesBack(gitDir: string, dotGit: string, top: string): boolean {
  const back = textOrUndefined(join(gitDir, 'gitdir'))?.trim();
  if (back && resolveLinks(resolve(gitDir, back)) === resolveLinks(dotGit)) return true;
  const config = textOrUndefined(join(gitDir, 'config'));
  const worktree = config === undefined ? undefined : configValues(config).find((entry) => entry.section === 'core' && entry.key === 'worktree')?.value;
  return worktree !== undefined && resolveLinks(resolve(gitDir, worktree)) === top;
}

/** `commondir` (linked worktrees): the shared objects, refs and config; it must stay in `allowed`. */
function commonDirOf(root: string, gitDir: string, allowed: readonly string[]): string {
  const file = join(gitDir, 'commondir');
  checkEntry(root, file, 'file', [gitDir, ...allowed]);
  const named = textOrUndefined(file)?.trim();
  if (!named) return gitDir;
  const commonDir = resolveLinks(resolve(gitDir, named));
  if (!allowed.some((dir) => within(commonDir, dir))) throw outside(root, file, commonDir, 'the common git directory it names (git would read and write objects, refs and config there)');
  return commonDir;
}

/** The branch HEAD names: its ref file and reflog must be regular files inside (git reads and appends to them). */
function checkHeadRef(root: string, dirs: GitDirs, allowed: readonly string[]): void {
  const head = textOrUndefined(join(dirs.gitDir, 'HEAD'))?.trim();
  const ref = head?.startsWith('ref: ') ? head.slice(5).trim() : undefined;
  if (!ref || !/^refs\/[\w./-]+$/.test(ref) || ref.split('/').includes('..')) return;
  checkEntry(root, join(dirs.commonDir, ref), 'file', allowed, WRITTEN);
  checkEntry(root, join(dirs.commonDir, 'logs', ref), 'file', allowed, WRITTEN);
}

/** objects/: each folder git writes loose objects into, and every pack and commit-graph file. */
function checkObjects(root: string, commonDir: string, allowed: readonly string[]): void {
  const objects = join(commonDir, 'objects');
  for (const entry of list(objects)) if (/^[0-9a-f]{2}$/.test(entry.name)) checkListed(root, objects, entry, 'dir', allowed);
  for (const dir of ['pack', 'info/commit-graphs']) for (const entry of list(join(objects, dir))) checkListed(root, join(objects, dir), entry, 'file', allowed);
}

/** `objects/info/alternates`: object stores git reads from; each must be inside (and their alternates too). */
function checkAlternates(root: string, objects: string, allowed: readonly string[], depth: number): void {
  const file = join(objects, 'info', 'alternates');
  const text = textOrUndefined(file);
  if (text === undefined || depth > 5) return;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const store = resolveLinks(resolve(objects, line.replace(/^"(.*)"$/, '$1')));
    if (!allowed.some((dir) => within(store, dir))) throw outside(root, file, store, 'an object store it names (git would read this repository\'s objects from there)');
    checkAlternates(root, store, allowed, depth + 1);
  }
}

/** Every entry under `dir` (refs, reflogs): a regular file or folder that stays inside. */
function walk(root: string, dir: string, allowed: readonly string[], budget: { left: number }): void {
  for (const entry of list(dir)) {
    if ((budget.left -= 1) < 0) return;
    checkListed(root, dir, entry, entry.isDirectory() ? 'dir' : 'file', allowed, WRITTEN);
    // A link checked above points inside; the folder it names is walked where it is.
    if (entry.isDirectory()) walk(root, join(dir, entry.name), allowed, budget);
  }
}

/**
 * An entry of a folder already checked, from its listing: only a link needs resolving (anything else
 * is where its folder is), so a walk over hundreds of object folders and refs costs one listing each.
 */
function checkListed(root: string, dir: string, entry: Dirent, kind: 'file' | 'dir', allowed: readonly string[], links: Links = SHARED_OK): void {
  if (entry.isSymbolicLink()) return checkEntry(root, join(dir, entry.name), kind, allowed, links);
  if (kind === 'file' ? !entry.isFile() : !entry.isDirectory()) throw special(root, join(dir, entry.name), lstatSync(join(dir, entry.name)), `git opens it as a ${kind === 'file' ? 'file' : 'folder'}`);
  // A listing has no link count: a file git writes costs one lstat more.
  if (kind === 'file' && links === WRITTEN) checkOneName(root, join(dir, entry.name), lstatSync(join(dir, entry.name)));
}

/** Whether a file may have other names: git writes through WRITTEN ones in place (reflogs, FETCH_HEAD). */
type Links = 'written' | 'shared-ok';
const WRITTEN: Links = 'written';
const SHARED_OK: Links = 'shared-ok';

function checkOneName(root: string, path: string, info: Stats): void {
  if (info.isFile() && info.nlink > 1) throw hardLinked(root, path, info.nlink);
}

/** One path git opens: absent, or a regular file (a folder) resolving inside `allowed` (a file git writes: with one name). */
function checkEntry(root: string, path: string, kind: 'file' | 'dir', allowed: readonly string[], links: Links = SHARED_OK): void {
  let own: Stats;
  try {
    own = lstatSync(path);
  } catch {
    return; // absent: git creates it, where it is
  }
  // Not a link: it is where its folder really is (one realpath per folder, not per file).
  const real = own.isSymbolicLink() ? resolveLinks(path) : join(realFolder(dirname(path)), basename(path));
  if (!allowed.some((dir) => within(real, dir))) throw outside(root, path, real, 'a part of the git directory');
  const info = own.isSymbolicLink() ? statOrUndefined(real) : own;
  if (!info) return;
  if (kind === 'file' ? !info.isFile() : !info.isDirectory()) throw special(root, path, info, `git opens it as a ${kind === 'file' ? 'file' : 'folder'}`);
  if (links === WRITTEN) checkOneName(root, path, info);
}

/** Folders' real paths during one check (cleared at its start: a later check sees a change). */
const folders = new Map<string, string>();

function realFolder(dir: string): string {
  let real = folders.get(dir);
  if (real === undefined) {
    real = resolveLinks(dir);
    folders.set(dir, real);
  }
  return real;
}

// ---- config includes ------------------------------------------------------------------------------

/** include.path and includeIf.<condition>.path of a repository config, followed as git would (any condition). */
function checkIncludes(root: string, config: string, depth: number): void {
  const text = textOrUndefined(config);
  if (text === undefined || depth > MAX_INCLUDE_DEPTH) return;
  for (const entry of configValues(text)) {
    if ((entry.section !== 'include' && entry.section !== 'includeif') || entry.key !== 'path' || entry.value === '') continue;
    const target = expandHome(entry.value, dirname(config));
    const info = statOrUndefined(target);
    if (!info) continue; // git skips a missing include
    if (!info.isFile()) throw special(root, target, info, `${shown(root, config)} includes it, and git reads it before any setting of ours applies`);
    if (info.size > MAX_TEXT_BYTES) throw tooLarge(root, target, info.size, `${shown(root, config)} includes it`);
    checkIncludes(root, target, depth + 1);
  }
}

interface ConfigValue {
  /** Lower case; `includeif` for `[includeIf "…"]`. */
  section: string;
  key: string;
  value: string;
}

/**
 * The section, key and value of each variable of a git config file (git-config(1) "Syntax"): `[section]`,
 * `[section "sub"]` or `[section.sub]` headers, `key = value` with quotes, escapes and continuation
 * lines, `#` and `;` comments. Enough to find includes and `core.worktree`; git stays the reader of record.
 */
export function configValues(text: string): ConfigValue[] {
  const out: ConfigValue[] = [];
  let section = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i]!.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(line);
    if (header) {
      section = header[1]!.split('.')[0]!.toLowerCase();
      line = header[2]!.trim();
    }
    const variable = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!variable) continue;
    let raw = variable[2] ?? '';
    while (/(^|[^\\])(\\\\)*\\\s*$/.test(raw) && i + 1 < lines.length) raw = raw.replace(/\\\s*$/, '') + lines[(i += 1)]!;
    out.push({ section, key: variable[1]!.toLowerCase(), value: unquote(raw) });
  }
  return out;
}

function unquote(raw: string): string {
  let value = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) value += { n: '\n', t: '\t', b: '\b' }[raw[(i += 1)]!] ?? raw[i];
    else if (!quoted && (c === '#' || c === ';')) break;
    else value += c;
  }
  return value.trim();
}

// ---- the work tree --------------------------------------------------------------------------------

/**
 * `.gitattributes`, `.gitignore` and `.mailmap` at the top, and the attribute and ignore files of every
 * folder on the given paths. git opens these without following links, so a link is harmless; a FIFO,
 * socket or device is not.
 */
function checkWorkTreeFiles(root: string, top: string, paths: readonly string[]): void {
  const folders = new Set<string>([top]);
  for (const path of paths) {
    for (let dir = dirname(resolve(top, path)); within(dir, top); dir = dirname(dir)) {
      folders.add(dir);
      if (dir === top) break;
    }
  }
  for (const folder of folders) {
    for (const name of folder === top ? ['.gitattributes', '.gitignore', '.mailmap'] : ['.gitattributes', '.gitignore']) {
      const path = join(folder, name);
      let info: Stats;
      try {
        info = lstatSync(path);
      } catch {
        continue;
      }
      if (!info.isFile() && !info.isDirectory() && !info.isSymbolicLink()) throw special(root, path, info, 'git reads it for the paths it commits');
    }
  }
}

// ---- helpers --------------------------------------------------------------------------------------

function readText(root: string, path: string, what: string): string {
  const info = statSync(path);
  if (info.size > MAX_TEXT_BYTES) throw tooLarge(root, path, info.size, what);
  return readFileSync(path, 'utf8');
}

/** A small regular file's text, or undefined (absent, not a regular file, or too large: the checks say why). */
function textOrUndefined(path: string): string | undefined {
  const info = statOrUndefined(path);
  if (!info?.isFile() || info.size > MAX_TEXT_BYTES) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function expandHome(path: string, base: string): string {
  if (path === '~' || path.startsWith('~/')) return join(process.env.HOME ?? homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}

function realOrSelf(path: string): string {
  try {
    return resolveLinks(path);
  } catch {
    return path;
  }
}

function shown(root: string, path: string): string {
  const rel = relative(resolve(root), path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

function kindOf(info: Stats): string {
  return info.isFIFO() ? 'a FIFO (named pipe)' : info.isCharacterDevice() ? 'a character device' : info.isBlockDevice() ? 'a block device' : info.isSocket() ? 'a socket' : info.isDirectory() ? 'a folder' : 'not a regular file';
}

function special(root: string, path: string, info: Stats, why: string) {
  return errors.unsafePath(shown(root, path), `is ${kindOf(info)}, and ${why}: git would wait on it or read it forever, so sleep-cycle runs no git command here`, 'Replace it with a regular file (or remove it)');
}

function tooLarge(root: string, path: string, size: number, why: string) {
  return errors.unsafePath(shown(root, path), `is ${size} bytes (${why}), more than any git file of its kind holds, so sleep-cycle runs no git command here`, 'Replace it with the file it should be');
}

function hardLinked(root: string, path: string, names: number) {
  return errors.unsafePath(
    shown(root, path),
    `is a hard link (one file with ${names} names): git writes it in place (a reflog line, FETCH_HEAD), so the write would reach the file's other names, which may be outside the repository; sleep-cycle runs no git command here`,
    'Give it a copy of its own (cp -p <file> <file>.copy && mv <file>.copy <file>), or remove it',
  );
}

function outside(root: string, path: string, real: string, what: string) {
  return errors.unsafePath(
    shown(root, path),
    `resolves to ${real}, ${what}, which is outside the repository ${resolve(root)}; git would read or write there, so sleep-cycle runs no git command here`,
    'Keep the git directory and its parts inside the repository (a linked worktree or submodule is recognised by the record its git directory keeps of it)',
  );
}
