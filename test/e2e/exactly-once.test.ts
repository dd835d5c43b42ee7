import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDir, PACKAGE_ROOT, read, runCliProcessAsync, type CliRun } from '../helpers/repo.js';

const APPENDER = join(PACKAGE_ROOT, 'test', 'helpers', 'appender.mjs');
const POLICY = read(PACKAGE_ROOT, 'config/safety-rules.yaml');
const LOG = 'logs/telemetry.jsonl';
const N = 3_000;

interface AppenderSummary {
  lines: number;
  failures: Record<string, number>;
  splits: number;
  bytes: number;
}

/** Whether the log, right now, ends inside a line (a torn write the appender has not finished). */
function endsTorn(path: string): boolean {
  if (!existsSync(path)) return false;
  const size = statSync(path).size;
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function cursorOffset(dir: string): number {
  const path = join(dir, '.sleep-cycle', 'state.json');
  if (!existsSync(path)) return 0;
  return JSON.parse(readFileSync(path, 'utf8')).cursors?.[LOG]?.offset ?? 0;
}

// The second pass splits every night above 100 bytes: a worker thread reads to the end of the file,
// which is still growing, while the main thread reads the first part.
describe.each([
  { threads: 'one thread', env: {} as Record<string, string> },
  { threads: 'two threads', env: { SLEEP_CYCLE_INGEST_WORKER_MIN_MB: '0.0001' } },
])('exactly once ($threads)', ({ threads, env }) => {
  it('every complete line written while runs execute is counted in exactly one run', async () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'config/safety-rules.yaml': POLICY, 'logs/.keep': '' });
    const logPath = join(dir, LOG);

    let summaryText = '';
    let appenderError = '';
    const holdPath = join(dir, 'hold');
    const appender = spawn(process.execPath, [APPENDER, logPath, String(N), '20261120', holdPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    appender.stdout.on('data', (chunk: Buffer) => (summaryText += chunk.toString()));
    appender.stderr.on('data', (chunk: Buffer) => (appenderError += chunk.toString()));
    const appenderDone = new Promise<number>((resolve) => appender.on('close', (code) => resolve(code ?? -1)));
    let done = false;
    void appenderDone.then(() => (done = true));

    const runs: { run: CliRun; from: number; to: number; startedTorn: boolean }[] = [];
    const runOnce = async () => {
      const from = cursorOffset(dir);
      const startedTorn = endsTorn(logPath);
      const run = await runCliProcessAsync(dir, ['run', '--json', '--no-commit'], env);
      expect(run.code, run.stderr).toBe(0);
      runs.push({ run, from, to: cursorOffset(dir), startedTorn });
    };
    // The appender holds its first torn line until a night has run on it: at least one run certainly
    // starts on a log that ends inside a line, however loaded the machine is.
    const holdUntil = Date.now() + 30_000;
    while (!endsTorn(logPath) && !done && Date.now() < holdUntil) await new Promise((r) => setTimeout(r, 5));
    await runOnce();
    writeFileSync(holdPath, '');
    while (!done) await runOnce();
    expect(await appenderDone, appenderError).toBe(0);
    await runOnce(); // once more after the appender finished: whatever was torn is complete now

    const summary = JSON.parse(summaryText) as AppenderSummary;
    const file = readFileSync(logPath);
    expect(file.length).toBe(summary.bytes);
    expect(file.at(-1)).toBe(0x0a);

    // 1. The counts: every run is self-consistent, and the nights add up to exactly what was written.
    for (const { run } of runs) {
      const l = run.json.data.lines;
      expect(l.read).toBe(l.valid + l.invalid + l.old);
      expect({ invalid: l.invalid, old: l.old, blank: l.blank }).toEqual({ invalid: 0, old: 0, blank: 0 });
    }
    const counted = runs.reduce((sum, { run }) => sum + run.json.data.lines.valid, 0);
    expect(counted).toBe(N);

    // 2. Through the cursor: each run consumed the byte range [from, to) of whole lines, and the ids in
    //    those ranges are every id once — none read twice, none skipped, no torn line consumed.
    const seen = new Map<string, number>();
    let expectedFrom = 0;
    for (const [index, { run, from, to }] of runs.entries()) {
      expect(from).toBe(expectedFrom);
      expectedFrom = to;
      if (to > from) expect(file[to - 1], `run ${index} stopped inside a line`).toBe(0x0a);
      const segment = file.subarray(from, to).toString('utf8');
      const segmentLines = segment === '' ? [] : segment.slice(0, -1).split('\n');
      expect(segmentLines.length, `run ${index}`).toBe(run.json.data.lines.valid);
      for (const text of segmentLines) {
        const id = JSON.parse(text).input_hash as string;
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
    }
    expect(expectedFrom).toBe(file.length);
    const duplicates = [...seen].filter(([, times]) => times > 1);
    expect(duplicates).toEqual([]);
    expect(seen.size).toBe(N);
    for (let i = 0; i < N; i++) expect(seen.has(`id-${String(i).padStart(6, '0')}`)).toBe(true);

    // 3. Through the clusters: the failures counted per pattern over all nights are exactly those written.
    const clustered: Record<string, number> = {};
    for (const { run } of runs) {
      for (const cluster of run.json.data.clusters) {
        if (cluster.kind !== 'failure') continue;
        const key = `${cluster.tool_name}\u0000${cluster.error_category}`;
        clustered[key] = (clustered[key] ?? 0) + cluster.count_tonight;
      }
    }
    expect(clustered).toEqual(summary.failures);
    // Clusters formed and became rules: the runs did real work while lines were arriving.
    expect(read(dir, 'MEMORY.md').match(/<!-- rule:/g)?.length ?? 0).toBeGreaterThanOrEqual(3);

    const tornStarts = runs.filter((r) => r.startedTorn).length;
    const split = runs.filter(({ run }) => run.json.data.parallel_ingest?.merged).length;
    console.log(`exactly once (${threads}): ${N} lines written (${summary.splits} split across two writes), ${counted} counted over ${runs.length} runs; ${tornStarts} runs started on a torn last line; ${split} runs read by two threads`);
    if (threads === 'two threads') expect(split).toBeGreaterThan(runs.length / 2);
    // The test is only meaningful if runs met torn lines; with these pauses nearly every run does.
    expect(summary.splits).toBeGreaterThan(20);
    expect(tornStarts).toBeGreaterThan(0);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
