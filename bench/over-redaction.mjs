#!/usr/bin/env node
/**
 * Over-redaction between two builds: runs the built `redact()` of two dist/ folders over every distinct
 * line of the shared data (loghub logs and templates, Claude Code transcripts and hook samples, agent
 * trajectories: error messages, commands and outputs) and prints how many lines each build changes, how
 * many lines the two outputs differ on, and examples. A rule or template that loses ordinary words is
 * worse for the user, so a new secret defence is measured on real text it should leave alone.
 *
 *   node bench/over-redaction.mjs [--old <dist>] [--new <dist>] [--data <dir>] [--examples 30] [--out <file.json>] [--max-line 4000] [--whole]
 *
 * Defaults: --new ./dist, --old /tmp/adv7-old/dist (a worktree of the previous commit, built), --data ../shared/data.
 * JSON and JSON-lines files are read as their string values (keys too), each split into lines; other files by line.
 * --whole keeps each JSON string whole (a multi-line tool result, as an error_message reaches the redactor).
 * --after-secret puts a redacted secret before each line (`token <a GitHub token>, <line>`): what a defence that
 * reads on past a redaction (a marker's tail) takes of the ordinary text after a secret, which the data alone rarely shows.
 * --reader continuation|continuation-later measures, instead of redact(), how a session's failure after one that
 * ended with a secret is read (redactContinuation of safety/split-secret.js: the next failure, or the two after it,
 * read more strictly; a build without the stricter reading reads them as the next).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const newDist = resolve(option('new', 'dist'));
const oldDist = resolve(option('old', '/tmp/adv7-old/dist'));
const dataDir = resolve(option('data', '../shared/data'));
const exampleCount = Number(option('examples', '30'));
const outFile = option('out', '');

const whole = args.includes('--whole');
/** Built from parts: no credential-shaped literal in this file. */
const SECRET_BEFORE = `token ${['gh', 'p_', 'Xq7RtV2mK9pLw4Zs8NcY3bHd6FgJ1aTe5UoQ'].join('')}, `;
const afterSecret = args.includes('--after-secret');
/** Lines longer than this are skipped: a whole file's dump on one line is not a message or a command. */
const MAX_LINE = Number(option('max-line', '4000'));

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function strings(value, out) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) out.push(key), strings(item, out);
}

function linesOf(path) {
  const text = readFileSync(path, 'utf8');
  const texts = [];
  if (/\.jsonl?$/.test(path)) {
    try {
      strings(JSON.parse(text), texts);
    } catch {
      for (const line of text.split('\n')) {
        try {
          strings(JSON.parse(line), texts);
        } catch {
          texts.push(line);
        }
      }
    }
  } else texts.push(text);
  return whole && /\.jsonl?$/.test(path) ? texts : texts.flatMap((t) => t.split(/\r?\n/));
}

const distinct = new Set();
for (const path of files(dataDir)) for (const line of linesOf(path)) if (line.trim() !== '' && line.length <= MAX_LINE) distinct.add(line);
const lines = afterSecret ? [...distinct].map((line) => `${SECRET_BEFORE}${line}`) : [...distinct];

const reader = option('reader', 'redact');
async function readerOf(dist) {
  if (reader === 'redact') return (await import(pathToFileURL(join(dist, 'pipeline/index.js')).href)).redact;
  const { redactContinuation } = await import(pathToFileURL(join(dist, 'pipeline/safety/split-secret.js')).href);
  if (reader === 'continuation') return (line) => redactContinuation(line);
  if (reader === 'continuation-later') return (line) => redactContinuation(line, true);
  throw new Error(`--reader: redact, continuation or continuation-later, not ${reader}`);
}
const redactNew = await readerOf(newDist);
const redactOld = await readerOf(oldDist);

const cpu0 = process.cpuUsage();
let changedOld = 0;
let changedNew = 0;
const differ = [];
for (const line of lines) {
  const before = redactOld(line);
  const after = redactNew(line);
  if (before !== line) changedOld += 1;
  if (after !== line) changedNew += 1;
  if (before !== after) differ.push({ line, old: before, new: after });
}
const cpu = process.cpuUsage(cpu0);

console.log(`data: ${dataDir}; ${lines.length} distinct lines (${MAX_LINE}+ characters skipped)`);
console.log(`old build (${oldDist}) changes ${changedOld} lines; new build (${newDist}) changes ${changedNew}`);
console.log(`lines whose output differs between the two: ${differ.length} (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s for both builds)`);
// Evenly spread over the differing lines (in data order), not the first few of one file.
const step = Math.max(1, Math.floor(differ.length / exampleCount));
for (let i = 0, shown = 0; i < differ.length && shown < exampleCount; i += step, shown += 1) {
  const d = differ[i];
  console.log(`\n#${i}\n  line: ${JSON.stringify(d.line.slice(0, 300))}\n  old:  ${JSON.stringify(d.old.slice(0, 300))}\n  new:  ${JSON.stringify(d.new.slice(0, 300))}`);
}
if (outFile) writeFileSync(outFile, `${JSON.stringify({ lines: lines.length, changedOld, changedNew, differ }, null, 1)}\n`);
