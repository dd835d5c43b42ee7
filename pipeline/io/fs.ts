import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errors, SleepCycleError } from '../model/errors.js';
import { readLines, type RawLine, type ReadLinesOptions } from './line-reader.js';
import type * as GzipReader from './gzip-reader.js';

/** node:zlib is loaded only when a rotated .gz log is read: the hook, on every tool call, never does. */
const gzipReader = (): Promise<typeof GzipReader> => import('./gzip-reader.js');
const isGzip = (path: string): boolean => path.endsWith('.gz');

export interface FileIdentity {
  dev: number;
  ino: number;
  /** Bytes on disk (compressed, for a .gz file). */
  size: number;
  mtimeMs: number;
}

/**
 * The largest text file read whole (MEMORY.md, CLAUDE.md, skill files, state, audit, settings): a file
 * in an untrusted repository can be a huge sparse file, and reading it whole would take the night's
 * memory. Years of audit lines stay far below it; logs are read in ranges, never whole.
 */
export const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** Every filesystem effect the pipeline needs; stages receive it through the context. */
export interface FsPort {
  readText(path: string): Promise<string | undefined>;
  /** Up to `length` bytes from `start` (decompressed for a .gz file); undefined when the file does not exist. */
  readRange(path: string, start: number, length: number): Promise<Buffer | undefined>;
  identify(path: string): Promise<FileIdentity | undefined>;
  /** Names of the entries of a directory; undefined when it does not exist. */
  list(dir: string): Promise<string[] | undefined>;
  /**
   * Streams the complete lines from byte `start` (see line-reader.ts); returns where the next read starts.
   * Each line is valid only during its `onLine` call: the reader reuses the object and its buffers.
   */
  readLines(path: string, start: number, options: ReadLinesOptions, onLine: (line: RawLine) => void): Promise<number>;
  /**
   * Writes through a temp file, fsync and rename: a reader sees the old or the new content, never half.
   * A file it replaces keeps its permission bits; a new file gets the default (0666 less the umask).
   * `durable: false` skips the fsync, for scratch files whose loss after a power cut costs nothing (the
   * hook's tables, written on every tool call: the fsync was a few ms of each).
   */
  writeAtomic(path: string, content: string, options?: { durable?: boolean }): Promise<void>;
  /** Creates the file only if it does not exist; false when it does. */
  createExclusive(path: string, content: string): Promise<boolean>;
  remove(path: string): Promise<void>;
  /** Removes `<path>.<8 hex>.tmp` files a killed atomic write left behind. */
  removeStaleTemps(path: string): Promise<void>;
  /** Removes a directory only if it is empty (a lock's folder on a dry run); otherwise does nothing. */
  removeEmptyDir(path: string): Promise<void>;
  /** Atomic rename; false when the source does not exist (someone else moved it first). */
  rename(from: string, to: string): Promise<boolean>;
}

/**
 * Appends text with ONE write on an O_APPEND descriptor, so concurrent writers (agent sessions, hooks,
 * importers) never interleave inside a line. Synchronous inside (like the port's small writes below): the
 * hook appends on every tool call, and fs/promises with its thread-pool round trips cost it more than the
 * write. Throws E_IO.
 */
export async function appendOnce(path: string, text: string): Promise<void> {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw errors.io('append to', path, error);
  }
}

/**
 * The port on Node's filesystem. Small reads and writes are synchronous inside the async interface: a
 * CLI run makes some thirty of them, and each asynchronous call waits for a thread-pool round trip
 * (about 15 ms of a pre-session dry run, with nothing else to do meanwhile). Reading a night's lines
 * stays asynchronous: there the next read overlaps the parsing of the last.
 */
export const nodeFs: FsPort = {
  async readText(path) {
    let fd: number;
    try {
      // Non-blocking, so a FIFO put in the file's place after a check cannot hold the open; what is read is
      // what fstat judged (a regular file of bounded size), not whatever the path names a moment later.
      fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw errors.io('read', path, error);
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) throw errors.io('read', path, new Error('not a regular file (a FIFO, device, socket or folder): nothing was read'));
      if (info.size > MAX_TEXT_BYTES) throw errors.io('read', path, new Error(`${Math.ceil(info.size / 1048576)} MiB, over the ${MAX_TEXT_BYTES / 1048576} MiB sleep-cycle reads from one of its text files: nothing was read`));
      return readFileSync(fd, 'utf8');
    } catch (error) {
      if (error instanceof SleepCycleError) throw error;
      throw errors.io('read', path, error);
    } finally {
      closeSync(fd);
    }
  },
  async readRange(path, start, length) {
    try {
      if (isGzip(path)) return await (await gzipReader()).readGzipRange(path, start, length);
      const fd = openSync(path, 'r');
      try {
        const buffer = Buffer.alloc(length);
        const bytesRead = readSync(fd, buffer, 0, length, start);
        return buffer.subarray(0, bytesRead);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (error instanceof SleepCycleError) throw error;
      throw errors.io('read', path, error);
    }
  },
  async identify(path) {
    try {
      const info = statSync(path);
      return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw errors.io('stat', path, error);
    }
  },
  async list(dir) {
    try {
      return readdirSync(dir).sort();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw errors.io('list', dir, error);
    }
  },
  async readLines(path, start, options, onLine) {
    try {
      return isGzip(path) ? await (await gzipReader()).readGzipLines(path, start, options, onLine) : await readLines(path, start, options, onLine);
    } catch (error) {
      if (error instanceof SleepCycleError) throw error;
      throw errors.io('read', path, error);
    }
  },
  async writeAtomic(path, content, options) {
    // Eight random hex digits (the shape removeStaleTemps clears after a crash), from Math.random: the hook
    // writes here on every call and would load node:crypto for randomBytes alone. Created exclusively, so
    // a file or link already there under that name is never written through, guessed or not.
    const temp = `${path}.${Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0')}.tmp`;
    try {
      mkdirSync(dirname(path), { recursive: true });
      const mode = modeOf(path);
      // Created with the old mode, so a private file's content is never readable by others, not even in
      // the temp file; fchmod because open's mode is narrowed by the umask.
      const fd = openSync(temp, 'wx', mode ?? 0o666);
      try {
        if (mode !== undefined) fchmodSync(fd, mode);
        writeFileSync(fd, content, 'utf8');
        if (options?.durable !== false) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw errors.io('write', path, error);
    }
  },
  async createExclusive(path, content) {
    try {
      mkdirSync(dirname(path), { recursive: true });
      const fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
      try {
        writeFileSync(fd, content, 'utf8');
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw errors.io('create', path, error);
    }
  },
  async removeStaleTemps(path) {
    const prefix = `${basename(path)}.`;
    let names: string[];
    try {
      names = readdirSync(dirname(path));
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(prefix) && /^\.[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length - 1))) rmSync(join(dirname(path), name), { force: true });
    }
  },
  async removeEmptyDir(path) {
    try {
      rmdirSync(path);
    } catch {
      // Not empty, or gone: either way there is nothing to clean up.
    }
  },
  async rename(from, to) {
    try {
      renameSync(from, to);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw errors.io('rename', from, error);
    }
  },
  async remove(path) {
    try {
      unlinkSync(path);
    } catch (error) {
      if (!isNotFound(error)) throw errors.io('remove', path, error);
    }
  },
};

/** The permission bits of an existing file (a 600 MEMORY.md must stay 600), or undefined when there is none. */
function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
