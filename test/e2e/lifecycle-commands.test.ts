import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';

/**
 * The lifecycle commands as a user meets them: list, stats, decay, touch, pin, unpin, restore, --now and
 * SLEEP_CYCLE_NOW, the decay_* settings, and a returning failure restoring its archived rule.
 *
 * Dates, with the default settings (grace 28 d, half-life 30 d power-law, TTL 90 d, both stretched by
 * importance). The rule of failures(3, {}) has 3 events in 3 sessions, so its importance is
 * 1 + 0.25·log2(3) ≈ 1.396: a grace period of ≈ 39.1 days and a TTL of ≈ 125.7 days.
 * - T0 + 100 days: weight (1 + 3·60.9/30)^-0.5 ≈ 0.3755, below decaying_threshold 0.5, within the TTL: decaying.
 * - T0 + 200 days: weight (1 + 3·160.9/30)^-0.5 ≈ 0.2418, above archive_threshold 0.1, past the TTL: archived.
 */
const T0 = '2026-11-21T03:00:00Z';
const D100 = '2027-03-01T03:00:00Z';
const D101 = '2027-03-02T03:00:00Z';
const D200 = '2027-06-09T03:00:00Z';
const D201 = '2027-06-10T03:00:00Z';
const D2Y = '2028-11-20T03:00:00Z';
const iso = (text: string) => new Date(text).toISOString();

const HEAD_PART = '# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n';
const TAIL_PART = '\n## Later section\n\nAlso human.\n';
const MEMORY = `${HEAD_PART}${TAIL_PART}`;

const STATE = '.sleep-cycle/state.json';
const AUDIT = '.sleep-cycle/lifecycle.jsonl';
const ARCHIVE = 'memory/archive.md';

/** A git repo whose first run wrote one rule (git_push/git_error, 3 failures) at T0. */
async function withRule(options: { git?: boolean } = { git: true }) {
  const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, options);
  const run = await cli(dir, ['run'], T0);
  expect(run.code, JSON.stringify(run.json.error)).toBe(0);
  expect(run.json.data.proposals).toHaveLength(1);
  const proposal = run.json.data.proposals[0];
  expect(proposal.status).toBe('applied');
  const memory = read(dir, 'MEMORY.md');
  const bullet = memory.split('\n').find((line) => line.includes(`<!-- rule:${proposal.id} -->`));
  expect(bullet).toBeDefined();
  return { dir, id: proposal.id as string, text: proposal.text as string, memory, bullet: bullet!, clusterId: proposal.cluster_id as string };
}

/** withRule, then `decay --now T0+200d`, which archives the rule. */
async function withArchivedRule() {
  const setup = await withRule();
  const decay = await cli(setup.dir, ['decay', '--now', D200], D200);
  expect(decay.code, JSON.stringify(decay.json.error)).toBe(0);
  expect(state(setup.dir).rules[setup.id].state).toBe('archived');
  return { ...setup, decay };
}

function state(dir: string): any {
  return JSON.parse(read(dir, STATE));
}

function audit(dir: string): any[] {
  return read(dir, AUDIT).trim().split('\n').map((line) => JSON.parse(line));
}

function bytes(dir: string, path: string): Buffer | null {
  return existsSync(join(dir, path)) ? readFileSync(join(dir, path)) : null;
}

/** Every file sleep-cycle owns (the report excepted), byte for byte. */
function snapshot(dir: string) {
  return { memory: bytes(dir, 'MEMORY.md'), state: bytes(dir, STATE), audit: bytes(dir, AUDIT), archive: bytes(dir, ARCHIVE) };
}

function headFile(dir: string, path: string): string {
  return git(dir, 'show', `HEAD:${path}`);
}

describe('list', () => {
  it('shows each rule with weight, state, status, target and dates; --now previews decay without writing', async () => {
    const { dir, id, text } = await withRule();
    const now = await cli(dir, ['list'], T0);
    expect(now.code).toBe(0);
    expect(now.json.data.now).toBe(iso(T0));
    expect(now.json.data.rules).toEqual([
      expect.objectContaining({
        id, text, weight: 1, state: 'active', status: 'active', pinned: false, target: 'memory', tool_name: 'git_push', error_category: 'git_error',
        created: iso(T0), last_reinforced: iso(T0), last_accessed: null, due: null,
      }),
    ]);

    const before = snapshot(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    const later = await cli(dir, ['list', '--now', D200], T0);
    expect(later.code).toBe(0);
    expect(later.json.data.now).toBe(iso(D200));
    const [row] = later.json.data.rules;
    expect(row.weight).toBeLessThan(1);
    expect(row.weight).toBeCloseTo(0.2418, 3);
    // The stored state is shown as it is; what a run at that date would do is in `due`.
    expect(row.state).toBe('active');
    expect(row.due).toMatch(/^active → archived: not reinforced for 200 days \(TTL 126 days\)$/);
    const decaying = (await cli(dir, ['list', '--now', D100], T0)).json.data.rules[0];
    expect(decaying.weight).toBeCloseTo(0.3755, 3);
    expect(decaying.due).toMatch(/^active → decaying: weight 0\.38 below decaying_threshold 0\.5 \(100 days since last reinforced\)$/);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, ARCHIVE))).toBe(false);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('--state filters (repeatable or comma-separated) and an unknown state is a usage error', async () => {
    const { dir, id } = await withRule();
    expect((await cli(dir, ['list', '--state', 'archived'])).json.data.rules).toEqual([]);
    expect((await cli(dir, ['list', '--state', 'active'])).json.data.rules.map((r: any) => r.id)).toEqual([id]);
    expect((await cli(dir, ['list', '--state', 'archived,active'])).json.data.rules.map((r: any) => r.id)).toEqual([id]);
    expect((await cli(dir, ['list', '--state', 'pinned', '--state', 'active'])).json.data.rules.map((r: any) => r.id)).toEqual([id]);
    await cli(dir, ['decay', '--now', D200], D200);
    expect((await cli(dir, ['list', '--state', 'archived'])).json.data.rules.map((r: any) => r.id)).toEqual([id]);
    expect((await cli(dir, ['list', '--state', 'active'])).json.data.rules).toEqual([]);

    const bogus = await cli(dir, ['list', '--state', 'bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.json.success).toBe(false);
    expect(bogus.json.error.code).toBe('E_USAGE');
    expect(bogus.json.error.message).toContain('"bogus"');
    expect(bogus.json.error.message).toContain('active, decaying, pinned, archived, expired');
  });
});

describe('decay', () => {
  it('--dry-run changes nothing but the report', async () => {
    const { dir, id } = await withRule();
    const before = snapshot(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    const dry = await cli(dir, ['decay', '--dry-run', '--now', D200], D200);
    expect(dry.code).toBe(0);
    expect(dry.json.data.dry_run).toBe(true);
    expect(dry.json.data.commit).toBeNull();
    expect(dry.json.data.written).toEqual(['proposed_memory_updates.md']);
    expect(dry.json.data.lifecycle.changes).toEqual([expect.objectContaining({ rule: id, field: 'state', from: 'active', to: 'archived' })]);
    expect(read(dir, 'proposed_memory_updates.md')).toContain(id);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, ARCHIVE))).toBe(false);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'status', '--porcelain').trim()).toBe('M proposed_memory_updates.md');
  });

  it('archives a rule past its TTL: out of MEMORY.md, into memory/archive.md, audited and committed', async () => {
    const { dir, id, text, bullet } = await withRule();
    // A human's uncommitted note in MEMORY.md must survive in the working tree and stay out of the commit.
    appendFileSync(join(dir, 'MEMORY.md'), 'Uncommitted human note.\n');
    const decay = await cli(dir, ['decay', '--now', D200], D200);
    expect(decay.code, JSON.stringify(decay.json.error)).toBe(0);
    expect(decay.json.data.lines.read).toBe(0);
    expect(decay.json.data.lifecycle.changes).toEqual([
      expect.objectContaining({ rule: id, field: 'state', from: 'active', to: 'archived', reason: 'not reinforced for 200 days (TTL 126 days)' }),
    ]);

    const memory = read(dir, 'MEMORY.md');
    expect(memory).not.toContain(id);
    expect(memory).not.toContain(bullet);
    expect(memory.startsWith(HEAD_PART)).toBe(true);
    expect(memory.endsWith(`${TAIL_PART}Uncommitted human note.\n`)).toBe(true);
    // Nothing but the rule's bullet (and blank lines around it) left the file.
    expect(memory.replace(/\n+/g, '\n')).toBe(`${MEMORY}Uncommitted human note.\n`.replace(/\n+/g, '\n'));

    const archive = read(dir, ARCHIVE);
    expect(archive).toContain('## Archived (1)');
    expect(archive).toContain(`- \`${id}\` ${text}`);
    expect(archive).toContain('not reinforced for 200 days (TTL 126 days)');

    const rule = state(dir).rules[id];
    expect(rule).toMatchObject({ state: 'archived', state_since: iso(D200), archive_reason: 'not reinforced for 200 days (TTL 126 days)', last_reinforced: iso(T0) });
    expect(audit(dir).at(-1)).toMatchObject({ rule: id, from: 'active', to: 'archived', time: iso(D200), run: decay.json.data.run_id, since: iso(T0) });

    expect(decay.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(decay.json.data.commit);
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('sleep-cycle: no new rules, 1 archived (2027-06-09)');
    const committed = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    expect(committed).toEqual([AUDIT, STATE, 'MEMORY.md', ARCHIVE, 'proposed_memory_updates.md'].sort());
    const headMemory = headFile(dir, 'MEMORY.md');
    expect(headMemory).not.toContain(id);
    expect(headMemory).not.toContain('Uncommitted human note.');
    expect(headMemory.startsWith(HEAD_PART) && headMemory.endsWith(TAIL_PART)).toBe(true);
    expect(headFile(dir, ARCHIVE)).toBe(archive);
    expect(headFile(dir, STATE)).toBe(read(dir, STATE));
    expect(git(dir, 'status', '--porcelain').trim()).toBe('M MEMORY.md');
    expect(git(dir, 'diff', 'MEMORY.md')).toContain('+Uncommitted human note.');

    // The same evaluation again changes nothing and commits nothing.
    const again = await cli(dir, ['decay', '--now', D200], D200);
    expect(again.json.data.lifecycle.changes).toEqual([]);
    expect(again.json.data.commit).toBeNull();
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(decay.json.data.commit);
  });
});

describe('restore', () => {
  it('brings an archived rule back with the same text; the next run commits it; restoring an active rule is refused', async () => {
    const { dir, id, text, memory: memoryWithRule, bullet } = await withArchivedRule();
    const archivedState = state(dir).rules[id];
    const restore = await cli(dir, ['restore', id], D201);
    expect(restore.code, JSON.stringify(restore.json.error)).toBe(0);
    expect(restore.json.data).toMatchObject({ action: 'restore', id, state: 'active' });
    expect(restore.json.data.written).toEqual(expect.arrayContaining(['MEMORY.md', ARCHIVE, STATE, AUDIT]));
    expect(restore.json.data.events).toEqual([expect.objectContaining({ rule: id, from: 'archived', to: 'active', reason: 'restored by hand', time: iso(D201) })]);

    const memory = read(dir, 'MEMORY.md');
    expect(memory).toContain(bullet);
    expect(memory.split(`<!-- rule:${id} -->`)).toHaveLength(2);
    // Same bytes as before the archival.
    expect(memory).toBe(memoryWithRule);
    const archive = read(dir, ARCHIVE);
    expect(archive).toContain('## Archived (0)');
    expect(archive).not.toContain(id);
    const rule = state(dir).rules[id];
    expect(rule).toMatchObject({ state: 'active', text, last_reinforced: iso(D201), state_since: iso(D201), archive_reason: null });
    expect(rule.created).toBe(archivedState.created);
    expect(audit(dir).at(-1)).toMatchObject({ rule: id, from: 'archived', to: 'active', since: iso(D200) });
    // Restored = reinforced today: full weight, nothing due.
    expect((await cli(dir, ['list'], D201)).json.data.rules[0]).toMatchObject({ state: 'active', weight: 1, due: null });

    // A manual action writes files without committing them; the next run commits them.
    expect(headFile(dir, 'MEMORY.md')).not.toContain(id);
    const next = await cli(dir, ['decay', '--now', D201], D201);
    expect(next.json.data.lifecycle.changes).toEqual([]);
    expect(next.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(headFile(dir, 'MEMORY.md')).toBe(memory);
    expect(headFile(dir, ARCHIVE)).not.toContain(id);

    const refused = await cli(dir, ['restore', id], D201);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('E_USAGE');
    expect(refused.json.error.message).toContain(`${id} is active`);
    expect(refused.json.error.message).toContain('only an archived or expired rule can be restored');
  });
});

describe('pin and unpin', () => {
  it('a pinned rule survives any decay; unpin makes it active and decaying again from that day; pinning twice is refused', async () => {
    const { dir, id, bullet } = await withRule();
    const pin = await cli(dir, ['pin', id], T0);
    expect(pin.code, JSON.stringify(pin.json.error)).toBe(0);
    expect(pin.json.data).toMatchObject({ action: 'pin', id, state: 'pinned' });
    expect(state(dir).rules[id]).toMatchObject({ state: 'pinned', pinned: true, pinned_from: 'active' });
    expect(audit(dir).at(-1)).toMatchObject({ rule: id, from: 'active', to: 'pinned' });

    const twice = await cli(dir, ['pin', id], T0);
    expect(twice.code).toBe(2);
    expect(twice.json.error.code).toBe('E_USAGE');
    expect(twice.json.error.message).toContain('already pinned');

    expect((await cli(dir, ['list', '--now', D2Y])).json.data.rules[0]).toMatchObject({ state: 'pinned', pinned: true, weight: 1, due: null });
    const decay = await cli(dir, ['decay', '--now', D2Y], D2Y);
    expect(decay.code).toBe(0);
    expect(decay.json.data.lifecycle.changes.filter((c: any) => c.field === 'state')).toEqual([]);
    expect(read(dir, 'MEMORY.md')).toContain(bullet);
    expect(headFile(dir, 'MEMORY.md')).toContain(bullet);
    expect(state(dir).rules[id].state).toBe('pinned');

    const unpin = await cli(dir, ['unpin', id], D2Y);
    expect(unpin.code).toBe(0);
    expect(unpin.json.data).toMatchObject({ action: 'unpin', state: 'active' });
    expect(state(dir).rules[id]).toMatchObject({ state: 'active', pinned: false, last_reinforced: iso(D2Y) });
    const unpinAgain = await cli(dir, ['unpin', id], D2Y);
    expect(unpinAgain.code).toBe(2);
    expect(unpinAgain.json.error.message).toContain(`${id} is active, not pinned`);
    // It decays again, from the day it was unpinned: full weight now, archived after another TTL.
    expect((await cli(dir, ['list', '--now', D2Y])).json.data.rules[0]).toMatchObject({ weight: 1, due: null });
    expect((await cli(dir, ['list', '--now', '2029-06-08T03:00:00Z'])).json.data.rules[0].due).toMatch(/^active → archived/);
  });

  it('pinning an archived rule brings it back into MEMORY.md', async () => {
    const { dir, id, bullet } = await withArchivedRule();
    expect(read(dir, 'MEMORY.md')).not.toContain(id);
    const pin = await cli(dir, ['pin', id], D201);
    expect(pin.code, JSON.stringify(pin.json.error)).toBe(0);
    expect(pin.json.data.summary).toContain('back in memory');
    expect(read(dir, 'MEMORY.md')).toContain(bullet);
    expect(read(dir, ARCHIVE)).toContain('## Archived (0)');
    expect(read(dir, ARCHIVE)).not.toContain(id);
    expect(state(dir).rules[id]).toMatchObject({ state: 'pinned', pinned: true, pinned_from: 'archived', archive_reason: null });
    expect(audit(dir).at(-1)).toMatchObject({ rule: id, from: 'archived', to: 'pinned' });
    const later = await cli(dir, ['decay', '--now', D2Y], D2Y);
    expect(later.json.data.lifecycle.changes.filter((c: any) => c.field === 'state')).toEqual([]);
    expect(headFile(dir, 'MEMORY.md')).toContain(bullet);
  });
});

describe('touch', () => {
  it('moves a decaying rule back to active and starts its decay over; an archived rule cannot be touched', async () => {
    const { dir, id, bullet } = await withRule();
    const decay = await cli(dir, ['decay', '--now', D100], D100);
    expect(decay.json.data.lifecycle.changes).toEqual([expect.objectContaining({ rule: id, from: 'active', to: 'decaying' })]);
    expect(state(dir).rules[id].state).toBe('decaying');
    // Decaying rules stay in memory.
    expect(read(dir, 'MEMORY.md')).toContain(bullet);
    expect(headFile(dir, 'MEMORY.md')).toContain(bullet);
    expect((await cli(dir, ['list', '--state', 'decaying'], D100)).json.data.rules[0].weight).toBeCloseTo(0.3755, 3);
    const D131 = '2027-04-01T03:00:00Z';
    const untouched = (await cli(dir, ['list', '--now', D131], D100)).json.data.rules[0];
    expect(untouched.due).toBe('decaying → archived: not reinforced for 131 days (TTL 126 days)');

    const touch = await cli(dir, ['touch', id], D101);
    expect(touch.code, JSON.stringify(touch.json.error)).toBe(0);
    expect(touch.json.data).toMatchObject({ action: 'touch', id, state: 'active' });
    expect(touch.json.data.events).toEqual([expect.objectContaining({ rule: id, from: 'decaying', to: 'active', time: iso(D101) })]);
    expect(state(dir).rules[id]).toMatchObject({ state: 'active', last_reinforced: iso(D101), last_accessed: iso(D101), accesses: 1 });
    expect((await cli(dir, ['list'], D101)).json.data.rules[0]).toMatchObject({ state: 'active', weight: 1, due: null, last_reinforced: iso(D101) });
    // Without the touch it would be archived 30 days later; reinforced on day 101 it is inside a new grace period then.
    expect((await cli(dir, ['list', '--now', D131], D101)).json.data.rules[0]).toMatchObject({ weight: 1, due: null });

    // Touching an active rule reinforces it without a state change.
    const plain = await cli(dir, ['touch', id], D200);
    expect(plain.code).toBe(0);
    expect(plain.json.data.events).toEqual([]);
    expect(state(dir).rules[id]).toMatchObject({ state: 'active', last_reinforced: iso(D200), accesses: 2 });

    await cli(dir, ['decay', '--now', D2Y], D2Y);
    expect(state(dir).rules[id].state).toBe('archived');
    const refused = await cli(dir, ['touch', id], D2Y);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('E_USAGE');
    expect(refused.json.error.message).toContain(`${id} is archived`);
    expect(refused.json.error.message).toContain(`sleep-cycle restore ${id}`);
  });
});

describe('unknown ids', () => {
  it('every rule action refuses an unknown id, names the known ones, and writes nothing', async () => {
    const { dir, id } = await withRule();
    const before = snapshot(dir);
    for (const action of ['pin', 'unpin', 'touch', 'restore']) {
      const result = await cli(dir, [action, 'r-ffffff']);
      expect(result.code, action).toBe(2);
      expect(result.json.error.code, action).toBe('E_USAGE');
      expect(result.json.error.message, action).toContain('no rule with id "r-ffffff"');
      expect(result.json.error.message, action).toContain(`Known: ${id}`);
    }
    const close = await cli(dir, ['pin', id.slice(0, 5)]);
    expect(close.code).toBe(2);
    expect(close.json.error.message).toContain(`Close matches: ${id}`);
    // A typo (one hex digit wrong) is a close match too.
    const typo = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
    expect((await cli(dir, ['touch', typo])).json.error.message).toContain(`Close matches: ${id}`);
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, '.sleep-cycle/lock'))).toBe(false);
  });
});

describe('observation never reinforces', () => {
  it('list, explain, status, stats and dry runs leave the ledger byte-identical', async () => {
    const { dir, id } = await withRule();
    const before = snapshot(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    const observe: [string[], string][] = [
      [['list'], D100],
      [['list', '--now', D200], T0],
      [['explain', id], D100],
      [['status'], D100],
      [['stats'], D100],
      [['stats', '--now', D200], D100],
      [['run', '--dry-run'], D100],
      [['run', '--dry-run', '--now', D200], D100],
      [['decay', '--dry-run', '--now', D200], D100],
    ];
    for (const [args, clock] of observe) {
      const result = await cli(dir, args, clock);
      expect(result.code, args.join(' ')).toBe(0);
      expect(snapshot(dir), args.join(' ')).toEqual(before);
    }
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    // Still as unreinforced as after the first run: the same archival is due at T0+200.
    const row = (await cli(dir, ['list', '--now', D200])).json.data.rules[0];
    expect(row).toMatchObject({ last_reinforced: iso(T0), last_accessed: null });
    expect(row.due).toMatch(/not reinforced for 200 days/);
  });
});

describe('settings and the clock', () => {
  it('a bad decay_function from the environment fails with E_CONFIG naming the variable, before anything is written', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    const run = await cli(dir, ['run'], T0, { SLEEP_CYCLE_DECAY_FUNCTION: 'bogus' });
    expect(run.code).toBe(2);
    expect(run.json.error.code).toBe('E_CONFIG');
    expect(run.json.error.message).toContain('SLEEP_CYCLE_DECAY_FUNCTION');
    expect(run.json.error.message).toContain('power-law, exponential, linear, step');
    expect(run.json.error.message).toContain('bogus');
    expect(existsSync(join(dir, '.sleep-cycle'))).toBe(false);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    expect((await cli(dir, ['list'], T0, { SLEEP_CYCLE_DECAY_FUNCTION: 'bogus' })).json.error.code).toBe('E_CONFIG');
  });

  it('archive_threshold at or above decaying_threshold is refused', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    for (const value of ['0.6', '0.5']) {
      const run = await cli(dir, ['run'], T0, { SLEEP_CYCLE_ARCHIVE_THRESHOLD: value });
      expect(run.code, value).toBe(2);
      expect(run.json.error.code, value).toBe('E_CONFIG');
      expect(run.json.error.message, value).toContain('SLEEP_CYCLE_ARCHIVE_THRESHOLD');
      expect(run.json.error.message, value).toContain('below decaying_threshold (0.5)');
    }
    expect((await cli(dir, ['decay'], T0, { SLEEP_CYCLE_ARCHIVE_THRESHOLD: '1.5' })).json.error.code).toBe('E_CONFIG');
    expect(existsSync(join(dir, '.sleep-cycle'))).toBe(false);
    // Below it is fine.
    expect((await cli(dir, ['run', '--dry-run'], T0, { SLEEP_CYCLE_ARCHIVE_THRESHOLD: '0.4' })).code).toBe(0);
  });

  it('an exponential curve with no grace halves the weight every half-life', async () => {
    const { dir, id } = await withRule();
    const env = { SLEEP_CYCLE_DECAY_FUNCTION: 'exponential', SLEEP_CYCLE_DECAY_GRACE_DAYS: '0', SLEEP_CYCLE_DECAY_HALF_LIFE_DAYS: '10' };
    const plus10 = '2026-12-01T03:00:00Z';
    const plus20 = '2026-12-11T03:00:00Z';
    const plus5 = '2026-11-26T03:00:00Z';
    expect((await cli(dir, ['list', '--now', plus10], T0, env)).json.data.rules[0]).toMatchObject({ id, weight: 0.5, due: null });
    expect((await cli(dir, ['list', '--now', plus5], T0, env)).json.data.rules[0].weight).toBeCloseTo(Math.SQRT1_2, 3);
    const twenty = (await cli(dir, ['list', '--now', plus20], T0, env)).json.data.rules[0];
    expect(twenty.weight).toBe(0.25);
    expect(twenty.due).toBe('active → decaying: weight 0.25 below decaying_threshold 0.5 (20 days since last reinforced)');
    // Under the defaults the same date is still inside the grace period.
    expect((await cli(dir, ['list', '--now', plus10], T0)).json.data.rules[0].weight).toBe(1);
  });

  it('--now must be an ISO date; SLEEP_CYCLE_NOW is honoured and --now wins over it', async () => {
    const { dir } = await withRule();
    // Impossible calendar dates are refused too (Date.parse would roll 2027-02-30 over to March 2).
    for (const args of [['list', '--now', 'not-a-date'], ['decay', '--now', 'not-a-date'], ['run', '--dry-run', '--now', 'not-a-date'], ['stats', '--now', 'yesterday'], ['list', '--now', '2027-02-30'], ['pin', 'r-000000', '--now', '2027-04-31']]) {
      const bad = await cli(dir, args);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.json.error.code, args.join(' ')).toBe('E_USAGE');
      expect(bad.json.error.message, args.join(' ')).toContain('--now must be an ISO-8601 date');
    }
    // A time without an offset is UTC on every machine, like a date alone.
    expect((await cli(dir, ['list', '--now', '2027-06-09T03:00'], T0)).json.data.now).toBe('2027-06-09T03:00:00.000Z');
    const badEnv = await cli(dir, ['list'], T0, { SLEEP_CYCLE_NOW: 'soon' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.json.error.message).toContain('SLEEP_CYCLE_NOW must be an ISO-8601 date');

    const env = await cli(dir, ['list'], T0, { SLEEP_CYCLE_NOW: D200 });
    expect(env.code).toBe(0);
    expect(env.json.data.now).toBe(iso(D200));
    expect(env.json.data.rules[0].due).toMatch(/^active → archived/);
    const dateOnly = await cli(dir, ['list'], T0, { SLEEP_CYCLE_NOW: '2027-06-09' });
    expect(dateOnly.json.data.now).toBe('2027-06-09T00:00:00.000Z');
    const flagWins = await cli(dir, ['list', '--now', D100], T0, { SLEEP_CYCLE_NOW: D200 });
    expect(flagWins.json.data.now).toBe(iso(D100));
    expect(flagWins.json.data.rules[0].due).toMatch(/^active → decaying/);
  });

  it('SLEEP_CYCLE_NOW also sets the time of decay and of a manual action', async () => {
    const { dir, id } = await withRule();
    const decay = await cli(dir, ['decay'], T0, { SLEEP_CYCLE_NOW: D100 });
    expect(decay.json.data.run_id).toBe('run-20270301T030000');
    expect(state(dir).rules[id]).toMatchObject({ state: 'decaying', state_since: iso(D100) });
    await cli(dir, ['touch', id], T0, { SLEEP_CYCLE_NOW: D101 });
    expect(state(dir).rules[id]).toMatchObject({ state: 'active', last_reinforced: iso(D101) });
  });
});

describe('a returning failure', () => {
  it('restores its archived rule instead of writing a new one, and stats counts every step', async () => {
    const { dir, id, clusterId, bullet, decay } = await withArchivedRule();
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { timestamp: '2027-06-09T10:00:00.000Z' })));
    const night = '2027-06-09T23:00:00Z';
    const run = await cli(dir, ['run', '--now', night], night);
    expect(run.code, JSON.stringify(run.json.error)).toBe(0);
    expect(run.json.data.lines).toMatchObject({ read: 3, valid: 3 });
    expect(run.json.data.proposals).toEqual([]);
    expect(run.json.data.clusters).toEqual([expect.objectContaining({ id: clusterId, outcome: 'restored', promoted: false })]);
    expect(run.json.data.lifecycle.changes).toEqual([expect.objectContaining({ rule: id, field: 'state', from: 'archived', to: 'active' })]);
    expect(run.json.data.lifecycle.changes[0].reason).toContain('recurred (3 times)');

    const ledger = state(dir);
    expect(Object.keys(ledger.rules)).toEqual([id]);
    expect(ledger.rules[id]).toMatchObject({ state: 'active', hits: 3, cluster_id: clusterId, last_reinforced: iso(night), archive_reason: null });
    const memory = read(dir, 'MEMORY.md');
    expect(memory.split('<!-- rule:')).toHaveLength(2);
    expect(memory).toContain(bullet);
    expect(read(dir, ARCHIVE)).toContain('## Archived (0)');
    expect(headFile(dir, 'MEMORY.md')).toContain(bullet);
    expect(headFile(dir, ARCHIVE)).not.toContain(id);
    expect(audit(dir).map((e: any) => `${e.from}->${e.to}`)).toEqual(['none->active', 'active->archived', 'archived->active']);

    const stats = await cli(dir, ['stats'], night);
    expect(stats.code).toBe(0);
    expect(stats.json.data).toMatchObject({
      rules: 1,
      by_state: { active: 1, decaying: 0, pinned: 0, archived: 0, expired: 0, deleted: 0, rejected: 0 },
      by_status: { active: 1, validated: 0, refined: 0, invalidated: 0 },
      archive: { entries: 0 },
      average_lifespan_days: 200,
    });
    expect(stats.json.data.runs).toEqual([
      { run: 'run-20261121T030000', time: iso(T0), added: 1, archived: 0, restored: 0 },
      { run: decay.json.data.run_id, time: iso(D200), added: 0, archived: 1, restored: 0 },
      { run: run.json.data.run_id, time: iso(night), added: 0, archived: 0, restored: 1 },
    ]);
    expect(stats.json.data.archive.bytes).toBe(Buffer.byteLength(read(dir, ARCHIVE)));
  });

  it('stats after archive, pin and restore by hand', async () => {
    const { dir, id } = await withArchivedRule();
    // A second rule, for another tool, written at T0+200 and left alone.
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet.', timestamp: '2027-06-09T01:00:00.000Z' })));
    const second = await cli(dir, ['run', '--now', '2027-06-09T05:00:00Z'], '2027-06-09T05:00:00Z');
    expect(second.json.data.proposals).toHaveLength(1);
    const other = second.json.data.proposals[0].id;
    expect(other).not.toBe(id);
    await cli(dir, ['pin', other], '2027-06-09T06:00:00Z');

    const archivedStats = (await cli(dir, ['stats'], '2027-06-09T06:00:00Z')).json.data;
    expect(archivedStats.by_state).toMatchObject({ active: 0, pinned: 1, archived: 1 });
    expect(archivedStats.archive.entries).toBe(1);
    expect(archivedStats.archive.bytes).toBe(Buffer.byteLength(read(dir, ARCHIVE)));

    const restore = await cli(dir, ['restore', id], D201);
    expect(restore.code).toBe(0);
    const stats = (await cli(dir, ['stats'], D201)).json.data;
    expect(stats.rules).toBe(2);
    expect(stats.by_state).toMatchObject({ active: 1, pinned: 1, archived: 0 });
    expect(stats.by_status).toMatchObject({ active: 1, validated: 1 });
    expect(stats.archive.entries).toBe(0);
    expect(stats.runs.map((r: any) => [r.added, r.archived, r.restored])).toEqual([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]]);
    expect(stats.runs.at(-1).time).toBe(iso(D201));
  });
});

describe('MEMORY.md bytes across archive/restore cycles', () => {
  /**
   * Regression: addRules used to insert a blank line after the heading of an empty section while
   * removeRules took out only the bullet, so every archive → restore cycle left one more blank line, and
   * after a manual restore the next archival left MEMORY.md differing from the commit it had just made.
   */
  it('an archive → restore → archive cycle leaves MEMORY.md as the first archival did, and clean against HEAD', async () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const id = (await cli(dir, ['run'], T0)).json.data.proposals[0].id;
    const withRule = read(dir, 'MEMORY.md');
    await cli(dir, ['decay', '--now', D200], D200);
    const firstArchival = read(dir, 'MEMORY.md');
    expect(firstArchival).not.toContain(id);
    await cli(dir, ['restore', id], D201);
    const restored = read(dir, 'MEMORY.md');
    const later = '2028-06-09T03:00:00Z';
    const second = await cli(dir, ['decay', '--now', later], later);
    expect(second.json.data.lifecycle.changes).toEqual([expect.objectContaining({ rule: id, from: 'active', to: 'archived' })]);
    expect(git(dir, 'status', '--porcelain')).not.toContain('MEMORY.md');
    expect(restored).toBe(withRule);
    expect(read(dir, 'MEMORY.md')).toBe(firstArchival);
  });
});
