import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AttackRepo } from '../fixtures/attacks/types.js';
import { PACKAGE_ROOT } from './repo.js';
import { tempDir } from './temp.js';

/**
 * The ground an attack runs on: a temp root holding the repository (`repo/`), a sentinel directory next
 * to it (`outside/`, and `home/`, the run's HOME) that must not change, and `markers/`, where code that
 * an attack gets run (a hook, a filter, fsmonitor) leaves a file. The harness's own git calls override
 * every execution point, so a marker is the tool's doing.
 */

export const POLICY = readFileSync(join(PACKAGE_ROOT, 'config/safety-rules.yaml'), 'utf8');
export const MEMORY = '# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n## Later section\n\nAlso human.\n';

/** What the harness passes to git so that no hook, filter, fsmonitor, textconv or pager of the repo runs. */
// log.mailmap off: a hostile .mailmap or mailmap.file can be a FIFO, and the harness reads the tool's commits with git log.
const SAFE_GIT = ['-c', 'log.mailmap=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.pager=cat', '-c', 'diff.external=', '-c', 'protocol.ext.allow=never'];

export interface Sandbox extends AttackRepo {
  root: string;
  markers: string;
  home: string;
  /** HEAD before the first night: commits after it are the tool's. */
  base: string;
}

export function makeSandbox(settings: string): Sandbox {
  const root = tempDir('sleep-cycle-attack-');
  const dir = join(root, 'repo');
  const outside = join(root, 'outside');
  const markers = join(root, 'markers');
  const home = join(root, 'home');
  for (const path of [dir, outside, markers, home]) mkdirSync(path, { recursive: true });
  writeFileSync(join(outside, 'notes.md'), '# Notes outside the repository\n');
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  // Bounded: a hostile repository can make git itself block (a FIFO as .gitattributes or as an included
  // config file), and the harness must report that, not wait for it.
  const git = (...args: string[]) => execFileSync('git', [...SAFE_GIT, ...args], { cwd: dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 << 20, timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  write('MEMORY.md', MEMORY);
  write('logs/telemetry.jsonl', '');
  write('config/safety-rules.yaml', POLICY);
  write('config/sleep-cycle.yaml', settings);
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'attack test');
  git('config', 'user.email', 'attack@example.invalid');
  git('config', 'commit.gpgsign', 'false');
  const sandbox: Sandbox = {
    root, dir, outside, markers, home, base: '',
    marker: (name) => `: > '${join(markers, name.replace(/[^\w.-]/g, '_'))}'`,
    write,
    link: (path, target) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      symlinkSync(target, join(dir, path));
    },
    script: (path, text) => {
      const full = path.startsWith('/') ? path : join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, `#!/bin/sh\n${text}\n`);
      chmodSync(full, 0o755);
    },
    git,
    commit: (message) => {
      git('add', '-A');
      git('commit', '--quiet', '--allow-empty', '--no-verify', '-m', message);
    },
  };
  sandbox.commit('initial');
  return sandbox;
}

export function headOf(sandbox: Sandbox): string {
  return sandbox.git('rev-parse', 'HEAD').trim();
}

/** Path → kind and content hash, without following links or opening FIFOs and devices. */
export function snapshot(dir: string, skip: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path)) {
      const relPath = rel === '' ? name : `${rel}/${name}`;
      if (skip.includes(relPath)) continue;
      const full = join(path, name);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out.set(relPath, `link ${readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        out.set(relPath, 'dir');
        walk(full, relPath);
      } else if (stat.isFile()) out.set(relPath, `file ${stat.mode.toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
      else out.set(relPath, `special ${stat.mode.toString(8)}`);
    }
  };
  walk(dir, '');
  return out;
}

/** What changed between two snapshots, one line each. */
export function treeChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, kind] of after) if (before.get(path) !== kind) changes.push(`${before.has(path) ? 'changed' : 'created'} ${path}`);
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes;
}

/**
 * The sentinel: everything in the root except the repository, the markers and `remotes/`, where an attack
 * keeps a git remote that `run --push` is asked to push to (writing its objects there is the push).
 */
export const sentinel = (sandbox: Sandbox) => snapshot(sandbox.root, ['repo', 'markers', 'remotes']);

export const markersFound = (sandbox: Sandbox) => readdirSync(sandbox.markers).sort();

/** The repository's files as the harness left them (the log and .git aside): what a run added or changed is a surface. */
export const repoFiles = (sandbox: Sandbox) => snapshot(sandbox.dir, ['.git', 'logs']);

/** Text of files that are new or changed since `before` (regular files only, at most 50 MB each). */
export function changedFileTexts(sandbox: Sandbox, before: Map<string, string>): { name: string; text: string }[] {
  const after = repoFiles(sandbox);
  const texts: { name: string; text: string }[] = [];
  for (const [path, kind] of after) {
    if (!kind.startsWith('file ') || before.get(path) === kind) continue;
    const full = join(sandbox.dir, path);
    if (lstatSync(full).size > 50_000_000) continue;
    texts.push({ name: path, text: readFileSync(full, 'utf8') });
  }
  return texts;
}

/** The tool's commits (messages and patches, every ref) since the sandbox's base. */
export function commitsSince(sandbox: Sandbox): string {
  try {
    return sandbox.git('log', '-p', '--all', '--no-textconv', '--no-ext-diff', '--format=%H%n%B', '--not', sandbox.base);
  } catch (error) {
    return `git log failed: ${String(error).slice(0, 200)}`;
  }
}
