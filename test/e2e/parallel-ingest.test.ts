import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDir, read, runCliProcess } from '../helpers/repo.js';
import { makeLog } from '../helpers/night-log.js';

/**
 * The built CLI on a night large enough to be split (ingest_worker_min_mb lowered to 1 MiB): a worker
 * thread folds the second half of the log. Everything a user gets (the JSON result, the report, the
 * state the next night starts from, MEMORY.md) must be byte for byte what one thread gives.
 */

const NIGHT = makeLog({ seed: 7, lines: 24_000, messageVariety: 400, inputVariety: 3000, rareToolAt: 20_000 });
const NEXT_NIGHT = makeLog({ seed: 8, lines: 12_000, messageVariety: 20, inputVariety: 50, rareToolAt: 0 }).replaceAll('2026-11-01T', '2026-11-02T');

function twin(): { split: string; single: string } {
  const files = { 'logs/telemetry.jsonl': NIGHT };
  return { split: makeDir(files, { git: true }), single: makeDir(files, { git: true }) };
}

function night(dir: string, workerMinMb: string, extra: Record<string, string> = {}) {
  const run = runCliProcess(dir, ['run', '--json', '--offline', '--no-commit'], { SLEEP_CYCLE_NOW: '2026-11-03T03:00:00Z', SLEEP_CYCLE_INGEST_WORKER_MIN_MB: workerMinMb, ...extra });
  expect(run.code, `${run.stderr}${run.stdout}`.slice(0, 2000)).toBe(0);
  const { parallel_ingest: parallel, ...data } = run.json.data;
  return { parallel, data, report: read(dir, 'proposed_memory_updates.md'), state: read(dir, '.sleep-cycle/state.json'), memory: existsSync(join(dir, 'MEMORY.md')) ? read(dir, 'MEMORY.md') : null };
}

describe('a large night read by two threads', () => {
  it('gives exactly what one thread gives, night after night', () => {
    expect(Buffer.byteLength(NIGHT)).toBeGreaterThan(2 * 1024 * 1024);
    const { split, single } = twin();
    const a = night(split, '1');
    const b = night(single, '0');
    expect(a.parallel).toMatchObject({ file: 'logs/telemetry.jsonl', merged: true });
    expect(b.parallel).toBeNull();
    expect(a.data.lines.read).toBe(24_000 - NIGHT.split('\n').filter((l) => l.trim() === '').length + 1);
    expect(a.data.clusters.length).toBeGreaterThan(5);
    expect(a.data).toEqual(b.data);
    expect(a.report).toBe(b.report);
    expect(a.state).toBe(b.state);
    expect(a.memory).toBe(b.memory);

    // The next night starts from the worker's cursor: only the new lines are read, once.
    for (const dir of [split, single]) appendFileSync(join(dir, 'logs/telemetry.jsonl'), NEXT_NIGHT);
    const c = night(split, '1');
    const d = night(single, '0');
    expect(c.parallel).toMatchObject({ merged: true });
    expect(c.data.lines.read + c.data.lines.blank).toBe(NEXT_NIGHT.split('\n').length - 1);
    expect(c.data).toEqual(d.data);
    expect(c.report).toBe(d.report);
    expect(c.state).toBe(d.state);
  });

  it('when a cap makes the order matter, the main thread reads the worker\'s half itself, with the same result', () => {
    const { split, single } = twin();
    // Past max_clusters the night keeps its heaviest clusters (a sketch): with 8, the busiest still reach
    // the threshold and write rules (with 4, every cluster kept was one newly admitted, none at 3 yet).
    const a = night(split, '1', { SLEEP_CYCLE_MAX_CLUSTERS: '8' });
    const b = night(single, '0', { SLEEP_CYCLE_MAX_CLUSTERS: '8' });
    expect(a.parallel).toMatchObject({ merged: false });
    expect(a.data.notices.some((n: string) => n.includes('beyond max_clusters'))).toBe(true);
    expect(a.data).toEqual(b.data);
    expect(a.report).toBe(b.report);
    expect(a.state).toBe(b.state);
  });

  it('after a rotation: the gzipped copy is finished first, then the new log is split; the same as one thread', () => {
    const { split, single } = twin();
    for (const dir of [split, single]) {
      night(dir, '0');
      const log = join(dir, 'logs/telemetry.jsonl');
      appendFileSync(log, NEXT_NIGHT.slice(0, NEXT_NIGHT.indexOf('\n', 200_000) + 1));
      writeFileSync(`${log}.1.gz`, gzipSync(readFileSync(log)));
      rmSync(log);
      writeFileSync(log, NEXT_NIGHT.replaceAll('2026-11-02T', '2026-11-03T'));
    }
    const a = night(split, '1');
    const b = night(single, '0');
    expect(a.parallel).toMatchObject({ file: 'logs/telemetry.jsonl', merged: true });
    expect(a.data.notices.join(' ')).toContain('finished logs/telemetry.jsonl.1.gz from byte');
    expect(a.data).toEqual(b.data);
    expect(a.report).toBe(b.report);
    expect(a.state).toBe(b.state);
  });
});

