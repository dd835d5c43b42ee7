import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeFs } from '../../pipeline/io/fs.js';
import { tempDir } from '../helpers/temp.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('nodeFs.writeAtomic keeps the mode of the file it replaces', () => {
  for (const mode of [0o600, 0o640, 0o755, 0o444]) {
    it(`a ${mode.toString(8)} file stays ${mode.toString(8)}, with the new content and no temp file left`, async () => {
      const dir = tempDir('sleep-cycle-fs-');
      const path = join(dir, 'MEMORY.md');
      writeFileSync(path, 'old\n');
      chmodSync(path, mode);
      await nodeFs.writeAtomic(path, 'new\n');
      expect(modeOf(path)).toBe(mode);
      expect(readFileSync(path, 'utf8')).toBe('new\n');
      expect(readdirSync(dir)).toEqual(['MEMORY.md']);
    });
  }

  it('a new file gets the default mode (0666 less the umask)', async () => {
    const dir = tempDir('sleep-cycle-fs-');
    const umask = process.umask();
    await nodeFs.writeAtomic(join(dir, 'sub', 'state.json'), '{}\n');
    expect(modeOf(join(dir, 'sub', 'state.json'))).toBe(0o666 & ~umask);
  });
});

describe('nodeFs.writeAtomic never writes through what is already at its temp name', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a link planted where the temp file goes (its name guessed) is not followed: the target outside keeps its content, the write fails', async () => {
    const dir = tempDir('sleep-cycle-fs-');
    const outside = join(tempDir('sleep-cycle-outside-'), 'victim.txt');
    writeFileSync(outside, 'untouched\n');
    // The name comes from Math.random (eight hex digits): pinned here, as an attacker who guessed it would have it.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    symlinkSync(outside, join(dir, 'state.json.80000000.tmp'));
    await expect(nodeFs.writeAtomic(join(dir, 'state.json'), 'secret state\n')).rejects.toThrow();
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n');
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
  });
});
