import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Script } from 'node:vm';

/**
 * Runs CommonJS bundles (the hook's, see scripts/bundle-entries.ts) with V8's code cache, kept next to
 * each bundle as `<bundle>.cache`. The hook starts a process on every tool call of an agent, and most of
 * what its own code costs there is V8 parsing and compiling the same functions again; with the cache it
 * deserialises them instead (node 20 has no module compile cache of its own).
 *
 * The cache can never change what runs: V8 checks only the source's length (and its own version and
 * flags), so the file starts with the SHA-256 of the exact source it was made from and of its own bytes.
 * A cache that is missing, stale (the bundle was rebuilt), torn, corrupt or refused by V8 is not used:
 * the bundle compiles as without one, and a fresh cache is written after the run (best effort: a
 * read-only install simply never has one).
 */
export interface BundleLoader {
  /** Evaluates a bundle once (later calls return the same exports); its `require` loads sibling `.cjs` bundles through this loader. */
  load<T>(file: string): T;
  /** Writes the cache of every bundle that ran without a usable one; never throws. */
  saveCaches(): void;
}

/** What a cache file starts with: a tag, the source's SHA-256, the data's SHA-256 (hex), a newline. */
const TAG = 'sleep-cycle-code-cache-1';
const HEADER_BYTES = TAG.length + 1 + 64 + 1 + 64 + 1;

/** Node's CommonJS wrapper, so a bundle built with `format: 'cjs'` runs as it would under require. */
const wrap = (body: string): string => `(function (exports, require, module, __filename, __dirname) {${body}\n})`;

export function createBundleLoader(nativeRequire: (id: string) => unknown): BundleLoader {
  const loaded = new Map<string, { exports: unknown; save: (() => void) | null }>();
  const loader: BundleLoader = {
    load<T>(file: string): T {
      const known = loaded.get(file);
      if (known !== undefined) return known.exports as T;
      const source = wrap(readFileSync(file, 'utf8'));
      const sourceSha = sha256(source);
      const cached = readCache(`${file}.cache`, sourceSha);
      const script = new Script(source, { filename: file, ...(cached !== undefined ? { cachedData: cached } : {}) });
      const module = { exports: {} as unknown };
      const entry = { exports: module.exports, save: cached === undefined || script.cachedDataRejected === true ? () => writeCache(`${file}.cache`, sourceSha, script) : null };
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

/** The cached data for exactly this source, or undefined (missing, stale, torn or corrupt). */
export function readCache(path: string, sourceSha: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES) return undefined;
  const [tag, source, data] = bytes.subarray(0, HEADER_BYTES - 1).toString('latin1').split(' ');
  const body = bytes.subarray(HEADER_BYTES);
  return tag === TAG && source === sourceSha && data === sha256(body) ? body : undefined;
}

/** After the run, so the functions it compiled lazily are in the cache too. Atomic: parallel hooks each write whole files. */
function writeCache(path: string, sourceSha: string, script: Script): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    writeFileSync(temp, Buffer.concat([Buffer.from(`${TAG} ${sourceSha} ${sha256(data)}\n`, 'latin1'), data]));
    renameSync(temp, path);
  } catch {
    // A read-only install: every run compiles, as without a cache.
    rmSync(temp, { force: true });
  }
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
