import { execFileSync } from 'node:child_process';
import { closeSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_BYTES, nodeFs } from '../../pipeline/io/fs.js';
import { tempDir } from '../helpers/temp.js';

/**
 * readText reads a text file whole, so what it opens is judged on the open file itself: a FIFO put where
 * MEMORY.md or CLAUDE.md should be, or a huge sparse file, is a clear E_IO at once, never a hang or a
 * night's memory (the confined port refuses them by path first; this holds without it, and after a swap).
 */
describe('nodeFs.readText on what an untrusted repository can hold', () => {
  it('reads a regular file, and a missing one is undefined', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'MEMORY.md'), '# Memory\n');
    expect(await nodeFs.readText(join(dir, 'MEMORY.md'))).toBe('# Memory\n');
    expect(await nodeFs.readText(join(dir, 'CLAUDE.md'))).toBeUndefined();
  });

  it('a FIFO: E_IO naming the path, without waiting for a writer', async () => {
    const dir = tempDir();
    const path = join(dir, 'CLAUDE.md');
    execFileSync('mkfifo', [path]);
    const started = process.hrtime.bigint();
    await expect(nodeFs.readText(path)).rejects.toMatchObject({ code: 'E_IO', message: expect.stringContaining('CLAUDE.md') });
    // Returned, not killed: a blocking open would never come back without a writer.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
  });

  it('a file over the limit (sparse: no disk used): E_IO saying so, nothing read', async () => {
    const dir = tempDir();
    const path = join(dir, 'MEMORY.md');
    const fd = openSync(path, 'w');
    ftruncateSync(fd, MAX_TEXT_BYTES + 1);
    closeSync(fd);
    await expect(nodeFs.readText(path)).rejects.toMatchObject({ code: 'E_IO', message: expect.stringMatching(/MEMORY\.md.*MiB/s) });
  });

  it('a folder where a file should be: E_IO', async () => {
    const dir = tempDir();
    await expect(nodeFs.readText(dir)).rejects.toMatchObject({ code: 'E_IO' });
  });
});
