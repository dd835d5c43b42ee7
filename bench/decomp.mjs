// Where the ingest stage's CPU goes, by feature (bench/RESULTS.md, "Twelfth session, ingest decomposition").
// Builds a TEMPORARY copy of HEAD with bench/decomp.patch applied (a DECOMP_LEVEL switch that turns features
// off: measurement only, never shipped), generates the bench file (bench/generate.mjs, seed 42), and runs
// bench/ingest-sha.mjs one-threaded at each level, interleaved, plus the bench's two floor rows.
// Usage: node bench/decomp.mjs [--repeat 5] [--lines 300000] [--levels 1,2,5] [--no-two-threads] [--warm] [--callgrind] [--keep] [--dir <copy>]
//   --warm       also each level after a warm-up night (seed 43) in the same process: its code compiled
//   --callgrind  also counts instructions, one run per level (valgrind --tool=callgrind, node --predictable)
//   --dir        reuse a copy built by an earlier run (--keep prints its path)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const REPO = resolve(dirname(new URL(import.meta.url).pathname), '..');
const ALL_LEVELS = [
  ['1', 'read + parse + validate (event scanner), nothing folded'],
  ['1.5', '+ every call counted (usage, tool families, refs)'],
  ['2', '+ slow-call detector on successes'],
  ['2.5', '+ failure event built and classified'],
  ['2.8', '+ failure clustered (error line, signature, masking, clusters, miner), redaction = identity'],
  ['3', '+ what worked next (recovery)'],
  ['4', '+ redaction: regex shapes, rule set, vendor prefixes'],
  ['4.3', '+ generic and context detectors'],
  ['4.6', '+ normalisation (strip, decoded views)'],
  ['4.8', '+ cross-field values within a failure'],
  ['5', '+ secrets across a session\'s events (= main)'],
];

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const repeat = Number(option('--repeat', '5'));
const lines = Number(option('--lines', '300000'));
// --levels 1,2,5: a subset (each row's Δ is then against the row above it in the subset).
const chosen = option('--levels', null)?.split(',');
const LEVELS = chosen ? ALL_LEVELS.filter(([level]) => chosen.includes(level)) : ALL_LEVELS;
const twoThreads = !flag('--no-two-threads');

const dir = option('--dir', null) ?? mkdtempSync(join(tmpdir(), 'sleep-cycle-decomp-'));
const root = join(dir, 'bench-root');
const file = join(root, 'logs/telemetry.jsonl');
if (!existsSync(join(dir, 'dist'))) {
  process.stderr.write(`decomp: building a patched copy of HEAD in ${dir}\n`);
  execFileSync('sh', ['-c', `git -C "${REPO}" archive HEAD | tar -x -C "${dir}"`]);
  execFileSync('git', ['apply', join(REPO, 'bench/decomp.patch')], { cwd: dir });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir, stdio: 'inherit' });
}
/** The bench file of `seed`, as bench/run.mjs writes it: 100,000 lines at a time. */
async function benchFile(path, seed) {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  const { TelemetryGenerator, writeTelemetry } = await import(join(REPO, 'bench/generate.mjs'));
  const gen = new TelemetryGenerator(seed);
  for (let n = 0; n < lines; ) n += writeTelemetry(path, gen, { lines: Math.min(100_000, lines - n) }).lines;
}
await benchFile(file, 42);
const warm = flag('--warm');
const warmRoot = join(dir, 'warm-root');
if (warm) await benchFile(join(warmRoot, 'logs/telemetry.jsonl'), 43);

const json = (out) => JSON.parse(out.trim().split('\n').at(-1));
const node = (argv, env = {}) => {
  const res = spawnSync(process.execPath, argv, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  if (res.status !== 0) throw new Error(`${argv.join(' ')}: ${res.stderr}`);
  return json(res.stdout);
};
const stage = (level, threads = '1', ...more) => node([join(dir, 'bench/ingest-sha.mjs'), dir, root, threads, ...more], { DECOMP_LEVEL: level });
const floor = (mode) => node([join(dir, 'bench/child.mjs'), mode, file]);

const runs = Object.fromEntries([...LEVELS.flatMap(([level]) => [[level, []], [`${level}w`, []]]), ['floor-line', []], ['floor-chunk', []], ['5x2', []]]);
for (let r = 0; r < repeat; r += 1) {
  process.stderr.write(`decomp: round ${r + 1}/${repeat}\n`);
  for (const mode of ['floor-line', 'floor-chunk']) runs[mode].push(floor(mode));
  for (const [level] of LEVELS) {
    runs[level].push(stage(level));
    if (warm) runs[`${level}w`].push(stage(level, '1', warmRoot));
  }
  if (twoThreads) runs['5x2'].push(stage('5', '2'));
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Instructions of the whole process (node --predictable: one thread, the JIT's compiles on it), less those of
// the same process on an empty log (start-up, module loading): what the stage itself executes.
const instructions = {};
const parts = {};
if (flag('--callgrind')) {
  const empty = join(dir, 'empty-root');
  mkdirSync(join(empty, 'logs'), { recursive: true });
  writeFileSync(join(empty, 'logs/telemetry.jsonl'), '');
  const count = (name, script, env = {}) => {
    process.stderr.write(`decomp: callgrind, ${name}\n`);
    const out = join(dir, `callgrind.${name}.out`);
    execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, '--predictable', '--hash-seed=1', '--random-seed=1', ...script], { env: { ...process.env, ...env }, stdio: 'ignore' });
    // Inclusive counts of the JIT's optimising compiler and of garbage collection (callgrind_annotate).
    const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', out], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout ?? '';
    const inclusive = (symbol) => Number((annotated.split('\n').find((line) => line.includes(symbol)) ?? '0').trim().split(' ')[0].replaceAll(',', ''));
    parts[name] = { turbofan: inclusive('PipelineCompilationJob::ExecuteJobImpl'), gc: inclusive('Heap::CollectGarbage(') };
    return Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(out, 'utf8'))[1]);
  };
  const stageOn = (target) => [join(dir, 'bench/ingest-sha.mjs'), dir, target, '1'];
  const base = count('empty', stageOn(empty));
  for (const [level] of LEVELS) instructions[level] = count(level, stageOn(root), { DECOMP_LEVEL: level }) - base;
  // The floor the same way: its process on the bench file less its process on an empty file.
  const floorOn = (target) => [join(dir, 'bench/child.mjs'), 'floor-line', target];
  instructions.floor = count('floor', floorOn(file)) - count('floor-empty', floorOn(join(empty, 'logs/telemetry.jsonl')));
  process.stderr.write(`decomp: an empty log's process: ${base} Ir; the floor (floor-line): ${instructions.floor} Ir\n`);
}

const floorCpu = Math.min(median(runs['floor-line'].map((x) => x.cpu_ms)), median(runs['floor-chunk'].map((x) => x.cpu_ms)));
const rows = [
  ['0', 'floor-line: readSync 1 MiB, Buffer.indexOf, decode per line, JSON.parse', runs['floor-line']],
  ['0', 'floor-chunk: readSync 1 MiB, decode per chunk, String.indexOf, JSON.parse', runs['floor-chunk']],
  ...LEVELS.map(([level, text]) => [level, text, runs[level]]),
  ...(twoThreads ? [['5', 'main, two threads (the worker)', runs['5x2']]] : []),
];
let previous = null;
const table = ['| row | what runs | CPU ms (median; min–max) | Δ CPU | wall ms | Ir (G) | vs_floor, 2 cores, perfect split | warm CPU ms |', '|---|---|---:|---:|---:|---:|---:|---:|'];
for (const [level, text, list] of rows) {
  const cpu = median(list.map((x) => x.cpu_ms));
  const stageRow = !text.startsWith('floor') && !text.startsWith('main, two');
  const delta = stageRow && previous !== null ? Math.round(cpu - previous) : '';
  if (stageRow) previous = cpu;
  const ir = text.startsWith('floor-line') && instructions.floor ? (instructions.floor / 1e9).toFixed(2) : stageRow && instructions[level] ? (instructions[level] / 1e9).toFixed(2) : '';
  // Two cores, each thread half the lines, no extra warm-up: wall = CPU / 2. The floor is one thread.
  const vs = stageRow ? (floorCpu / (cpu / 2)).toFixed(3) : '';
  const warmRuns = stageRow ? runs[`${level}w`] : [];
  const warmCpu = warmRuns.length > 0 ? Math.round(median(warmRuns.map((x) => x.cpu_ms))) : '';
  table.push(`| ${level} | ${text} | ${Math.round(cpu)} (${Math.round(Math.min(...list.map((x) => x.cpu_ms)))}–${Math.round(Math.max(...list.map((x) => x.cpu_ms)))}) | ${delta} | ${Math.round(median(list.map((x) => x.ms)))} | ${ir} | ${vs} | ${warmCpu} |`);
}
const shas = Object.fromEntries(LEVELS.map(([level]) => [level, [...new Set(runs[level].map((x) => x.sha))].join(',')]));
const irRatios = instructions.floor ? `; by instructions (floor ÷ (stage / 2)): ${LEVELS.map(([level]) => `${level}: ${(instructions.floor / (instructions[level] / 2)).toFixed(3)}`).join(', ')}` : '';
process.stdout.write(`${table.join('\n')}\n\n${JSON.stringify({ instructions, parts })}${irRatios}\nfloor CPU (the faster row's median): ${floorCpu} ms; result sha per level: ${JSON.stringify(shas)}\n`);
if (!flag('--keep') && option('--dir', null) === null) rmSync(dir, { recursive: true, force: true });
else process.stderr.write(`decomp: kept ${dir}\n`);
