// One measurement in its own process, so peak RSS belongs to this row alone.
// Usage: node bench/child.mjs <mode> <target>
//   target is the telemetry file, except for `ingest`, where it is a repository root whose
//   logs/telemetry.jsonl is read by our real ingest stage (ingest + filter + cluster).
// Prints one JSON line: {mode, lines, ms, maxrss_kb, ...} where `ms` covers the work only (not
// Node's startup or module loading) and maxrss_kb is the process's peak resident set size.
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { loadIngestStage } from './ingest-stage.mjs';

const [mode, target] = process.argv.slice(2);
const repo = resolve(dirname(new URL(import.meta.url).pathname), '..');
const CHUNK = 1 << 20;

/** Floor A: 1 MiB chunks, one UTF-8 decode per chunk (up to its last newline), indexOf + slice, JSON.parse. */
function floorChunkString(file) {
  const fd = openSync(file, 'r');
  let buf = Buffer.allocUnsafe(CHUNK);
  let filled = 0;
  let position = 0;
  let lines = 0;
  for (;;) {
    if (filled === buf.length) {
      // A line longer than the buffer: grow it (never happens with this data, but stay correct).
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const n = readSync(fd, buf, filled, buf.length - filled, position);
    if (n === 0) break;
    position += n;
    const end = filled + n;
    const last = buf.lastIndexOf(0x0a, end - 1);
    if (last === -1) {
      filled = end;
      continue;
    }
    const text = buf.toString('utf8', 0, last + 1);
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      if (nl > start) {
        JSON.parse(text.slice(start, nl));
        lines += 1;
      }
      start = nl + 1;
    }
    buf.copy(buf, 0, last + 1, end);
    filled = end - last - 1;
  }
  closeSync(fd);
  return { lines };
}

/** Floor B: 1 MiB chunks, Buffer.indexOf per line, one UTF-8 decode per line (how our reader splits). */
function floorLineDecode(file) {
  const fd = openSync(file, 'r');
  let buf = Buffer.allocUnsafe(CHUNK);
  let filled = 0;
  let position = 0;
  let lines = 0;
  for (;;) {
    if (filled === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const n = readSync(fd, buf, filled, buf.length - filled, position);
    if (n === 0) break;
    position += n;
    const end = filled + n;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl === -1 || nl >= end) break;
      if (nl > start) {
        JSON.parse(buf.toString('utf8', start, nl));
        lines += 1;
      }
      start = nl + 1;
    }
    buf.copy(buf, 0, start, end);
    filled = end - start;
  }
  closeSync(fd);
  return { lines };
}

/** readline over a read stream, JSON.parse per line ('line' events: faster than for-await). */
function viaReadline(file) {
  return new Promise((done, fail) => {
    let lines = 0;
    const input = createReadStream(file, { highWaterMark: CHUNK });
    input.on('error', fail);
    const rl = createInterface({ input, crlfDelay: Infinity });
    rl.on('line', (line) => {
      if (line.length === 0) return;
      JSON.parse(line);
      lines += 1;
    });
    rl.on('close', () => done({ lines }));
  });
}

/** stream-json's JSONL parser (a re-export of stream-chain's), as a Node stream. */
async function viaStreamJsonl(file) {
  const { parser } = await import('stream-json/jsonl/parser.js');
  return new Promise((done, fail) => {
    let lines = 0;
    const input = createReadStream(file, { highWaterMark: CHUNK });
    const stream = parser.asStream();
    input.on('error', fail);
    stream.on('error', fail);
    stream.on('data', () => {
      lines += 1;
    });
    stream.on('end', () => done({ lines }));
    input.pipe(stream);
  });
}

/** stream-json's token parser in JSON-streaming mode, assembled back into values by streamValues. */
async function viaStreamJsonTokens(file) {
  const { parser } = await import('stream-json');
  const { streamValues } = await import('stream-json/streamers/stream-values.js');
  const { default: chain } = await import('stream-chain');
  return new Promise((done, fail) => {
    let lines = 0;
    const pipeline = chain([createReadStream(file, { highWaterMark: CHUNK }), parser({ jsonStreaming: true }), streamValues()]);
    pipeline.on('error', fail);
    pipeline.on('data', () => {
      lines += 1;
    });
    pipeline.on('end', () => done({ lines }));
  });
}

/** Our real ingest stage (reads the cursor, splits, parses, checks, filters, clusters) on a fresh state. */
async function viaIngest(root, prepared) {
  const { ingest, ctx, input } = prepared;
  const result = await ingest(input, ctx);
  return {
    lines: result.lines.read,
    valid: result.lines.valid,
    invalid: result.lines.invalid,
    clusters: result.clusters.length,
    failures_clustered: result.clusters.filter((c) => c.kind === 'failure').reduce((s, c) => s + c.count, 0),
    slow_clustered: result.clusters.filter((c) => c.kind === 'slow').reduce((s, c) => s + c.count, 0),
  };
}

async function prepareIngest(root) {
  // As the CLI runs it: a large night's second half is folded by a worker thread (2+ cores), unless
  // SLEEP_CYCLE_INGEST_WORKER_MIN_MB=0 turns that off.
  const env = process.env.SLEEP_CYCLE_INGEST_WORKER_MIN_MB;
  const { ingest, ctx, emptyInput } = await loadIngestStage(repo, { root, now: new Date(), workerMinMb: env === undefined ? undefined : Number(env) });
  return { ingest, ctx, input: emptyInput() };
}

const MODES = {
  'floor-chunk': floorChunkString,
  'floor-line': floorLineDecode,
  readline: viaReadline,
  'stream-jsonl': viaStreamJsonl,
  'stream-tokens': viaStreamJsonTokens,
  ingest: viaIngest,
};

const run = MODES[mode];
if (!run || !target) {
  process.stderr.write(`usage: node bench/child.mjs <${Object.keys(MODES).join('|')}> <file-or-root>\n`);
  process.exit(2);
}
const prepared = mode === 'ingest' ? await prepareIngest(target) : undefined;
const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const result = await run(target, prepared);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
// CPU time of every thread of the process (the worker's and the JIT's too): on a busy machine it moves
// less than wall time, and it shows what a second thread costs.
const cpu = process.cpuUsage(cpu0);
const cpu_ms = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify({ mode, ...result, ms, cpu_ms, maxrss_kb: process.resourceUsage().maxRSS })}\n`);
