import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confineFs, resolveLinks } from '../../pipeline/io/confine.js';
import { nodeFs } from '../../pipeline/io/fs.js';
import { tempDir } from '../helpers/temp.js';

function repo(): { root: string; outside: string } {
  const base = realpathSync(tempDir('confine-'));
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'docs'), { recursive: true });
  mkdirSync(outside);
  return { root, outside };
}

describe('resolveLinks', () => {
  it('follows links, dangling ones and links in the folders above a missing file', () => {
    const { root, outside } = repo();
    symlinkSync(join(outside, 'new.md'), join(root, 'dangling.md'));
    symlinkSync(outside, join(root, 'out'));
    symlinkSync('docs/NOTES.md', join(root, 'MEMORY.md'));
    expect(resolveLinks(join(root, 'dangling.md'))).toBe(join(outside, 'new.md'));
    expect(resolveLinks(join(root, 'out', 'a', 'b.json'))).toBe(join(outside, 'a', 'b.json'));
    expect(resolveLinks(join(root, 'MEMORY.md'))).toBe(join(root, 'docs', 'NOTES.md'));
    expect(resolveLinks(join(root, 'plain.md'))).toBe(join(root, 'plain.md'));
  });

  it('a link loop ends (the open that follows fails)', () => {
    const { root } = repo();
    symlinkSync('b', join(root, 'a'));
    symlinkSync('a', join(root, 'b'));
    expect(typeof resolveLinks(join(root, 'a'))).toBe('string');
  });
});

describe('confineFs', () => {
  it('writes through an in-repository link and refuses one that leaves, naming both ends', async () => {
    const { root, outside } = repo();
    writeFileSync(join(root, 'docs', 'NOTES.md'), 'old\n');
    symlinkSync('docs/NOTES.md', join(root, 'MEMORY.md'));
    symlinkSync(join(outside, 'x.md'), join(root, 'EVIL.md'));
    const fs = confineFs(nodeFs, root);
    await fs.writeAtomic(join(root, 'MEMORY.md'), 'new\n');
    expect(await fs.readText(join(root, 'docs', 'NOTES.md'))).toBe('new\n');
    await expect(fs.writeAtomic(join(root, 'EVIL.md'), 'x')).rejects.toMatchObject({ code: 'E_IO', message: expect.stringContaining(`EVIL.md resolves (through a link) to ${join(outside, 'x.md')}`) });
    await expect(fs.readText('../outside/x.md')).rejects.toMatchObject({ code: 'E_IO' });
    await expect(fs.list(join(root, 'docs'))).resolves.toEqual(['NOTES.md']);
  });

  it('reads, never writes, the read-only folders it is given', async () => {
    const { root, outside } = repo();
    writeFileSync(join(outside, 'policy.yaml'), 'rules: []\n');
    const fs = confineFs(nodeFs, root, [outside]);
    expect(await fs.readText(join(outside, 'policy.yaml'))).toBe('rules: []\n');
    await expect(fs.writeAtomic(join(outside, 'policy.yaml'), 'x')).rejects.toMatchObject({ code: 'E_IO' });
  });

  it('passes a scratch write\'s durable: false through (the hook tables skip the fsync they asked to skip)', async () => {
    const { root } = repo();
    const seen: unknown[] = [];
    const spy = { ...nodeFs, writeAtomic: async (path: string, content: string, options?: { durable?: boolean }) => { seen.push(options); await nodeFs.writeAtomic(path, content, options); } };
    const fs = confineFs(spy, root);
    await fs.writeAtomic(join(root, 'scratch.json'), '{}', { durable: false });
    await fs.writeAtomic(join(root, 'state.json'), '{}');
    expect(seen).toEqual([{ durable: false }, undefined]);
  });
});
