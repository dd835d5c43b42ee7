import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { errors } from '../model/errors.js';
import type { FsPort } from './fs.js';

/**
 * The filesystem port confined to one repository. The repository is untrusted: MEMORY.md, skills/,
 * .sleep-cycle/, the log or a settings path can be a link to anywhere, or a FIFO or device that never
 * ends. Every path is resolved through its links first; the operation then runs on the resolved path, so
 * an in-repository link is written through (`MEMORY.md -> docs/AGENT_NOTES.md`: the link stays, its
 * target is updated). A path that resolves outside the repository, or to anything but a regular file
 * (a directory, for `list`), is an E_IO error naming the path, where it points and the fix; nothing is
 * read or written there. `readOnly` folders (the package's own bundled policy) may be read, not written.
 *
 * A regular file in the repository with more than one hard link is refused the same way, for reading
 * and writing. Its other name can be anywhere on the same filesystem (no link to follow says where), so
 * it is treated as a file shared with something outside: writing through would change the other name,
 * and writing a fresh file in its place would still copy the other file's content (whatever it holds)
 * into the repository and its commit. Reading is refused too, so its content never reaches a report or
 * a rule. (The package's own read-only folders are exempt: package managers such as pnpm hard-link them.)
 */
export function confineFs(inner: FsPort, root: string, readOnly: readonly string[] = []): FsPort {
  const base = realOrSelf(resolve(root));
  const readable = readOnly.map((dir) => realOrSelf(resolve(dir)));
  const check = (path: string, kind: 'file' | 'dir', access: 'read' | 'write'): string => {
    const absolute = resolve(root, path);
    const real = resolveLinks(absolute);
    const allowed = [base, ...(access === 'read' ? readable : [])];
    if (!allowed.some((dir) => within(real, dir))) throw outside(root, absolute, real);
    const info = statOrUndefined(real);
    if (info && !(kind === 'dir' ? info.isDirectory() : info.isFile())) throw notRegular(root, absolute, real, info, kind);
    if (info && info.isFile() && info.nlink > 1 && within(real, base)) throw hardLinked(root, absolute, info.nlink);
    return real;
  };
  // Async, so a refused path is a rejected promise like any other failure of the port, never a throw.
  return {
    readText: async (path) => inner.readText(check(path, 'file', 'read')),
    readRange: async (path, start, length) => inner.readRange(check(path, 'file', 'read'), start, length),
    identify: async (path) => inner.identify(check(path, 'file', 'read')),
    list: async (dir) => inner.list(check(dir, 'dir', 'read')),
    readLines: async (path, start, options, onLine) => inner.readLines(check(path, 'file', 'read'), start, options, onLine),
    // The options travel too: a scratch write (`durable: false`) must not pay the fsync it asked to skip.
    writeAtomic: async (path, content, options) => inner.writeAtomic(check(path, 'file', 'write'), content, options),
    createExclusive: async (path, content) => inner.createExclusive(check(path, 'file', 'write'), content),
    remove: async (path) => inner.remove(check(path, 'file', 'write')),
    removeStaleTemps: async (path) => inner.removeStaleTemps(check(path, 'file', 'write')),
    removeEmptyDir: async (path) => inner.removeEmptyDir(check(path, 'dir', 'write')),
    rename: async (from, to) => inner.rename(check(from, 'file', 'write'), check(to, 'file', 'write')),
  };
}

/**
 * The path with every link resolved, for paths that do not exist yet too: a dangling link is followed
 * to where it would write, a missing file is its resolved folder plus its name.
 */
export function resolveLinks(path: string, depth = 0): string {
  if (depth > 40) return path; // a link loop: the open that follows fails with ELOOP
  try {
    return realpathSync(path);
  } catch {
    // Missing (or a link to something missing): resolve what exists and keep the rest of the name.
  }
  let link: string | undefined;
  try {
    if (lstatSync(path).isSymbolicLink()) link = readlinkSync(path);
  } catch {
    // Does not exist at all.
  }
  if (link !== undefined) return resolveLinks(resolve(dirname(path), link), depth + 1);
  const parent = dirname(path);
  return parent === path ? path : resolve(resolveLinks(parent, depth + 1), basename(path));
}

/** Whether `path` is `dir` or below it (both resolved already). */
export function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

function outside(root: string, path: string, real: string) {
  const link = real === path ? 'is' : `resolves (through a link) to ${real}, which is`;
  return errors.unsafePath(
    shown(root, path),
    `${link} outside the repository ${root}; sleep-cycle reads and writes only inside it, so nothing was read or written there`,
    real === path ? 'Point the setting at a path inside the repository' : 'Replace the link with a regular file inside the repository (or a link to one), or point the setting at a path inside it',
  );
}

function notRegular(root: string, path: string, real: string, info: Stats, kind: 'file' | 'dir') {
  const what = info.isFIFO() ? 'a FIFO (named pipe)' : info.isCharacterDevice() ? 'a character device' : info.isBlockDevice() ? 'a block device' : info.isSocket() ? 'a socket' : info.isDirectory() ? 'a directory' : 'not a regular file';
  const target = real === path ? '' : ` (it resolves to ${real})`;
  return errors.unsafePath(shown(root, path), `is ${what}${target}, where a ${kind === 'dir' ? 'folder' : 'regular file'} was expected; nothing was read or written`, `Replace it with a regular ${kind === 'dir' ? 'folder' : 'file'}`);
}

function hardLinked(root: string, path: string, links: number) {
  const name = shown(root, path);
  return errors.unsafePath(
    name,
    `is a hard link (the file has ${links} names): its other names may be outside the repository, so nothing was read or written through it`,
    `Give it a file of its own (\`cp ${name} ${name}.copy && mv ${name}.copy ${name}\`), or make it a symbolic link to a file inside the repository`,
  );
}
