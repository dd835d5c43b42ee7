import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { PartialFold, RangeRequest, RangeStart } from './merge.js';
import { packageRoot } from '../io/paths.js';

/** A range of a file being folded apart; see RangeFolderPort. */
export interface RangeJob {
  /** The thread has loaded and waits for `go`. */
  ready(): boolean;
  /** Starts the fold from `start.offset` to the end of the file, with what the lines before settled. */
  go(start: RangeStart): void;
  /** The range's fold, or null when it failed (the caller then folds the range itself). */
  result: Promise<PartialFold | null>;
  /** Stops the job; its result becomes null. */
  cancel(): void;
}

/**
 * Folds the end of a large file on another thread while the caller folds its start. `start` is called
 * early so the thread loads its modules while the caller reads a prelude; `go` hands over what that
 * prelude settled (slow thresholds, full clusters' signatures).
 */
export interface RangeFolderPort {
  start(request: RangeRequest, onProgress?: (bytes: number) => void): RangeJob;
}

/**
 * The worker's script, in dist/ (also when running from source, as the tests do, and from the bundled
 * CLI, whose modules no longer sit in their own directories).
 */
function workerScript(): string | null {
  const script = resolve(packageRoot(), 'dist', 'pipeline', 'ingest', 'range-worker.js');
  return existsSync(script) ? script : null;
}

/** The worker's old-generation heap limit: its fold is bounded by caps and needs far less. */
const WORKER_HEAP_MB = 512;
/**
 * The worker's young generation. Left to grow, V8 doubled it as a long night went on (the bench's peak
 * RSS: 94 MB at a million lines, 111 MB at five million); capped, 94 and 103 MB, at the same speed.
 */
const WORKER_YOUNG_MB = 8;

/** Messages from range-worker.ts. */
type WorkerMessage = { ready: true } | { progress: number } | { partial: PartialFold } | { error: string };

/** A worker thread per job; null on a single-core machine (a second thread would only take turns). */
export function workerRangeFolder(): RangeFolderPort | null {
  const script = workerScript();
  if (script === null || availableParallelism() < 2) return null;
  return {
    start(request, onProgress) {
      // No environment (it holds API keys the fold never needs), and a heap bound: a worker that runs out
      // of it fails, and the main thread reads its part instead.
      // Loaded here, not with the module: only a night large enough for a second thread starts one.
      const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
      const worker = new Worker(script, { workerData: request, env: {}, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
      let ready = false;
      const result = new Promise<PartialFold | null>((done) => {
        worker.on('message', (message: WorkerMessage) => {
          if ('ready' in message) return void (ready = true);
          if ('progress' in message) return onProgress?.(message.progress);
          done('partial' in message ? message.partial : null);
          void worker.terminate();
        });
        worker.on('error', () => done(null));
        worker.on('exit', () => done(null));
      });
      return { ready: () => ready, go: (start) => worker.postMessage(start), result, cancel: () => void worker.terminate() };
    },
  };
}
