import { fstatSync, readSync } from 'node:fs';

/**
 * Reads all of stdin as UTF-8, bounded in size and time: a hook must finish quickly even when run by
 * hand in a terminal (no input) or fed more than any payload needs. What was read so far is returned.
 */
export interface ReadStdinOptions {
  maxBytes?: number;
  timeoutMs?: number;
}

export function readProcessStdin(options: ReadStdinOptions = {}): Promise<string> {
  const { maxBytes = 16 * 1024 * 1024, timeoutMs = 5000 } = options;
  const direct = readStdinDirect(maxBytes);
  return direct.done ? Promise.resolve(Buffer.concat(direct.chunks).toString('utf8')) : readStdinStream(direct.chunks, maxBytes, timeoutMs);
}

/**
 * The hook's way (on every tool call): plain reads of descriptor 0 until its end, without process.stdin,
 * whose stream machinery costs more than the hook's own work. For a file, a pipe or a socket whose
 * writer ends it (Claude Code writes the payload and closes; a pipe its writer keeps open without
 * writing holds the hook until it closes, the price of not starting a stream). Not done when the
 * descriptor cannot be read like this (a non-blocking one answers EAGAIN, a closed one EBADF): the
 * stream reader, with its timeout, takes over from the bytes read so far.
 */
function readStdinDirect(maxBytes: number): { done: boolean; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  try {
    const info = fstatSync(0);
    // A terminal (run by hand), /dev/null or another device: no payload. (node:tty's isatty would load
    // the net and stream modules just to say so.)
    if (!info.isFile() && !info.isFIFO() && !info.isSocket()) return { done: true, chunks };
    for (let size = 0; size < maxBytes; ) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes - size));
      const read = readSync(0, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
    }
    return { done: true, chunks };
  } catch {
    return { done: false, chunks };
  }
}

function readStdinStream(chunks: Buffer[], maxBytes: number, timeoutMs: number): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    let size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const finish = () => {
      clearTimeout(timer);
      stdin.off('data', onData).off('end', finish).off('error', finish);
      stdin.pause();
      stdin.unref?.();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    timer.unref();
    stdin.on('data', onData).once('end', finish).once('error', finish);
  });
}
