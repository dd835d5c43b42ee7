import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, type RawLine } from '../../pipeline/io/line-reader.js';
import { tempDir } from '../helpers/temp.js';

function file(content: string | Buffer): string {
  const path = join(tempDir('lr-'), 'log.jsonl');
  writeFileSync(path, content);
  return path;
}

async function collect(path: string, start = 0, chunkBytes = 1 << 20, maxLineBytes = 1 << 20) {
  const out: Pick<RawLine, 'text' | 'offset' | 'next' | 'tooLong'>[] = [];
  // A line's text is read during the callback: the reader reuses its buffers.
  const end = await readLines(path, start, { chunkBytes, maxLineBytes }, ({ text, offset, next, tooLong }) => out.push({ text, offset, next, tooLong }));
  return { out, end };
}

describe('readLines', () => {
  it.each([1, 2, 3, 7, 64, 1 << 20])('gives the same lines and byte offsets with %i-byte chunks', async (chunk) => {
    const text = 'α{"a":1}\r\n\nβγ\nlast\n';
    const { out, end } = await collect(file(text), 0, chunk);
    expect(out.map((l) => [l.text, l.offset, l.next])).toEqual([
      ['α{"a":1}', 0, 11],
      ['', 11, 12],
      ['βγ', 12, 17],
      ['last', 17, 22],
    ]);
    expect(end).toBe(Buffer.byteLength(text));
  });

  it('skips a UTF-8 BOM at the start of the file', async () => {
    const { out } = await collect(file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\ny\n')])), 0, 2);
    expect(out.map((l) => [l.text, l.offset])).toEqual([['x', 3], ['y', 5]]);
  });

  it('does not consume a torn last line: the cursor stops before it', async () => {
    const { out, end } = await collect(file('one\ntwo\nthr'));
    expect(out.map((l) => l.text)).toEqual(['one', 'two']);
    expect(end).toBe(8);
  });

  it('starts at a byte offset', async () => {
    const { out } = await collect(file('one\ntwo\nthree\n'), 4);
    expect(out.map((l) => [l.text, l.offset])).toEqual([['two', 4], ['three', 8]]);
  });

  it('reports an over-long line without buffering it, and reads the lines around it', async () => {
    const huge = 'x'.repeat(5000);
    const { out, end } = await collect(file(`a\n${huge}\nb\n`), 0, 256, 1000);
    expect(out.map((l) => [l.text, l.tooLong, l.offset])).toEqual([['a', false, 0], ['', true, 2], ['b', false, 5003]]);
    expect(end).toBe(5005);
  });

  it('an over-long torn last line is consumed as too long: it can never become a valid line, and must not hold the cursor', async () => {
    const path = file(`a\n${'y'.repeat(3000)}`);
    const { out, end } = await collect(path, 0, 256, 1000);
    expect(out.map((l) => [l.text, l.tooLong])).toEqual([['a', false], ['', true]]);
    expect(end).toBe(3002);
    // The rest of it arrives, then real lines: the rest is one more line (invalid for its reader), the next are read.
    appendFileSync(path, `yyy"}\n{"ok":1}\n`);
    const next = await collect(path, end, 256, 1000);
    expect(next.out.map((l) => l.text)).toEqual(['yyy"}', '{"ok":1}']);
  });

  it('a torn last line within max_line_bytes is still left for the writer to finish', async () => {
    const { out, end } = await collect(file(`a\n${'y'.repeat(500)}`), 0, 256, 1000);
    expect(out.map((l) => l.text)).toEqual(['a']);
    expect(end).toBe(2);
  });

  it('a line callback that throws stops the read with its error (the read ahead is awaited, not leaked)', async () => {
    const path = file('one\ntwo\nthree\n');
    const seen: string[] = [];
    const reading = readLines(path, 0, { chunkBytes: 4, maxLineBytes: 100 }, (line) => {
      seen.push(line.text);
      if (line.text === 'two') throw new Error('stop here');
    });
    await expect(reading).rejects.toThrow('stop here');
    expect(seen).toEqual(['one', 'two']);
  });

  it.each([1, 3, 64])('stops at `end`: a line cut by it is not reported nor consumed (%i-byte chunks)', async (chunkBytes) => {
    const path = file('one\ntwo\nthree\n');
    const upTo = async (end: number) => {
      const out: string[] = [];
      const consumed = await readLines(path, 0, { chunkBytes, maxLineBytes: 100, end }, (line) => out.push(line.text));
      return { out, consumed };
    };
    expect(await upTo(8)).toEqual({ out: ['one', 'two'], consumed: 8 });
    expect(await upTo(10)).toEqual({ out: ['one', 'two'], consumed: 8 });
    expect(await upTo(0)).toEqual({ out: [], consumed: 0 });
  });

  it('decodes invalid UTF-8 exactly as Buffer.toString does (replacement characters)', async () => {
    const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x61, 0xe2, 0x82, 0x7d, 0xf0, 0x9f, 0x98, 0x80]);
    const { out } = await collect(file(Buffer.concat([bad, Buffer.from('\n')])));
    expect(out.map((l) => l.text)).toEqual([bad.toString('utf8')]);
  });
});

