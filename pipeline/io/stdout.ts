import { writeSync } from 'node:fs';

/**
 * Writes text to stdout with plain writes of descriptor 1, as io/stdin.ts reads descriptor 0: the hook
 * prints one short JSON document (the rules at session start, a reminder), and `process.stdout` would
 * first load Node's stream modules (some twenty, with `net` for a pipe) to do it. What a write cannot
 * take at once (a non-blocking descriptor answers EAGAIN) goes through `process.stdout`, which waits;
 * output nobody reads any more is dropped.
 */
export function writeProcessStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at, bytes.length - at);
  } catch (error) {
    // A reader that has gone (EPIPE) is not waited for: the hook never fails for its output.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') process.stdout.write(bytes.subarray(at));
  }
}
