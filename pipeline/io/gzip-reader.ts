import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { SleepCycleError } from '../model/errors.js';
import { LineSplitter, type RawLine, type ReadLinesOptions } from './line-reader.js';

/** A rotated log compressed by logrotate: offsets are positions in the decompressed text. */
export function isGzip(path: string): boolean {
  return path.endsWith('.gz');
}

/**
 * Caps on what one rotated copy may inflate to. Telemetry compresses some 10 to 30 times; a gzip bomb
 * (9 MB that inflate to 2 GiB, ratio above 200) would take seconds of CPU and memory for nothing. The
 * ratio is judged once a few MiB are out, so a bomb is refused within milliseconds.
 */
export const GZIP_LIMITS = { maxBytes: 4 * 1024 ** 3, maxRatio: 100, ratioAfterBytes: 8 * 1024 ** 2 };

/**
 * The decompressed chunks of a gzip file, with their offsets; throws E_IO once the caps are passed.
 * Stops decompressing when the consumer stops (break, or `stopAt` reached).
 */
async function* inflate(path: string, stopAt = Number.POSITIVE_INFINITY): AsyncGenerator<{ chunk: Buffer; position: number }> {
  const source = createReadStream(path);
  let compressed = 0;
  source.on('data', (chunk) => (compressed += chunk.length));
  // Loaded here, not with the module: only a rotated `.gz` copy needs zlib.
  const { createGunzip } = createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  const stream = source.pipe(createGunzip());
  let position = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      yield { chunk, position };
      position += chunk.length;
      checkInflation(path, position, compressed);
      if (position >= stopAt) return;
    }
  } finally {
    stream.destroy();
    source.destroy();
  }
}

function checkInflation(path: string, inflated: number, compressed: number): void {
  const ratio = inflated / Math.max(1, compressed);
  const tooBig = inflated > GZIP_LIMITS.maxBytes;
  if (!tooBig && (inflated < GZIP_LIMITS.ratioAfterBytes || ratio <= GZIP_LIMITS.maxRatio)) return;
  const why = tooBig ? `more than ${GZIP_LIMITS.maxBytes} bytes` : `${inflated} bytes from the first ${compressed} compressed bytes (${Math.round(ratio)} to 1; logs compress about 10 to 30 to 1, at most ${GZIP_LIMITS.maxRatio})`;
  throw new SleepCycleError(
    'E_IO',
    `${path}: the rotated log decompresses to ${why}: it looks like a gzip bomb, so it was not read. Move it out of the logs folder (if it is a genuine log, decompress it yourself and check it) and run again.`,
    { path, inflated, compressed },
  );
}

/**
 * Streams the complete lines of a gzip file from decompressed byte `start`, like readLines: returns the
 * decompressed offset after the last complete line. Memory stays at one decompressed chunk.
 */
export async function readGzipLines(path: string, start: number, options: ReadLinesOptions, onLine: (line: RawLine) => void): Promise<number> {
  const splitter = new LineSplitter(start, options.maxLineBytes, onLine);
  const stopAt = options.end ?? Number.POSITIVE_INFINITY;
  let position = 0;
  for await (const { chunk, position: at } of inflate(path, stopAt)) {
    const end = Math.min(at + chunk.length, stopAt);
    const piece = chunk.subarray(0, end - at);
    if (end > start) splitter.push(at >= start ? piece : piece.subarray(start - at), Math.max(at, start));
    position = end;
    if (end > start) options.onProgress?.(end - start);
  }
  // Stopped at `end` (a byte cap), the copy goes on: its partial line is not the last line.
  if (options.final && position < stopAt) splitter.flush(Math.max(position, start));
  return splitter.consumed;
}

/** Up to `length` decompressed bytes from `start` (stops decompressing once they are read). */
export async function readGzipRange(path: string, start: number, length: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let kept = 0;
  for await (const { chunk, position } of inflate(path, start + length)) {
    const end = position + chunk.length;
    if (end > start && kept < length) {
      const from = Math.max(0, start - position);
      const piece = chunk.subarray(from, Math.min(chunk.length, from + (length - kept)));
      parts.push(Buffer.from(piece));
      kept += piece.length;
    }
  }
  return Buffer.concat(parts);
}

/** The decompressed size (read through once: only for rotated files, which are checked rarely). */
export async function gzipSize(path: string): Promise<number> {
  let size = 0;
  for await (const { chunk } of inflate(path)) size += chunk.length;
  return size;
}
