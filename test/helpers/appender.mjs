#!/usr/bin/env node
// Test-only telemetry appender: `node appender.mjs <log> <count> [seed] [hold-file]`.
//
// Appends <count> telemetry lines with unique ids (`input_hash`: id-000000 …) in batches, the way an
// agent's logger does, with one writer fd opened for append. Often the last line of a batch is split
// across two write() calls — at a random byte, sometimes inside a multi-byte UTF-8 character — with a
// pause in between, so a concurrent run sees a torn last line. Prints one JSON summary line at the end:
// {lines, failures: {"tool\u0000category": n}, splits, bytes}.
// With a hold file, the first torn write waits (up to 60 s) until that file exists, so a caller can run
// a night on a log that certainly ends inside a line, whatever the machine's load.
import { closeSync, existsSync, fstatSync, openSync, writeSync } from 'node:fs';

const [path, countText, seedText, holdPath] = process.argv.slice(2);
const count = Number(countText);
let seed = Number(seedText ?? 1) >>> 0;
const random = () => {
  // mulberry32: deterministic for a seed.
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const PATTERNS = [
  { tool_name: 'git_push', error_category: 'git_error', error_message: "fatal: Unable to create '/repo/.git/index.lock': File exists." },
  { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet. Read it first — déjà vu → retry' },
  { tool_name: 'Bash', error_category: 'command_not_found', error_message: 'vitest: command not found (ℹ️ try npx)' },
];
const BASE = Date.parse('2026-11-20T00:00:00.000Z');
const failures = {};

function line(i) {
  const event = {
    timestamp: new Date(BASE + i * 1000).toISOString(),
    tool_name: 'Read',
    input_hash: `id-${String(i).padStart(6, '0')}`,
    exit_code: 0,
    duration_ms: 50 + Math.floor(random() * 20),
    session_id: `s-${i % 7}`,
  };
  if (random() < 0.3) {
    const pattern = PATTERNS[Math.floor(random() * PATTERNS.length)];
    Object.assign(event, pattern, { exit_code: 1 });
    const key = `${pattern.tool_name}\u0000${pattern.error_category}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
  return `${JSON.stringify(event)}\n`;
}

const fd = openSync(path, 'a');
let i = 0;
let splits = 0;
while (i < count) {
  const size = Math.min(count - i, 1 + Math.floor(random() * 20));
  const lines = [];
  for (let j = 0; j < size; j++) lines.push(line(i + j));
  i += size;
  const last = Buffer.from(lines.pop(), 'utf8');
  const head = Buffer.from(lines.join(''), 'utf8');
  if (random() < 0.4) {
    // Torn write: everything up to a byte inside the last line, a pause, then the rest.
    const cut = 1 + Math.floor(random() * (last.length - 1));
    writeSync(fd, Buffer.concat([head, last.subarray(0, cut)]));
    splits += 1;
    if (holdPath && splits === 1) {
      const until = Date.now() + 60_000;
      while (!existsSync(holdPath) && Date.now() < until) pause(10);
    }
    pause(random() < 0.2 ? 120 : 5 + Math.floor(random() * 40));
    writeSync(fd, last.subarray(cut));
  } else {
    writeSync(fd, Buffer.concat([head, last]));
  }
  pause(Math.floor(random() * 15));
}
const bytes = fstatSync(fd).size;
closeSync(fd);
process.stdout.write(`${JSON.stringify({ lines: count, failures, splits, bytes })}\n`);
