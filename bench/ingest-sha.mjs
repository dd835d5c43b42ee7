// The ingest stage's result as one SHA-256, for "same output" checks of a speed change, and its CPU time.
// Usage: node bench/ingest-sha.mjs <repo with dist/> <root with logs/telemetry.jsonl> <1|2> [<warm-up root>]
//   1: one thread (no worker); 2: a worker for any night of 1 MiB or more, as the CLI splits a large one.
// Prints {sha, sha_no_split, parallel, ms, cpu_ms, lines, clusters}: `sha` covers the whole result (Maps and
// Sets as arrays, `now` fixed); `sha_no_split` leaves out `parallel`, whose byte of the split follows when the
// worker was ready, so it compares a one-thread and a two-thread night, which must agree.
// With a warm-up root, the stage runs on it first, unmeasured, in the same process: the measured run then finds
// its code compiled (and the redactor's module-level memos holding the lines both nights share).
// For instructions: valgrind --tool=callgrind node --predictable --hash-seed=1 --random-seed=1 bench/ingest-sha.mjs …
import { createHash } from 'node:crypto';
import { loadIngestStage } from './ingest-stage.mjs';

const [repo, root, threads, warmRoot] = process.argv.slice(2);
if (!repo || !root || (threads !== '1' && threads !== '2')) {
  process.stderr.write('usage: node bench/ingest-sha.mjs <repo> <root> <1|2>\n');
  process.exit(2);
}
const { ingest, ctx, emptyInput } = await loadIngestStage(repo, {
  root,
  now: new Date('2026-11-27T00:00:00Z'),
  workerMinMb: threads === '1' ? Number.MAX_SAFE_INTEGER : 1,
  worker: threads === '2',
});
if (warmRoot) await ingest(emptyInput(), { ...ctx, root: warmRoot });
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const result = await ingest(emptyInput(), ctx);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const cpu = process.cpuUsage(cpu0);
const plain = (_key, value) => (value instanceof Map || value instanceof Set ? [...value] : value);
const sha = (value) => createHash('sha256').update(JSON.stringify(value, plain)).digest('hex').slice(0, 16);
const { parallel, ...rest } = result;
process.stdout.write(`${JSON.stringify({ sha: sha(result), sha_no_split: sha(rest), parallel, ms: Math.round(ms), cpu_ms: Math.round((cpu.user + cpu.system) / 1000), lines: result.lines.read, clusters: result.clusters.length })}\n`);
process.exit(0);
