#!/usr/bin/env node
// sleep-cycle benchmark (issue 5, "Speed"): generates telemetry in a temp dir and measures, on the
// same file, each row in its own process (so peak RSS is per row), then prints the ratios against
// baselines measured in the same run. See bench/README.md for what each number means.
//
//   node bench/run.mjs [--lines N] [--json] [--history-mb H] [--memory-scale K] [--repeat R] ...
//   npm run -s bench -- --lines 300000 --json      (-s: keeps npm's banner off stdout)
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TelemetryGenerator, writeTelemetry } from './generate.mjs';
import { HOOK_TARGETS, measureHooks } from './hooks.mjs';

const LOAD_AT_START = Math.round(loadavg()[0] * 100) / 100;
const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');
// The `bin` (what the hook snippet and npx run).
const CLI = join(REPO, 'dist/pipeline/cli/main.cjs');
const CHILD = join(HERE, 'child.mjs');
const RSS_HOOK = join(HERE, 'rss-hook.mjs');
const MB = 1 << 20;

const TARGETS = {
  vs_floor: { text: '>= 0.9', met: (v) => v >= 0.9 },
  vs_stream_json: { text: '>= 1.8', met: (v) => v >= 1.8 },
  incremental: { text: '<= 1.5', met: (v) => v <= 1.5 },
  rss_growth: { text: '<= 1.2 and peak < 200 MB', met: (v, d) => v <= 1.2 && d.rss_scaled_mb < 200 },
  dry_run_vs_floor: { text: '<= 1.3', met: (v) => v <= 1.3 },
  startup: { text: '<= 2x node -e 0 + 150 ms', met: (_v, d) => d.startup_run_ms <= 2 * d.startup_node_ms + 150 },
};

const USAGE = `usage: node bench/run.mjs [options]   (or: npm run -s bench -- [options])
  --lines N           lines in the main file (default 1000000, about 200 MB)
  --json              print one JSON document on stdout, nothing else there
  --history-mb H      history size for the incremental row, in MB (default 200; the issue's case is 1024)
  --append-mb A       size of the appended night, in MB (default 1)
  --memory-scale K    the memory row ingests K x N lines (default 5)
  --repeat R          runs per throughput row and per incremental timing; the median counts (default 3)
  --startup-lines L   new lines for the pre-session latency row (default 10000)
  --startup-repeat S  runs of each side of the latency row; the median counts (default 7)
  --hook-repeat K     runs of each hook row and of node -e 0; the median counts (default 15)
  --hooks-only        only the hook rows (the Claude Code hook per payload vs node -e 0)
  --seed S            PRNG seed of the generated telemetry (default 42)
  --no-tokens         skip the (slow, informational) stream-json token-parser row
  --no-build          measure the existing dist/ instead of building it first (npm run build's steps)
  --keep              keep the temp dir (its path is printed on stderr)
  --out FILE          also write the JSON document to FILE
  --tmp DIR           parent of the temp dir (default the OS temp dir)`;

function parseArgs(argv) {
  const o = {
    lines: 1_000_000, json: false, historyMb: 200, appendMb: 1, memoryScale: 5, repeat: 3, startupLines: 10_000,
    startupRepeat: 7, hookRepeat: 15, hooksOnly: false, seed: 42, tokens: true, build: true, keep: false, out: null, tmp: tmpdir(),
  };
  const num = (flag, value, min) => {
    const n = Number(value);
    if (value === undefined || !Number.isFinite(n) || n < min) fail(`${flag} expects a number of at least ${min}, found "${value ?? ''}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--lines': o.lines = Math.floor(num(flag, value(), 1000)); break;
      case '--json': o.json = true; break;
      case '--history-mb': o.historyMb = num(flag, value(), 1); break;
      case '--append-mb': o.appendMb = num(flag, value(), 0.01); break;
      case '--memory-scale': o.memoryScale = num(flag, value(), 1); break;
      case '--repeat': o.repeat = Math.floor(num(flag, value(), 1)); break;
      case '--startup-lines': o.startupLines = Math.floor(num(flag, value(), 1)); break;
      case '--startup-repeat': o.startupRepeat = Math.floor(num(flag, value(), 1)); break;
      case '--hook-repeat': o.hookRepeat = Math.floor(num(flag, value(), 1)); break;
      case '--hooks-only': o.hooksOnly = true; break;
      case '--seed': o.seed = Math.floor(num(flag, value(), 0)); break;
      case '--no-tokens': o.tokens = false; break;
      case '--no-build': o.build = false; break;
      case '--keep': o.keep = true; break;
      case '--out': o.out = value() ?? fail('--out expects a file'); break;
      case '--tmp': o.tmp = value() ?? fail('--tmp expects a directory'); break;
      case '-h': case '--help': process.stdout.write(`${USAGE}\n`); process.exit(0); break;
      default: fail(`unknown option "${arg}"\n${USAGE}`);
    }
  }
  return o;
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------- progress (TTY only, never --json/CI)

function makeProgress(enabled, total) {
  let step = 0;
  let label = '';
  const draw = (fraction) => {
    if (!enabled) return;
    const width = 20;
    const bar = fraction === undefined ? '' : ` [${'#'.repeat(Math.round(fraction * width)).padEnd(width, '.')}] ${Math.round(fraction * 100)}%`;
    process.stderr.write(`\r\x1b[K[${step}/${total}] ${label}${bar}`);
  };
  return {
    step(text) {
      step += 1;
      label = text;
      draw();
    },
    update: draw,
    done() {
      if (enabled) process.stderr.write('\r\x1b[K');
    },
  };
}

// ---------------------------------------------------------------- machine

function machine() {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (model) cpu = model[1].trim();
  } catch {}
  let os = `${type()} ${release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (pretty) os = `${pretty[1]} (${type()} ${release()})`;
  } catch {}
  return {
    os, cpu, cores: availableParallelism(), memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version,
    load_avg_1m_at_start: LOAD_AT_START,
  };
}

/** Which source was measured: HEAD and whether pipeline/ differs from it (read-only git calls). */
function source() {
  const git = (args) => {
    const res = spawnSync('git', args, { cwd: REPO, encoding: 'utf8' });
    return res.status === 0 ? res.stdout.trim() : null;
  };
  const commit = git(['rev-parse', 'HEAD']);
  const changes = git(['status', '--porcelain', '--', 'pipeline', 'package.json', 'tsconfig.json']);
  return { commit, pipeline_dirty: changes === null ? null : changes.length > 0 };
}

// ---------------------------------------------------------------- processes

const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLEEP_CYCLE_') && k !== 'ANTHROPIC_API_KEY'));

function timed(args, env = cleanEnv) {
  const t0 = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { encoding: 'utf8', env, maxBuffer: 64 * MB });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${res.status ?? res.signal}:\n${(res.stderr || res.stdout || '').slice(0, 2000)}`);
  }
  return { wallMs, stdout: res.stdout };
}

/** One child.mjs measurement: work time (ms, inside the child), wall time, peak RSS. */
function child(mode, target) {
  const { wallMs, stdout } = timed([CHILD, mode, target]);
  const result = JSON.parse(stdout.trim().split('\n').pop());
  return { ...result, wall_ms: wallMs, rss_kb: result.maxrss_kb };
}

/** One CLI run (`sleep-cycle run ... --json`) with its peak RSS read through the preload hook. */
function cli(root, extra, rssFile) {
  const args = [...(rssFile ? ['--import', RSS_HOOK] : []), CLI, 'run', '--json', '--offline', '--root', root, ...extra];
  const env = rssFile ? { ...cleanEnv, SLEEP_CYCLE_BENCH_RSS: rssFile } : cleanEnv;
  const { wallMs, stdout } = timed(args, env);
  const envelope = JSON.parse(stdout);
  if (!envelope.success) throw new Error(`sleep-cycle run failed: ${JSON.stringify(envelope.error)}`);
  return { wall_ms: wallMs, data: envelope.data, rss_kb: rssFile ? Number(readFileSync(rssFile, 'utf8')) : null };
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** The run whose chosen metric is the median (the lower middle one for an even count). */
const medianRun = (runs, key = 'ms') => [...runs].sort((a, b) => a[key] - b[key])[(runs.length - 1) >> 1];

// ---------------------------------------------------------------- data

function generate(path, seed, amount, progress) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  const gen = new TelemetryGenerator(seed);
  const step = 100_000;
  let lines = 0;
  let bytes = 0;
  while (amount.lines !== undefined ? lines < amount.lines : bytes < amount.bytes) {
    const part = amount.lines !== undefined
      ? writeTelemetry(path, gen, { lines: Math.min(step, amount.lines - lines) })
      : writeTelemetry(path, gen, { lines: step, bytes: amount.bytes - bytes });
    lines += part.lines;
    bytes += part.bytes;
    progress?.update(amount.lines !== undefined ? lines / amount.lines : bytes / amount.bytes);
  }
  return { gen, lines, bytes };
}

/** `npm run build`'s steps (tsc, the compiled default policy, the bundled CLI and worker), without npm. */
function build(progress) {
  progress.step('building dist/ (tsc, policy, bundles)');
  const steps = [
    [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.json')],
    [join(REPO, 'dist/scripts/compile-policy.js')],
    [join(REPO, 'dist/scripts/bundle-entries.js')],
  ];
  for (const args of steps) {
    const res = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: REPO });
    if (res.status === 0) continue;
    progress.done();
    process.stderr.write(`${res.stdout}${res.stderr}`);
    process.stderr.write('bench: the build failed; fix it, or pass --no-build to measure the dist/ that exists.\n');
    process.exit(1);
  }
}

// ---------------------------------------------------------------- main

const o = parseArgs(process.argv.slice(2));
const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
const throughputModes = ['floor-line', 'floor-chunk', 'readline', 'stream-jsonl', 'ingest'];
const totalSteps = o.hooksOnly ? (o.build ? 2 : 1) : (o.build ? 1 : 0) + 1 + o.repeat * (throughputModes.length + 1) + (o.tokens ? 1 : 0) + 2 + 2 + o.repeat + 1 + 1;
const progress = makeProgress(!o.json && !ci && Boolean(process.stderr.isTTY), totalSteps);

const SOURCE = source();
if (o.build) build(progress);
const tmp = mkdtempSync(join(o.tmp, 'sleep-cycle-bench-'));
if (o.keep) process.stderr.write(`bench: temp dir ${tmp}\n`);
const telemetry = (root) => join(root, 'logs/telemetry.jsonl');

if (o.hooksOnly) {
  try {
    progress.step('hook rows: each payload vs node -e 0');
    const hooks = measureHooks({ cli: CLI, root: join(tmp, 'hooks'), env: cleanEnv, repeat: o.hookRepeat });
    progress.done();
    const targets = Object.fromEntries(Object.entries(HOOK_TARGETS).map(([k, t]) => [k, { target: t.text, met: t.met(hooks.ratios[k], hooks.details) }]));
    const doc = { machine: machine(), date: new Date().toISOString(), source: SOURCE, ratios: hooks.ratios, targets, details: hooks.details };
    if (o.out) writeFileSync(o.out, `${JSON.stringify(doc, null, 2)}\n`);
    const lines = Object.entries(hooks.ratios).map(([k, v]) => `${k.padEnd(18)} ${String(v).padStart(9)}  ${targets[k].target.padEnd(26)} ${(targets[k].met ? 'met' : 'NOT met').padEnd(7)} ${hooks.explain[k]}`);
    process.stdout.write(o.json ? `${JSON.stringify(doc)}\n` : `sleep-cycle bench — hook rows, ${doc.date}; load average at start ${doc.machine.load_avg_1m_at_start}\n${lines.join('\n')}\n`);
  } finally {
    if (!o.keep) rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(0);
}

try {
  // 1. The main file: N lines, read by every throughput row.
  const mainRoot = join(tmp, 'main');
  progress.step(`generating ${o.lines.toLocaleString('en-US')} lines`);
  const main = generate(telemetry(mainRoot), o.seed, { lines: o.lines }, progress);
  const mainFile = telemetry(mainRoot);

  // 2. Throughput rows, interleaved so drift (thermal, page cache, neighbours) spreads over all rows.
  const runs = Object.fromEntries([...throughputModes, 'cli'].map((m) => [m, []]));
  for (let r = 0; r < o.repeat; r++) {
    for (const mode of throughputModes) {
      progress.step(`run ${r + 1}/${o.repeat}: ${mode}`);
      runs[mode].push(child(mode, mode === 'ingest' ? mainRoot : mainFile));
    }
    progress.step(`run ${r + 1}/${o.repeat}: run --dry-run (CLI)`);
    const res = cli(mainRoot, ['--dry-run'], join(tmp, 'rss-cli'));
    runs.cli.push({ ms: res.wall_ms, wall_ms: res.wall_ms, rss_kb: res.rss_kb, lines: res.data.lines.read });
  }
  if (o.tokens) {
    progress.step('stream-json token parser (once: slow)');
    runs['stream-tokens'] = [child('stream-tokens', mainFile)];
  }
  for (const [mode, list] of Object.entries(runs)) {
    for (const run of list) {
      if (run.lines !== main.lines) throw new Error(`${mode} counted ${run.lines} lines, the file has ${main.lines}`);
    }
  }

  // 3. Memory: our ingest at K x N lines (a separate file from the same generator).
  const scaledLines = Math.round(o.lines * o.memoryScale);
  const memRoot = join(tmp, 'memory');
  progress.step(`generating ${scaledLines.toLocaleString('en-US')} lines (memory row)`);
  generate(telemetry(memRoot), o.seed, { lines: scaledLines }, progress);
  progress.step(`ingest at ${o.memoryScale} x N`);
  const scaled = child('ingest', memRoot);
  if (scaled.lines !== scaledLines) throw new Error(`ingest counted ${scaled.lines} lines at scale, expected ${scaledLines}`);
  rmSync(memRoot, { recursive: true, force: true });

  // 4. Incremental: a night of A MB appended to H MB of history (cursor at its end) vs the A MB alone.
  const histRoot = join(tmp, 'history');
  const aloneRoot = join(tmp, 'alone');
  const appendFile = join(tmp, 'append.jsonl');
  progress.step(`generating ${o.historyMb} MB history + ${o.appendMb} MB night`);
  const hist = generate(telemetry(histRoot), o.seed + 1, { bytes: o.historyMb * MB }, progress);
  writeFileSync(appendFile, '');
  const night = writeTelemetry(appendFile, hist.gen, { bytes: o.appendMb * MB });
  progress.step('first (real) run over the history: moves the cursor to its end');
  const prime = cli(histRoot, ['--no-commit']);
  appendFileSync(telemetry(histRoot), readFileSync(appendFile));
  mkdirSync(join(aloneRoot, 'logs'), { recursive: true });
  copyFileSync(appendFile, telemetry(aloneRoot));
  const incr = { history: [], alone: [] };
  for (let r = 0; r < o.repeat; r++) {
    progress.step(`incremental ${r + 1}/${o.repeat}: dry runs over the night, with and without history`);
    incr.history.push(cli(histRoot, ['--dry-run']));
    incr.alone.push(cli(aloneRoot, ['--dry-run']));
  }
  for (const res of [...incr.history, ...incr.alone]) {
    if (res.data.lines.read !== night.lines) throw new Error(`incremental run read ${res.data.lines.read} lines, the night has ${night.lines}`);
  }
  // One real run each too (not repeatable: it moves the cursor), reported as a detail.
  const realHistory = cli(histRoot, ['--no-commit']);
  const realAlone = cli(aloneRoot, ['--no-commit']);
  rmSync(histRoot, { recursive: true, force: true });

  // 5. Pre-session latency: dry run on L new lines vs `node -e 0`, interleaved, after one warm-up each.
  const startRoot = join(tmp, 'startup');
  progress.step(`pre-session latency: ${o.startupLines.toLocaleString('en-US')} lines vs node -e 0`);
  generate(telemetry(startRoot), o.seed + 2, { lines: o.startupLines });
  timed(['-e', '0']);
  cli(startRoot, ['--dry-run']);
  const nodeTimes = [];
  const runTimes = [];
  for (let r = 0; r < o.startupRepeat; r++) {
    nodeTimes.push(timed(['-e', '0']).wallMs);
    runTimes.push(cli(startRoot, ['--dry-run']).wall_ms);
  }
  // 6. Hook rows: the Claude Code hook per payload vs node -e 0 (bench/hooks.mjs).
  progress.step('hook rows: each payload vs node -e 0');
  const hooks = measureHooks({ cli: CLI, root: join(tmp, 'hooks'), env: cleanEnv, repeat: o.hookRepeat });
  progress.done();

  // ---------------------------------------------------------------- results
  const mib = (kb) => Math.round((kb / 1024) * 10) / 10;
  const row = (key, name, list, lines = main.lines) => {
    const m = medianRun(list);
    return {
      key, name,
      lines_per_s: Math.round(lines / (m.ms / 1000)),
      peak_rss_mb: mib(median(list.map((x) => x.rss_kb))),
      seconds: Math.round(m.ms) / 1000,
      wall_seconds: Math.round(m.wall_ms) / 1000,
      ...(m.cpu_ms !== undefined ? { cpu_seconds: Math.round(m.cpu_ms) / 1000 } : {}),
      lines, runs: list.length,
    };
  };
  const rows = [
    row('floor-line', 'floor: 1 MiB readSync chunks, split (Buffer.indexOf, per-line decode), JSON.parse', runs['floor-line']),
    row('floor-chunk', 'floor: 1 MiB readSync chunks, one decode per chunk, split (String.indexOf), JSON.parse', runs['floor-chunk']),
    row('readline', 'node:readline (line events) + JSON.parse', runs.readline),
    row('stream-jsonl', 'stream-json JSONL parser (stream-json/jsonl/parser.js asStream)', runs['stream-jsonl']),
    ...(o.tokens ? [row('stream-tokens', 'stream-json token parser (jsonStreaming) + streamValues [info]', runs['stream-tokens'])] : []),
    row('ours-ingest', 'ours: ingest+filter+cluster (ingest stage, library)', runs.ingest),
    row('ours-dry-run', 'ours: sleep-cycle run --dry-run --offline (CLI, whole process)', runs.cli),
    row('ours-ingest-scaled', `ours: ingest+filter+cluster at ${o.memoryScale} x N lines (memory row)`, [scaled], scaledLines),
  ];
  const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
  const floor = byKey['floor-line'].lines_per_s >= byKey['floor-chunk'].lines_per_s ? byKey['floor-line'] : byKey['floor-chunk'];
  const floorWallMs = medianRun(runs[floor.key === 'floor-line' ? 'floor-line' : 'floor-chunk']).wall_ms;
  const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  const details = {
    floor_row: floor.key,
    incremental_history_mb: round(hist.bytes / MB, 1),
    incremental_night_lines: night.lines,
    incremental_night_bytes: night.bytes,
    incremental_history_dry_run_ms: round(median(incr.history.map((x) => x.wall_ms)), 1),
    incremental_alone_dry_run_ms: round(median(incr.alone.map((x) => x.wall_ms)), 1),
    incremental_history_real_run_ms: round(realHistory.wall_ms, 1),
    incremental_alone_real_run_ms: round(realAlone.wall_ms, 1),
    incremental_real_run_ratio: round(realHistory.wall_ms / realAlone.wall_ms),
    incremental_prime_run_ms: round(prime.wall_ms, 1),
    rss_n_mb: byKey['ours-ingest'].peak_rss_mb,
    rss_scaled_mb: byKey['ours-ingest-scaled'].peak_rss_mb,
    memory_scale: o.memoryScale,
    dry_run_wall_ms: round(byKey['ours-dry-run'].wall_seconds * 1000, 1),
    floor_wall_ms: round(floorWallMs, 1),
    startup_lines: o.startupLines,
    startup_run_ms: round(median(runTimes), 1),
    startup_node_ms: round(median(nodeTimes), 1),
    startup_budget_ms: round(2 * median(nodeTimes) + 150, 1),
    // The machine may be shared: a load far above its cores makes every wall time (and ratio) noisy.
    load_avg_1m_at_end: round(loadavg()[0], 2),
    ...(o.tokens ? { vs_stream_json_tokens: round(byKey['ours-ingest'].lines_per_s / byKey['stream-tokens'].lines_per_s) } : {}),
    ...hooks.details,
  };
  const ratios = {
    vs_floor: round(byKey['ours-ingest'].lines_per_s / floor.lines_per_s),
    vs_stream_json: round(byKey['ours-ingest'].lines_per_s / byKey['stream-jsonl'].lines_per_s),
    incremental: round(details.incremental_history_dry_run_ms / details.incremental_alone_dry_run_ms),
    rss_growth: round(details.rss_scaled_mb / details.rss_n_mb),
    dry_run_vs_floor: round(details.dry_run_wall_ms / details.floor_wall_ms),
    startup: round(details.startup_run_ms / details.startup_node_ms),
    ...hooks.ratios,
  };
  const targets = Object.fromEntries(Object.entries({ ...TARGETS, ...HOOK_TARGETS }).map(([k, t]) => [k, { target: t.text, met: t.met(ratios[k], details) }]));
  const doc = {
    machine: machine(),
    date: new Date().toISOString(),
    source: SOURCE,
    lines: main.lines,
    bytes: main.bytes,
    rows: rows.map(({ key, ...r }) => ({ ...r })),
    ratios,
    targets,
    details,
  };
  if (o.out) writeFileSync(o.out, `${JSON.stringify(doc, null, 2)}\n`);
  process.stdout.write(o.json ? `${JSON.stringify(doc)}\n` : renderText(doc));
} finally {
  if (!o.keep) rmSync(tmp, { recursive: true, force: true });
}

function renderText(doc) {
  const m = doc.machine;
  const fmt = (n) => n.toLocaleString('en-US');
  const out = [
    `sleep-cycle bench — ${fmt(doc.lines)} lines (${(doc.bytes / MB).toFixed(1)} MiB), ${doc.date}`,
    `machine: ${m.os}; ${m.cpu}; ${m.cores} cores; ${m.memory_gb} GB; node ${m.node}; load average at start ${m.load_avg_1m_at_start}, at the end ${doc.details.load_avg_1m_at_end}`,
    `source: ${doc.source.commit ?? 'unknown commit'}${doc.source.pipeline_dirty ? ' + uncommitted changes in pipeline/' : ''}`,
    '',
    `${'row'.padEnd(92)} ${'lines/s'.padStart(11)} ${'peak RSS MB'.padStart(12)} ${'seconds'.padStart(8)} ${'cpu s'.padStart(8)}`,
  ];
  for (const r of doc.rows) {
    out.push(`${r.name.padEnd(92)} ${fmt(r.lines_per_s).padStart(11)} ${r.peak_rss_mb.toFixed(1).padStart(12)} ${r.seconds.toFixed(3).padStart(8)} ${(r.cpu_seconds?.toFixed(3) ?? '-').padStart(8)}`);
  }
  const d = doc.details;
  const explain = {
    vs_floor: `ours ingest lines/s ÷ fastest floor (${d.floor_row})`,
    vs_stream_json: 'ours ingest lines/s ÷ stream-json JSONL lines/s',
    incremental: `dry run over ${d.incremental_night_lines} new lines after ${d.incremental_history_mb} MB history: ${d.incremental_history_dry_run_ms} ms vs alone ${d.incremental_alone_dry_run_ms} ms (real runs: ${d.incremental_history_real_run_ms} vs ${d.incremental_alone_real_run_ms} ms)`,
    rss_growth: `peak RSS of ingest at ${d.memory_scale} x N: ${d.rss_scaled_mb} MB vs ${d.rss_n_mb} MB at N`,
    dry_run_vs_floor: `run --dry-run ${d.dry_run_wall_ms} ms vs floor process ${d.floor_wall_ms} ms (both wall, whole process)`,
    startup: `run --dry-run on ${fmt(d.startup_lines)} lines ${d.startup_run_ms} ms vs node -e 0 ${d.startup_node_ms} ms (budget ${d.startup_budget_ms} ms)`,
    hook_per_call: `slowest of PreToolUse ${d.hook_pre_ms}, PostToolUse ${d.hook_post_ms}, unmatched failure ${d.hook_failure_ms} ms ÷ node -e 0 ${d.hook_node_ms} ms`,
    hook_session_start: `SessionStart on ${d.hook_session_rules} rules ${d.hook_session_start_ms} ms vs node -e 0 ${d.hook_node_ms} ms (budget +40 ms)`,
  };
  out.push('', `${'ratio'.padEnd(18)} ${'measured'.padStart(9)}  ${'target'.padEnd(26)} ${'met'.padEnd(7)} how`);
  for (const [k, v] of Object.entries(doc.ratios)) {
    out.push(`${k.padEnd(18)} ${String(v).padStart(9)}  ${doc.targets[k].target.padEnd(26)} ${(doc.targets[k].met ? 'met' : 'NOT met').padEnd(7)} ${explain[k]}`);
  }
  if (d.vs_stream_json_tokens !== undefined) out.push(`(info) ours ingest ÷ stream-json token parser: ${d.vs_stream_json_tokens}`);
  return `${out.join('\n')}\n`;
}
