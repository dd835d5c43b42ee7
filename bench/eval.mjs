#!/usr/bin/env node
// `npm run eval`: how well the template miner groups and parses real logs (issue 13, item 9), and how
// well near-duplicate rules are recognised (issue 15, item 5: bench/eval-similarity.mjs).
// For every dataset it prints, per system, GA / FGA / PA of the miner (mineTemplates), of the miner used
// online (TemplateMiner.add in log order) and of two baselines measured in the same run: exact-string
// grouping and today's signatureKey (pipeline/templates/signature.ts). Then the miner's speed on the
// Loghub lines replayed. Definitions: bench/eval-metrics.mjs. Data: ../shared/data (SOURCES.md there).
//
//   npm run eval                 (builds dist/ with tsc, then runs this)
//   npm run -s eval -- --json    one JSON document on stdout (-s keeps npm's banner off it)
//   node bench/eval.mjs --data DIR --replays N --no-speed
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadLoghub } from './eval-loghub.mjs';
import { evaluate, measureSpeed, renderText, TARGETS } from './eval-report.mjs';
import { evaluateSimilarity, renderSimilarity } from './eval-similarity.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(REPO, 'dist/pipeline/templates');

const USAGE = `usage: node bench/eval.mjs [options]   (or: npm run -s eval -- [options])
  --json         print one JSON document on stdout, nothing else there
  --data DIR     the shared data folder (default ../shared/data from the repo root)
  --replays N    timed replays of the Loghub lines for the speed row (default 20)
  --no-speed     skip the speed row`;

function parseArgs(argv) {
  const o = { json: false, data: resolve(REPO, '../shared/data'), replays: 20, speed: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') o.json = true;
    else if (arg === '--no-speed') o.speed = false;
    else if (arg === '--data') o.data = resolve(argv[++i] ?? fail('--data expects a folder'));
    else if (arg === '--replays') o.replays = Math.max(1, Math.floor(Number(argv[++i]) || fail('--replays expects a number')));
    else if (arg === '-h' || arg === '--help') { process.stdout.write(`${USAGE}\n`); process.exit(0); }
    else fail(`unknown option "${arg}"\n${USAGE}`);
  }
  return o;
}

function fail(message) {
  process.stderr.write(`eval: ${message}\n`);
  process.exit(2);
}

async function loadLibrary() {
  const files = ['mine.js', 'miner.js', 'signature.js', '../telemetry/error-line.js', '../telemetry/tool-family.js'].map((f) => join(DIST, f));
  const missing = files.find((f) => !existsSync(f));
  if (missing) fail(`${missing} is missing: run \`npm run eval\` (it builds) or \`npx tsc -p tsconfig.json\` first`);
  const [mine, miner, signature, line, family] = await Promise.all(files.map((f) => import(pathToFileURL(f).href)));
  return { mineTemplates: mine.mineTemplates, TemplateMiner: miner.TemplateMiner, signatureKey: signature.signatureKey, errorLine: line.errorLine, toolFamily: family.toolFamily };
}

// ---------------------------------------------------------------------------------------------------
// Datasets: each is { name, systems: [{ name, lines: [{ content, group, template?, scope? }] }] } or
// { name, skipped: reason }. A new labelled dataset only needs a loader here.
// ---------------------------------------------------------------------------------------------------

async function loadDatasets(dataRoot, lib) {
  const loghub = loadLoghub(dataRoot);
  return [
    'skipped' in loghub ? { name: 'loghub-2k', skipped: loghub.skipped } : { name: 'loghub-2k', systems: loghub.systems },
    ...withoutFormatErrors(await loadAgentFailures(dataRoot, lib)),
  ];
}

/**
 * The labelled set and the same set without the harness's format errors: a third of it is one format
 * error (eval/agent-failures/README.md, "Skewed set"), which lifts a GA over everything.
 */
function withoutFormatErrors(dataset) {
  if (dataset.skipped) return [dataset];
  const lines = dataset.systems.flatMap((s) => s.lines).filter((l) => !l.scope.endsWith('\u0000format_error'));
  return [dataset, { name: `${dataset.name} without format errors`, systems: [{ name: 'all', lines }] }];
}

/**
 * Hand-labelled agent failures (eval/agent-failures/, built on another branch): its load.mjs re-reads
 * each message from the shared data and returns [{ message, group, tool_name, error_category }], or
 * nothing (with a reason) when the data is absent. The miner is given what the pipeline gives it: the
 * error line (errorLine) in the scope tool family + category (each line's `scope` ends in its category).
 */
async function loadAgentFailures(dataRoot, lib) {
  const name = 'agent-failures';
  const loader = join(REPO, 'eval/agent-failures/load.mjs');
  if (!existsSync(loader)) return { name, skipped: `no labelled set yet (${loader} is absent)` };
  const mod = await import(pathToFileURL(loader).href);
  const load = mod.loadAgentFailures ?? mod.load ?? mod.default;
  if (typeof load !== 'function') return { name, skipped: `${loader} exports no loader function` };
  const out = await load({ dataDir: dataRoot });
  const records = out?.failures ?? null;
  if (!records) return { name, skipped: out?.reason ?? 'the loader found no data' };
  const lines = records.map((r) => ({
    content: lib.errorLine(r.message),
    group: String(r.group),
    template: r.template,
    scope: `${lib.toolFamily(r.tool_name, undefined, r.message)}\u0000${r.error_category ?? ''}`,
  }));
  return { name, systems: [{ name: 'all', lines }] };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const lib = await loadLibrary();
  const datasets = await loadDatasets(options.data, lib);
  const loghub = datasets.find((d) => d.name === 'loghub-2k');
  const report = {
    data: options.data,
    datasets: datasets.map((d) => evaluate(d, lib)),
    speed: options.speed ? measureSpeed(loghub, lib, options.replays) : null,
    targets: TARGETS,
    similarity: await evaluateSimilarity(REPO),
  };
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderText(report) + renderSimilarity(report.similarity));
}

await main();
