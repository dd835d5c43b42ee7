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
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
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
