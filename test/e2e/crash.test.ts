import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../dist/pipeline/cli/context-from-options.js';
import { runCli } from '../../dist/pipeline/cli/program.js';
import { fixedClock } from '../../dist/pipeline/io/clock.js';
import { lines, makeDir, PACKAGE_ROOT, read } from '../helpers/repo.js';
import { childEnv, removeTempDir, tempDir } from '../helpers/temp.js';

/**
 * Crash safety: the run is killed (SIGKILL, from an injected hook, not a timer) just before or just after
 * each of its effects — the lock, the report, MEMORY.md, the skill file, the archive, the audit, the state,
 * every git command of the commit (read-tree … update-ref, the index refresh), the lock release — and, for every atomic write, after half of the content reached the temp file. A normal
 * re-run must then leave exactly the files an uninterrupted run leaves.
 *
 * Where the time goes: two runs per crash point, some 200 points. Only the run that is killed needs a
 * process of its own; the re-run is the same built CLI loaded into this process (no Node start-up per
 * point), and the snapshot asks git three questions instead of ten.
 */

const CRASH_CLI = join(PACKAGE_ROOT, 'test', 'helpers', 'crash-cli.mjs');
const POLICY = `${read(PACKAGE_ROOT, 'config/safety-rules.yaml').trimEnd()}

  # Test only: every draft about deploy_prod waits for a human, so the scenario has a quarantined draft.
  - id: test-hold-deploy
    severity: block
    reason: drafts about the deploy tool wait for a human (test policy).
    when:
      all:
        - { fact: tool_name, operator: equal, value: deploy_prod }
`;
const SKILL = read(PACKAGE_ROOT, 'skills/git.yaml');
const NIGHTS = [
  { clock: '2026-11-21T03:00:00Z', day: '2026-11-20' },
  { clock: '2026-11-22T03:00:00Z', day: '2026-11-21' },
  // Six months later: the lifecycle archives what was not reinforced, then a recurrence restores a rule.
  { clock: '2027-06-01T03:00:00Z', day: '2027-05-31' },
  { clock: '2027-06-02T03:00:00Z', day: '2027-06-01' },
];

let counter = 0;
function failing(times: number, day: string, fields: Record<string, unknown>): string[] {
  return Array.from({ length: times }, () => {
    counter += 1;
    const minute = String(counter % 60).padStart(2, '0');
    return JSON.stringify({ timestamp: `${day}T10:${minute}:00.000Z`, input_hash: `c-${counter}`, exit_code: 1, duration_ms: 120, session_id: `s-${counter % 3}`, ...fields });
  });
}
function succeeding(times: number, day: string): string[] {
  return Array.from({ length: times }, () => {
    counter += 1;
    return JSON.stringify({ timestamp: `${day}T09:${String(counter % 60).padStart(2, '0')}:00.000Z`, tool_name: 'Read', input_hash: `ok-${counter}`, exit_code: 0, duration_ms: 40 });
  });
}
const LOCK_PUSH = { tool_name: 'git_push', error_category: 'git_error', error_message: "fatal: Unable to create '/repo/.git/index.lock': File exists." };
const REJECTED_PUSH = { tool_name: 'git_push', error_category: 'auth_error', error_message: 'remote: Permission to org/repo.git denied to bot.' };
const NOT_READ = { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet. Read it first before writing to it.' };
const NO_RUNNER = { tool_name: 'Bash', error_category: 'command_not_found', error_message: 'vitest: command not found' };
const DEPLOY = { tool_name: 'deploy_prod', error_category: 'timeout', error_message: 'deploy timed out after 600s' };

// Night 1: a rule for MEMORY.md, a rule for skills/git.yaml (routing), a quarantined draft.
const NIGHT_1 = lines(...succeeding(5, NIGHTS[0]!.day), ...failing(4, NIGHTS[0]!.day, LOCK_PUSH), ...failing(3, NIGHTS[0]!.day, NOT_READ), ...failing(3, NIGHTS[0]!.day, DEPLOY));
// Night 2, on top of night 1: new rules for both targets, recurrences of active rules, the quarantined
// pattern again (new text, new audit line), a pattern below the threshold (pending, carried over).
const NIGHT_2 = lines(
  ...succeeding(4, NIGHTS[1]!.day),
  ...failing(3, NIGHTS[1]!.day, REJECTED_PUSH),
  ...failing(5, NIGHTS[1]!.day, NO_RUNNER),
  ...failing(2, NIGHTS[1]!.day, LOCK_PUSH),
  ...failing(1, NIGHTS[1]!.day, NOT_READ),
  ...failing(2, NIGHTS[1]!.day, DEPLOY),
  ...failing(2, NIGHTS[1]!.day, { tool_name: 'Grep', error_category: 'timeout', error_message: 'search timed out' }),
);

// Night 3: only the index.lock failure recurs (its skill rule is reinforced); the other rules are past
// their TTL and move to memory/archive.md; a new cluster gets a rule.
const NIGHT_3 = lines(...succeeding(3, NIGHTS[2]!.day), ...failing(3, NIGHTS[2]!.day, LOCK_PUSH), ...failing(3, NIGHTS[2]!.day, { tool_name: 'WebFetch', error_category: 'network_error', error_message: 'fetch failed' }));
// Night 4: the not-read-first failure returns: its archived rule is restored instead of a new one written.
const NIGHT_4 = lines(...succeeding(2, NIGHTS[3]!.day), ...failing(3, NIGHTS[3]!.day, NOT_READ));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function crashCli(dir: string, clock: string, env: Record<string, string> = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CRASH_CLI, 'run', '--json'], {
      cwd: dir,
      env: { ...childEnv(dir), CRASH_CLOCK: clock, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function copyRepo(from: string): string {
  const dir = tempDir('sleep-cycle-crash-');
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** The normal re-run: what crash-cli.mjs does without CRASH_AT (the built CLI, the fixed clock), in this process. */
async function rerun(dir: string, clock: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const deps = { ...defaultDeps(), cwd: dir, clock: fixedClock(clock), env: {}, isTTY: false, stdout: (text: string) => void stdout.push(text), stderr: (text: string) => void stderr.push(text) };
  const code = await runCli(['run', '--json'], deps);
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

/** copyRepo without blocking the other crash points' children while it copies. */
async function copyRepoAsync(from: string): Promise<string> {
  const dir = tempDir('sleep-cycle-crash-');
  await cp(from, dir, { recursive: true });
  return dir;
}

/** One git command, without blocking this process (the other crash points run meanwhile). */
function gitAsync(dir: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: dir, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args.join(' ')}: exit ${code}: ${err}`))));
    child.stdin?.end(input);
  });
}

/** The committed text of each path (undefined where HEAD has none), from one `git cat-file --batch`. */
async function headFiles(dir: string, paths: string[]): Promise<Record<string, string | undefined>> {
  const out = await gitAsync(dir, ['cat-file', '--batch'], paths.map((path) => `HEAD:${path}\n`).join(''));
  const files: Record<string, string | undefined> = {};
  let at = 0;
  for (const path of paths) {
    const end = out.indexOf(10, at);
    const header = out.subarray(at, end).toString();
    at = end + 1;
    if (header.endsWith(' missing')) {
      files[path] = undefined;
      continue;
    }
    const size = Number(header.split(' ')[2]);
    files[path] = out.subarray(at, at + size).toString('utf8');
    at += size + 1;
  }
  return files;
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === '.git') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path, base) : [relative(base, path).split('\\').join('/')];
  });
}

const normalState = (text: string | undefined) => {
  if (text === undefined) return undefined;
  const state = JSON.parse(text) as Record<string, unknown>;
  delete state.last_sleep;
  return JSON.stringify(state, (key, value: unknown) => (key === 'created' || key === 'at' ? '<time>' : value), 2);
};
const normalAudit = (text: string | undefined) => text?.replace(/"time":"[^"]*"/g, '"time":"<time>"').replace(/"run":"[^"]*"/g, '"run":"<run>"');

/** Everything a converged repository must agree on, normalised for run times. */
async function snapshot(dir: string) {
  const files = walk(dir).sort();
  const text = (path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8') : undefined);
  const skills = files.filter((path) => /^skills\/[^/]+\.yaml$/.test(path));
  const [head, log, staged] = await Promise.all([
    headFiles(dir, ['MEMORY.md', ...skills, '.sleep-cycle/state.json', '.sleep-cycle/lifecycle.jsonl', 'memory/archive.md', 'proposed_memory_updates.md']),
    gitAsync(dir, ['log', '--format=%s']),
    gitAsync(dir, ['diff', '--cached', '--name-only']),
  ]);
  const headText = (path: string) => head[path];
  const subjects = log.toString().trimEnd().split('\n');
  const state = JSON.parse(text('.sleep-cycle/state.json') ?? '{}');
  const memoryIds = [...(text('MEMORY.md') ?? '').matchAll(/<!-- rule:(r-[0-9a-f]+) -->/g)].map((m) => m[1]!);
  const skillIds = skills.flatMap((path) => [...(text(path) ?? '').matchAll(/^\s*- id: (r-[0-9a-f]+)$/gm)].map((m) => m[1]!));
  const working: Record<string, string | undefined> = {
    'MEMORY.md': text('MEMORY.md'),
    ...Object.fromEntries(skills.map((path) => [path, text(path)])),
    '.sleep-cycle/state.json': normalState(text('.sleep-cycle/state.json')),
    '.sleep-cycle/lifecycle.jsonl': normalAudit(text('.sleep-cycle/lifecycle.jsonl')),
    'memory/archive.md': text('memory/archive.md'),
  };
  const committed: Record<string, string | undefined> = {
    'MEMORY.md': headText('MEMORY.md'),
    ...Object.fromEntries(skills.map((path) => [path, headText(path)])),
    '.sleep-cycle/state.json': normalState(headText('.sleep-cycle/state.json')),
    '.sleep-cycle/lifecycle.jsonl': normalAudit(headText('.sleep-cycle/lifecycle.jsonl')),
    'memory/archive.md': headText('memory/archive.md'),
    // The night's report reaches git even when its run was killed before the commit.
    'proposed_memory_updates.md': headText('proposed_memory_updates.md'),
  };
  return {
    files: files.filter((path) => !path.endsWith('.tmp')),
    working,
    committed,
    rules: {
      ledger: Object.entries(state.rules ?? {}).map(([id, rule]: [string, any]) => `${id} ${rule.state} ${rule.target}`).sort(),
      quarantine: Object.keys(state.quarantine ?? {}).sort(),
      inFiles: [...memoryIds, ...skillIds].sort(),
    },
    commits: subjects.length,
    // The user's index agrees with HEAD (a kill between update-ref and the index refresh must not leave
    // sleep-cycle's files staged as their old versions).
    staged: staged.toString().trim(),
    strayTemps: files.filter((path) => path.endsWith('.tmp')),
    // Informational (not part of convergence): the report describes the run that wrote it.
    report: text('proposed_memory_updates.md'),
    committedReport: headText('proposed_memory_updates.md'),
    subject: subjects[0],
  };
}
type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** The first differing line of each file, for a readable failure. */
function describeDiff(actual: Snapshot, expected: Snapshot): string[] {
  const out: string[] = [];
  if (JSON.stringify(actual.files) !== JSON.stringify(expected.files)) out.push(`files: ${JSON.stringify(actual.files)} vs ${JSON.stringify(expected.files)}`);
  for (const side of ['working', 'committed'] as const) {
    const paths = new Set([...Object.keys(actual[side]), ...Object.keys(expected[side])]);
    for (const path of paths) {
      const a = actual[side][path];
      const e = expected[side][path];
      if (a === e) continue;
      if (a === undefined || e === undefined) {
        out.push(`${side} ${path}: ${a === undefined ? 'missing' : 'unexpected'}`);
        continue;
      }
      const al = a.split('\n');
      const el = e.split('\n');
      const i = al.findIndex((line, n) => line !== el[n]);
      const at = i === -1 ? el.length : i;
      out.push(`${side} ${path} line ${at + 1}:\n    got:      ${al.slice(at, at + 3).join('\n              ')}\n    expected: ${el.slice(at, at + 3).join('\n              ')}`);
    }
  }
  if (JSON.stringify(actual.rules) !== JSON.stringify(expected.rules)) out.push(`rules: ${JSON.stringify(actual.rules)} vs ${JSON.stringify(expected.rules)}`);
  if (actual.commits !== expected.commits) out.push(`commits: ${actual.commits} vs ${expected.commits}`);
  if (actual.staged !== expected.staged) out.push(`staged: ${JSON.stringify(actual.staged)} vs ${JSON.stringify(expected.staged)}`);
  return out;
}

interface CrashPoint {
  night: number;
  k: number;
  op: string;
  path: string;
  mode: 'before' | 'after' | 'partial';
}
const name = (p: CrashPoint) => `night ${p.night + 1}: ${p.mode} #${p.k} ${p.op} ${p.path}`;

/** Repositories before night 1 and before night 2, and the reference state after each night. */
let before: string[] = [];
let after: string[] = [];
let reference: Snapshot[] = [];
let points: CrashPoint[] = [];
const tally = { killed: 0, converged: 0, strayTemps: 0, reportDiffers: 0, failures: [] as string[], notes: [] as string[] };

async function traceNight(dir: string, night: number): Promise<CrashPoint[]> {
  const trace = join(tempDir('sleep-cycle-trace-'), 'trace.jsonl');
  const run = await crashCli(dir, NIGHTS[night]!.clock, { CRASH_TRACE: trace });
  expect(run.code, run.stderr).toBe(0);
  const ops = readFileSync(trace, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: number; op: string; path: string });
  return ops.flatMap(({ k, op, path }) => {
    const shown = op === 'commitFiles' || op.startsWith('git ') ? path : relative(dir, path);
    const modes = op === 'writeAtomic' ? (['before', 'after', 'partial'] as const) : (['before', 'after'] as const);
    return modes.map((mode) => ({ night, k, op, path: shown, mode }));
  });
}

// Points are enumerated from a traced uninterrupted run at collection time, so vitest can name each one.
const night1 = makeDir({
  'MEMORY.md': '# Memory\n\nHuman text stays byte for byte.\n\n## Derived Rules\n',
  'skills/git.yaml': SKILL,
  'config/safety-rules.yaml': POLICY,
  'config/sleep-cycle.yaml': 'routing:\n  git_push: git\n',
  'logs/telemetry.jsonl': NIGHT_1,
}, { git: true });
const night1Done = copyRepo(night1);
points.push(...(await traceNight(night1Done, 0)));
const night2 = copyRepo(night1Done);
appendFileSync(join(night2, 'logs/telemetry.jsonl'), NIGHT_2);
const night2Done = copyRepo(night2);
points.push(...(await traceNight(night2Done, 1)));
const night3 = copyRepo(night2Done);
appendFileSync(join(night3, 'logs/telemetry.jsonl'), NIGHT_3);
const night3Done = copyRepo(night3);
points.push(...(await traceNight(night3Done, 2)));
const night4 = copyRepo(night3Done);
appendFileSync(join(night4, 'logs/telemetry.jsonl'), NIGHT_4);
const night4Done = copyRepo(night4);
points.push(...(await traceNight(night4Done, 3)));
before = [night1, night2, night3, night4];
after = [night1Done, night2Done, night3Done, night4Done];

beforeAll(async () => {
  reference = await Promise.all([snapshot(night1Done), snapshot(night2Done), snapshot(night3Done), snapshot(night4Done)]);
  // The scenario is what the test claims: both targets, a quarantine, and new rules on night 2.
  expect(reference[0]!.rules.inFiles).toHaveLength(2);
  expect(reference[0]!.rules.quarantine).toHaveLength(1);
  expect(reference[0]!.working['skills/git.yaml']).toMatch(/- id: r-/);
  expect(reference[1]!.rules.inFiles).toHaveLength(4);
  expect(reference[1]!.commits).toBe(3);
  // Night 3 archives (from MEMORY.md and the skill file); night 4 restores one rule from the archive.
  const archivedOn3 = reference[2]!.rules.ledger.filter((line) => line.includes(' archived '));
  expect(archivedOn3.length).toBeGreaterThanOrEqual(2);
  expect(archivedOn3.some((line) => line.endsWith('skill:git'))).toBe(true);
  expect(reference[2]!.committed['memory/archive.md']).toContain('## Archived (');
  const restored = reference[3]!.rules.ledger.filter((line) => !reference[2]!.rules.ledger.includes(line) && line.includes(' active '));
  expect(restored).toHaveLength(1);
  expect(reference[3]!.rules.ledger).toHaveLength(reference[2]!.rules.ledger.length);
});

afterAll(() => {
  console.log(
    `crash safety: ${points.length} crash points, ${tally.killed} killed by SIGKILL, ${tally.converged} converged` +
      ` (${tally.strayTemps} left a stray *.tmp file next to the target; ${tally.reportDiffers} left a different proposed_memory_updates.md)` +
      (tally.notes.length > 0 ? `\n${tally.notes.sort().join('\n')}` : '') +
      (tally.failures.length > 0 ? `\n${tally.failures.join('\n')}` : ''),
  );
});

/** Points that do not converge today: kept strict, listed so they are fixed rather than forgotten. */
const KNOWN_DEFECTS = new Set<string>([]);

async function crashAndRecover(point: CrashPoint): Promise<void> {
  const dir = await copyRepoAsync(before[point.night]!);
  try {
    const targetBefore = point.op === 'writeAtomic' ? readOrNull(join(dir, point.path)) : null;
    const crashed = await crashCli(dir, NIGHTS[point.night]!.clock, { CRASH_AT: `${point.k}:${point.mode}` });
    expect(crashed.signal, `expected SIGKILL, got code ${crashed.code}: ${crashed.stderr}`).toBe('SIGKILL');
    tally.killed += 1;
    if (point.op === 'writeAtomic' && point.mode !== 'after') {
      // Temp file + rename: a write that died half way leaves the target exactly as it was.
      expect(readOrNull(join(dir, point.path))).toBe(targetBefore);
    } else if (point.op === 'writeAtomic') {
      // The hook fired at the intended write: the target holds what the uninterrupted run wrote (same clock).
      expect(readOrNull(join(dir, point.path))).toBe(readOrNull(join(after[point.night]!, point.path)));
    }
    // The normal re-run: nothing is killed, so a process of its own would add only its start-up.
    const recovered = await rerun(dir, NIGHTS[point.night]!.clock);
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    const got = await snapshot(dir);
    const want = reference[point.night]!;
    if (got.strayTemps.length > 0) tally.strayTemps += 1;
    expect(got.strayTemps, 'temp files a killed write left behind are cleaned up by the re-run').toEqual([]);
    if (got.report !== want.report) tally.reportDiffers += 1;
    const notes = [
      got.strayTemps.length > 0 ? `stray ${got.strayTemps.join(', ')}` : '',
      got.committedReport !== want.committedReport ? 'committed report differs' : '',
      got.subject !== want.subject ? `last commit "${got.subject}" (reference "${want.subject}")` : '',
    ].filter(Boolean);
    if (notes.length > 0) tally.notes.push(`  ${name(point)}: ${notes.join('; ')}`);
    const diff = describeDiff(got, want);
    if (diff.length > 0) tally.failures.push(`NOT CONVERGED ${name(point)}\n  ${diff.join('\n  ')}`);
    // No duplicated rule: every id once across MEMORY.md and the skill files.
    expect(new Set(got.rules.inFiles).size).toBe(got.rules.inFiles.length);
    expect({ files: got.files, working: got.working, committed: got.committed, rules: got.rules, commits: got.commits, staged: got.staged }).toEqual({
      files: want.files, working: want.working, committed: want.committed, rules: want.rules, commits: want.commits, staged: want.staged,
    });
    tally.converged += 1;
  } finally {
    removeTempDir(dir);
  }
}

function readOrNull(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

describe('crash safety: SIGKILL before/after every effect of a run, then a normal re-run', () => {
  it('has at least 20 crash points', () => {
    expect(points.filter((p) => !KNOWN_DEFECTS.has(name(p))).length).toBeGreaterThanOrEqual(20);
  });
  it.concurrent.each(points.filter((p) => !KNOWN_DEFECTS.has(name(p))).map((p) => [name(p), p] as const))('%s', async (_name, point) => {
    await crashAndRecover(point);
  });
});

const known = points.filter((p) => KNOWN_DEFECTS.has(name(p)));
// Only when a crash point is known not to converge (an empty describe is an error in vitest).
if (known.length > 0) describe('known defects', () => {
  it.concurrent.each(known.map((p) => [name(p), p] as const))('%s', async (_name, point) => {
    await crashAndRecover(point);
  });
});
