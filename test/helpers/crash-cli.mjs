#!/usr/bin/env node
// Test-only entry point: the real CLI (built dist) with a fixed clock and injected crash hooks.
//
// Environment:
//   CRASH_CLOCK  ISO time for the fixed clock (default 2026-11-21T03:00:00Z)
//   CRASH_TRACE  file to append one JSON line per effect call to ({op, path}); used to enumerate crash points
//   CRASH_AT     "<k>:<mode>": the k-th effect call (1-based, counted over writeAtomic, createExclusive,
//                remove, rename, git.commitFiles and, inside a commit, every git command that writes:
//                read-tree, hash-object, update-index, write-tree, commit-tree, update-ref, reset)
//                kills this process with SIGKILL:
//                  before   before the effect is performed
//                  after    after the effect completed
//                  partial  (writeAtomic only) half of the content is written to a temp file named the way
//                           the real adapter names it, then the process dies before any rename
// With no CRASH_AT the run is a normal one.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { defaultDeps } from '../../dist/pipeline/cli/context-from-options.js';
import { runCli } from '../../dist/pipeline/cli/program.js';
import { fixedClock } from '../../dist/pipeline/io/clock.js';

const env = process.env;
const [crashIndex, crashMode] = (env.CRASH_AT ?? '').split(':');
const target = crashIndex ? Number(crashIndex) : 0;
let calls = 0;

const die = () => {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is delivered at once; never continue past this point.
  for (;;);
};

/** Wraps one effect: counts it, traces it, and dies before/after it when it is the chosen one. */
function hook(op, path, perform, partial) {
  calls += 1;
  const k = calls;
  if (env.CRASH_TRACE) appendFileSync(env.CRASH_TRACE, `${JSON.stringify({ k, op, path })}\n`);
  if (k !== target) return perform();
  if (crashMode === 'before') die();
  if (crashMode === 'partial' && partial) {
    partial();
    die();
  }
  return Promise.resolve(perform()).then((value) => {
    die();
    return value;
  });
}

// The git commands one commit runs, each an effect of its own: a kill between two of them must converge too.
const GIT_WRITES = new Set(['read-tree', 'hash-object', 'update-index', 'write-tree', 'commit-tree', 'update-ref', 'reset']);
const childProcess = createRequire(import.meta.url)('node:child_process');
const realSpawn = childProcess.spawn;
childProcess.spawn = function spawn(command, args, ...rest) {
  const sub = Array.isArray(args) ? args.find((arg) => !arg.startsWith('-')) : undefined;
  if (!String(command).endsWith('git') || !GIT_WRITES.has(sub)) return realSpawn.call(this, command, args, ...rest);
  calls += 1;
  const k = calls;
  if (env.CRASH_TRACE) appendFileSync(env.CRASH_TRACE, `${JSON.stringify({ k, op: `git ${sub}`, path: '' })}\n`);
  if (k === target && crashMode === 'before') die();
  const child = realSpawn.call(this, command, args, ...rest);
  // Registered before simple-git's own listeners: the command completed, its caller never hears of it.
  if (k === target && crashMode === 'after') child.on('exit', () => die());
  return child;
};
syncBuiltinESMExports();

const deps = defaultDeps();
const fs = deps.fs;
const git = deps.git;
deps.clock = fixedClock(env.CRASH_CLOCK ?? '2026-11-21T03:00:00Z');
deps.isTTY = false;
deps.fs = {
  ...fs,
  writeAtomic: (path, content) =>
    hook('writeAtomic', path, () => fs.writeAtomic(path, content), () => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(`${path}.${randomBytes(4).toString('hex')}.tmp`, content.slice(0, Math.floor(content.length / 2)));
    }),
  createExclusive: (path, content) => hook('createExclusive', path, () => fs.createExclusive(path, content)),
  remove: (path) => hook('remove', path, () => fs.remove(path)),
  rename: (from, to) => hook('rename', `${from} -> ${to}`, () => fs.rename(from, to)),
};
deps.git = {
  ...git,
  commitFiles: (root, files, message, options) =>
    hook('commitFiles', files.map((file) => file.path).join(','), () => git.commitFiles(root, files, message, options)),
};

process.exitCode = await runCli(process.argv.slice(2), deps);
