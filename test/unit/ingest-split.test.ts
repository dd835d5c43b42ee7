import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger, type RunContext } from '../../pipeline/context.js';
import { nodeFs } from '../../pipeline/io/fs.js';
import { readLines } from '../../pipeline/io/line-reader.js';
import type { RangeFolderPort } from '../../pipeline/ingest/range-folder.js';
import { emptyState, type State } from '../../pipeline/memory/state.js';
import { defaultSettings } from '../../pipeline/settings/schema.js';
import { ingest } from '../../pipeline/stages/ingest.js';
import { rangeFold, toPartial, type PartialFold } from '../../pipeline/ingest/merge.js';
import { makeLog } from '../helpers/night-log.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The split read (ingest-split.ts) with the worker replaced by the same fold run in this thread: the
 * prelude that waits for the worker, the split, the merge and the fallbacks, without thread timing.
 */

interface Folder extends RangeFolderPort {
  starts: number;
  splitAt: number[];
}

/** A range folder in this thread; `readyAfter` checks before it says ready; `fail` makes the job fail. */
function inThisThread({ readyAfter = 0, fail = false } = {}): Folder {
  const folder: Folder = {
    starts: 0,
    splitAt: [],
    start(request) {
      folder.starts += 1;
      let checks = 0;
      let begin: (offset: number, fold: ReturnType<typeof rangeFold>) => void = () => {};
      const result = new Promise<PartialFold | null>((done) => {
        begin = (offset, fold) => {
          if (fail) return done(null);
          readLines(request.absolute, offset, { maxLineBytes: request.maxLineBytes }, (line) => fold.line(line, request.segment)).then(
            (consumed) => done(structuredClone(toPartial(fold, consumed))),
            () => done(null),
          );
        };
      });
      return {
        ready: () => ++checks > readyAfter,
        go: (start) => {
          folder.splitAt.push(start.offset);
          begin(start.offset, rangeFold(request, start));
        },
        result,
        cancel: () => {},
      };
    },
  };
  return folder;
}

function context(root: string, rangeFolder?: RangeFolderPort, minMb = 1): RunContext {
  const settings = { ...defaultSettings(), ingest_worker_min_mb: minMb };
  return {
    root, now: new Date('2026-11-05T00:00:00Z'), runId: 'run-test', settings,
    options: { dryRun: true, commit: false, requireGit: false },
    fs: nodeFs, git: null as never, synthesizer: null as never, logger: silentLogger, startupNotices: [],
    ...(rangeFolder ? { rangeFolder } : {}),
  };
}

function repoWith(log: string): string {
  const root = tempDir('split-');
  mkdirSync(join(root, 'logs'));
  writeFileSync(join(root, 'logs/telemetry.jsonl'), log);
  return root;
}

async function night(root: string, rangeFolder?: RangeFolderPort, state: State = emptyState()) {
  const { parallel, ...rest } = await ingest({ state, notices: [] }, context(root, rangeFolder));
  return { parallel, result: rest };
}

const LOG = makeLog({ seed: 11, lines: 30_000, messageVariety: 400, inputVariety: 2000, rareToolAt: 25_000 });

describe('a large night read in two parts (in one thread, to check the orchestration)', () => {
  it.each([0, 1, 2])('gives what one read gives, whenever the worker is ready (after %i checks)', async (readyAfter) => {
    const root = repoWith(LOG);
    const folder = inThisThread({ readyAfter });
    const split = await night(root, folder);
    const single = await night(root);
    expect(folder.starts).toBe(1);
    expect(split.parallel).toMatchObject({ file: 'logs/telemetry.jsonl', merged: true, split_at: folder.splitAt[0] });
    expect(single.parallel).toBeNull();
    expect(split.result).toEqual(single.result);
  });

  it('splits at a line start after the prelude, and the next night goes on from the cursor', async () => {
    const root = repoWith(LOG);
    const folder = inThisThread();
    const first = await night(root, folder);
    expect(LOG[folder.splitAt[0]! - 1]).toBe('\n');
    expect(folder.splitAt[0]).toBeGreaterThan(1 << 20);
    const more = makeLog({ seed: 12, lines: 30_000, messageVariety: 20, inputVariety: 30, rareToolAt: 0 }).replaceAll('2026-11-01T', '2026-11-02T');
    appendFileSync(join(root, 'logs/telemetry.jsonl'), more);
    const state: State = { ...emptyState(), cursors: first.result.cursors, baselines: first.result.baselines };
    const split = await night(root, inThisThread(), state);
    const single = await night(root, undefined, state);
    expect(split.parallel).toMatchObject({ merged: true });
    expect(split.result.lines.read + split.result.lines.blank).toBe(more.split('\n').length - 1);
    expect(split.result).toEqual(single.result);
  });

  it('a worker that is never ready: the prelude stops at a quarter of the night, and the rest is still split', async () => {
    const root = repoWith(LOG);
    const folder = inThisThread({ readyAfter: 1000 });
    const split = await night(root, folder);
    expect(split.parallel).toMatchObject({ merged: true });
    expect(folder.splitAt[0]).toBeGreaterThan(Buffer.byteLength(LOG) / 4 + (Buffer.byteLength(LOG) * 3) / 8 - 1);
    expect(split.result).toEqual((await night(root)).result);
  });

  it('a failed worker: this thread reads its part, with the same result', async () => {
    const root = repoWith(LOG);
    const split = await night(root, inThisThread({ fail: true }));
    expect(split.parallel).toMatchObject({ merged: false });
    expect(split.result).toEqual((await night(root)).result);
  });

  it('a night under ingest_worker_min_mb is not split', async () => {
    const root = repoWith(LOG.slice(0, LOG.indexOf('\n', 200_000) + 1));
    const folder = inThisThread();
    expect((await night(root, folder)).parallel).toBeNull();
    expect(folder.starts).toBe(0);
  });
});
