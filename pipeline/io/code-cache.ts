import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs CommonJS bundles (the hook's and the command line's, see scripts/bundle-entries.ts) with V8's
 * code cache, kept next to each bundle as `<bundle>.cache`. The hook starts a process on every tool call
 * of an agent, and most of what its own code costs there is V8 parsing and compiling the same functions
 * again; with the cache it deserialises them instead (node 20 has no module compile cache of its own).
 *
 * The cache can never change what runs: V8 checks only the source's length (and its own version and
 * flags), and in release builds no checksum of the data at all, so the file carries the exact source it
 * was made from and its data twice. A cache is used only when that source equals the bundle byte for
 * byte and the two copies of the data are equal: a stale (rebuilt), torn or corrupt cache is not used,
 * the bundle compiles as without one, and a fresh cache is written after the run (best effort: a
 * read-only install simply never has one). Comparing bytes, not hashes: loading `node:crypto` alone
 * costs the hook ~14 M instructions, hashing the bundle and its cache ~12 M more; a comparison is a memcmp.
 */
export interface BundleLoader {
  /** Evaluates a bundle once (later calls return the same exports); its `require` loads sibling `.cjs` bundles through this loader. */
  load<T>(file: string): T;
  /** Writes the cache of every bundle that ran without a usable one; never throws. */
  saveCaches(): void;
}

/** What a cache file starts with: a tag, the source's length and the data's length in bytes (decimal), a newline. */
const TAG = 'sleep-cycle-code-cache-2';

/** Node's CommonJS wrapper, so a bundle built with `format: 'cjs'` runs as it would under require. */
const wrap = (body: string): string => `(function (exports, require, module, __filename, __dirname) {${body}\n})`;

export function createBundleLoader(nativeRequire: (id: string) => unknown): BundleLoader {
  const loaded = new Map<string, { exports: unknown; save: (() => void) | null }>();
  const loader: BundleLoader = {
    load<T>(file: string): T {
      const known = loaded.get(file);
      if (known !== undefined) return known.exports as T;
      const bytes = readFileSync(file);
      const cached = readCache(`${file}.cache`, bytes);
      const script = new Script(wrap(bytes.toString('utf8')), { filename: file, ...(cached !== undefined ? { cachedData: cached } : {}) });
      const module = { exports: {} as unknown };
      const entry = { exports: module.exports, save: cached === undefined || script.cachedDataRejected === true ? () => writeCache(`${file}.cache`, bytes, script) : null };
      loaded.set(file, entry);
      const sibling = (id: string): unknown => (id.startsWith('./') && id.endsWith('.cjs') ? loader.load(resolve(dirname(file), id)) : nativeRequire(id));
      (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, sibling, module, file, dirname(file));
      entry.exports = module.exports;
      return module.exports as T;
    },
    saveCaches() {
      for (const entry of loaded.values()) entry.save?.();
    },
  };
  return loader;
}

/** The cached data for exactly this source (the bundle's bytes), or undefined (missing, stale, torn or corrupt). */
export function readCache(path: string, source: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  const newline = bytes.indexOf(10);
  if (newline < 0 || newline > 64) return undefined;
  const [tag, sourceLength, dataLength] = bytes.subarray(0, newline).toString('latin1').split(' ');
  const data = Number(dataLength);
  const start = newline + 1;
  if (tag !== TAG || Number(sourceLength) !== source.length || !(data > 0) || bytes.length !== start + source.length + 2 * data) return undefined;
  const first = bytes.subarray(start + source.length, start + source.length + data);
  const same = bytes.subarray(start, start + source.length).equals(source) && first.equals(bytes.subarray(start + source.length + data));
  return same ? first : undefined;
}

/** After the run, so the functions it compiled lazily are in the cache too. Atomic: parallel hooks each write whole files. */
function writeCache(path: string, source: Buffer, script: Script): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    writeFileSync(temp, Buffer.concat([Buffer.from(`${TAG} ${source.length} ${data.length}\n`, 'latin1'), source, data, data]));
    renameSync(temp, path);
  } catch {
    // A read-only install: every run compiles, as without a cache.
    rmSync(temp, { force: true });
  }
}
