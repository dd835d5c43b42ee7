import { linkSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('refuses a hard-linked file for reading and writing, and the other name keeps its content', async () => {
    const { root, outside } = repo();
    writeFileSync(join(outside, 'theirs.md'), 'their notes\n');
    linkSync(join(outside, 'theirs.md'), join(root, 'MEMORY.md'));
    const fs = confineFs(nodeFs, root);
    const refused = { code: 'E_IO', message: expect.stringContaining('MEMORY.md is a hard link (the file has 2 names)') };
    await expect(fs.writeAtomic(join(root, 'MEMORY.md'), 'new\n')).rejects.toMatchObject(refused);
    await expect(fs.readText(join(root, 'MEMORY.md'))).rejects.toMatchObject(refused);
    expect(readFileSync(join(outside, 'theirs.md'), 'utf8')).toBe('their notes\n');
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).toBe('their notes\n');
  });

  it('reads a hard-linked file in a read-only folder (package managers hard-link the bundled policy)', async () => {
    const { root, outside } = repo();
    writeFileSync(join(outside, 'store.yaml'), 'rules: []\n');
    mkdirSync(join(outside, 'pkg'));
    linkSync(join(outside, 'store.yaml'), join(outside, 'pkg', 'policy.yaml'));
    const fs = confineFs(nodeFs, root, [join(outside, 'pkg')]);
    expect(await fs.readText(join(outside, 'pkg', 'policy.yaml'))).toBe('rules: []\n');
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
