import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { LineSplitter, type RawLine, type ReadLinesOptions } from './line-reader.js';

/** A rotated log compressed by logrotate: offsets are positions in the decompressed text. */
export function isGzip(path: string): boolean {
  return path.endsWith('.gz');
}

/**
 * Streams the complete lines of a gzip file from decompressed byte `start`, like readLines: returns the
 * decompressed offset after the last complete line. Memory stays at one decompressed chunk.
 */
export async function readGzipLines(path: string, start: number, options: ReadLinesOptions, onLine: (line: RawLine) => void): Promise<number> {
  const splitter = new LineSplitter(start, options.maxLineBytes, onLine);
  let position = 0;
  for await (const chunk of createReadStream(path).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    const end = position + chunk.length;
    if (end > start) splitter.push(position >= start ? chunk : chunk.subarray(start - position), Math.max(position, start));
    position = end;
    if (end > start) options.onProgress?.(end - start);
  }
  if (options.final) splitter.flush(Math.max(position, start));
  return splitter.consumed;
}

/** Up to `length` decompressed bytes from `start` (stops decompressing once they are read). */
export async function readGzipRange(path: string, start: number, length: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let position = 0;
  let kept = 0;
  const stream = createReadStream(path).pipe(createGunzip());
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const end = position + chunk.length;
    if (end > start && kept < length) {
      const from = Math.max(0, start - position);
      const piece = chunk.subarray(from, Math.min(chunk.length, from + (length - kept)));
      parts.push(Buffer.from(piece));
      kept += piece.length;
    }
    position = end;
    if (kept >= length) {
      stream.destroy();
      break;
    }
  }
  return Buffer.concat(parts);
}

/** The decompressed size (read through once: only for rotated files, which are checked rarely). */
export async function gzipSize(path: string): Promise<number> {
  let size = 0;
  for await (const chunk of createReadStream(path).pipe(createGunzip()) as AsyncIterable<Buffer>) size += chunk.length;
  return size;
}
