/**
 * Worker thread entry (see range-folder.ts): says it is ready, then folds one range of a telemetry file,
 * from the offset the main thread sends with what its prelude settled, to the end of the file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rangeFold, toPartial, type RangeRequest, type RangeStart } from './merge.js';
import { readLines, type RawLine } from '../io/line-reader.js';
import { loadSecretRuleSet } from '../safety/secrets-rule-set.js';

const PROGRESS_EVERY = 8 << 20;
const request = workerData as RangeRequest;
const port = parentPort!;

port.once('message', (start: RangeStart) => {
  const fold = rangeFold(request, start);
  let reported = 0;
  const onProgress = (bytes: number) => {
    if (bytes - reported < PROGRESS_EVERY) return;
    reported = bytes;
    port.postMessage({ progress: bytes });
  };
  // Past a cap the fold cannot be merged: stop at once, and the main thread reads this part itself.
  const foldLine = (line: RawLine) => {
    fold.line(line, request.segment);
    if (fold.reachedACap()) throw new Error('a cap was reached: this part is read in order by the main thread');
  };
  readLines(request.absolute, start.offset, { maxLineBytes: request.maxLineBytes, onProgress }, foldLine).then(
    (consumed) => port.postMessage({ partial: toPartial(fold, consumed) }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
});
// Ready once the secret rule set is loaded: this thread redacts what it keeps exactly as the main one.
void loadSecretRuleSet().then(() => port.postMessage({ ready: true }));
