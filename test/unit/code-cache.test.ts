import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundleLoader, readCache } from '../../pipeline/io/code-cache.js';
import { tempDir } from '../helpers/temp.js';

const nativeRequire = createRequire(import.meta.url);
const load = <T>(file: string) => {
  const loader = createBundleLoader(nativeRequire);
  const exports = loader.load<T>(file);
  loader.saveCaches();
  return exports;
};
const bundle = (dir: string, name: string, body: string) => {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
};

describe('createBundleLoader', () => {
  it('runs a CommonJS bundle, with node modules and sibling bundles through its require, and writes its cache after the run', () => {
    const dir = tempDir('code-cache-');
    bundle(dir, 'part.cjs', 'exports.twice = (x) => 2 * x;');
    const main = bundle(dir, 'main.cjs', "const { join } = require('node:path'); const part = require('./part.cjs'); exports.answer = () => part.twice(21) + join('a', 'b').length;");
    expect(load<{ answer(): number }>(main).answer()).toBe(45);
    expect(existsSync(`${main}.cache`) && existsSync(join(dir, 'part.cjs.cache'))).toBe(true);
    // The second run reads the cache it wrote, and gets the same result.
    expect(load<{ answer(): number }>(main).answer()).toBe(45);
  });

  it('never runs a stale cache: a rebuilt bundle of the same length runs its new code (V8 itself checks only the length)', () => {
    const dir = tempDir('code-cache-');
    const file = bundle(dir, 'b.cjs', 'exports.value = () => 1;');
    expect(load<{ value(): number }>(file).value()).toBe(1);
    writeFileSync(file, 'exports.value = () => 2;');
    expect(load<{ value(): number }>(file).value()).toBe(2);
    // And the cache was replaced by one made from the new source.
    expect(readCache(`${file}.cache`, Buffer.from('exports.value = () => 1;'))).toBeUndefined();
    expect(readCache(`${file}.cache`, readFileSync(file))).toBeDefined();
    expect(load<{ value(): number }>(file).value()).toBe(2);
  });

  it('ignores a corrupt or torn cache, runs the bundle as without one and writes a good one', () => {
    const dir = tempDir('code-cache-');
    const file = bundle(dir, 'b.cjs', 'exports.value = () => "ok";');
    load(file);
    const good = readFileSync(`${file}.cache`);
    // A flipped byte in the copy of the source, in the data, in its second copy; a torn file; garbage.
    const flipped = [good.indexOf('"ok"'), good.length / 2 - 8, good.length - 10].map((at) => {
      const copy = Buffer.from(good);
      copy[Math.floor(at)] = copy[Math.floor(at)]! ^ 0xff;
      return copy;
    });
    for (const broken of [...flipped, good.subarray(0, good.length - 7), Buffer.from('garbage'), Buffer.alloc(0)]) {
      writeFileSync(`${file}.cache`, broken);
      expect(load<{ value(): string }>(file).value()).toBe('ok');
      expect(readFileSync(`${file}.cache`).equals(broken)).toBe(false);
    }
  });

  it('runs from a folder it cannot write to, without a cache and without an error', () => {
    const dir = tempDir('code-cache-');
    const file = bundle(dir, 'b.cjs', 'exports.value = () => 3;');
    chmodSync(dir, 0o555);
    try {
      expect(load<{ value(): number }>(file).value()).toBe(3);
      // root writes anyway: only an unprivileged user sees the folder refuse the cache.
      if (process.getuid?.() !== 0) expect(existsSync(`${file}.cache`)).toBe(false);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});
