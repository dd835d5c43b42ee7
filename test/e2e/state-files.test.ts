import { appendFileSync, chmodSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { event, failures, git, lines, makeDir, read } from '../helpers/repo.js';

const STATE = '.sleep-cycle/state.json';
const TELEMETRY = 'logs/telemetry.jsonl';

const modeOf = (dir: string, path: string) => statSync(join(dir, path)).mode & 0o777;

describe('file modes survive a run', () => {
  it('a 600 MEMORY.md and a 640 state.json keep their modes; files the run creates get the default', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {})), 'MEMORY.md': '# Memory\n' }, { git: true });
    const first = await cli(dir, ['run']);
    expect(first.code).toBe(0);
    expect(modeOf(dir, STATE)).toBe(0o666 & ~process.umask());
    chmodSync(join(dir, 'MEMORY.md'), 0o600);
    chmodSync(join(dir, STATE), 0o640);
    // A second night that changes both files: a new failure pattern (a rule) and the cursor.
    appendFileSync(join(dir, TELEMETRY), lines(...failures(3, { tool_name: 'npm_test', error_category: 'test_error', error_message: 'Error: Cannot find module jest', timestamp: '2026-11-21T10:00:00.000Z' })));
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(second.code).toBe(0);
    const added = second.json.data.proposals.find((p: { status: string }) => p.status === 'applied');
    expect(read(dir, 'MEMORY.md')).toContain(added.id);
    expect(JSON.parse(read(dir, STATE)).rules[added.id].state).toBe('active');
    expect(modeOf(dir, 'MEMORY.md')).toBe(0o600);
    expect(modeOf(dir, STATE)).toBe(0o640);
  });
});

describe('rotated copies are read in logrotate order', () => {
  /** Night 1 read two lines; then one more line, and three rotations before the next run: .3 holds the cursor. */
  function rotatedThrice(dir: string): void {
    const log = join(dir, TELEMETRY);
    appendFileSync(log, lines(event({ timestamp: '2026-11-20T11:00:00.000Z' })));
    renameSync(log, `${log}.3`);
    writeFileSync(`${log}.2`, lines(event({ timestamp: '2026-11-21T09:00:00.000Z' }), event({ timestamp: '2026-11-21T09:01:00.000Z' })));
    writeFileSync(`${log}.1`, lines(event({ timestamp: '2026-11-22T09:00:00.000Z' }), event({ timestamp: '2026-11-22T09:01:00.000Z' })));
    writeFileSync(log, lines(event({ timestamp: '2026-11-23T09:00:00.000Z' })));
    const at = (path: string, iso: string) => utimesSync(path, new Date(iso), new Date(iso));
    at(`${log}.2`, '2026-11-21T23:00:00Z');
    at(`${log}.1`, '2026-11-22T23:00:00Z');
    return void at(`${log}.3`, '2026-11-20T23:00:00Z');
  }

  it('mtimes in rotation order: every copy after the cursor is read, oldest first, and nothing is said about mtimes', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(event(), event()) });
    await cli(dir, ['run', '--no-commit']);
    rotatedThrice(dir);
    const { json } = await cli(dir, ['run', '--no-commit'], '2026-11-23T10:00:00Z');
    expect(json.data.lines).toMatchObject({ read: 6, valid: 6, old: 0 });
    expect(json.data.notices.join('\n')).toContain('finished logs/telemetry.jsonl.3 from byte');
    expect(json.data.notices.join('\n')).toContain('read logs/telemetry.jsonl.2, logs/telemetry.jsonl.1');
    expect(json.data.notices.join('\n')).not.toContain('was modified after');
  });

  it('a copy whose mtime is wrong (.3 touched last): still read in number order, and a notice says the mtimes disagree', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(event(), event()) });
    await cli(dir, ['run', '--no-commit']);
    rotatedThrice(dir);
    const log = join(dir, TELEMETRY);
    utimesSync(`${log}.3`, new Date('2026-11-23T08:00:00Z'), new Date('2026-11-23T08:00:00Z'));
    const { json } = await cli(dir, ['run', '--no-commit'], '2026-11-23T10:00:00Z');
    // By mtime, .3 (the cursor's file) would be the newest copy and .2 and .1 would be skipped without a word.
    expect(json.data.lines).toMatchObject({ read: 6, valid: 6, old: 0 });
    expect(json.data.notices.join('\n')).toContain('read logs/telemetry.jsonl.2, logs/telemetry.jsonl.1');
    expect(json.data.notices.join('\n')).toMatch(/logs\/telemetry\.jsonl\.3 was modified after logs\/telemetry\.jsonl\.2, but logrotate numbers older copies higher: read in number order/);
    expect(read(dir, 'proposed_memory_updates.md')).toContain('was modified after');
    expect((await cli(dir, ['run', '--no-commit'], '2026-11-23T11:00:00Z')).json.data.lines.read).toBe(0);
  });
});

describe('state.json is checked against its schema before anything runs', () => {
  /** A repo after one night that wrote one rule, and that rule's id. */
  async function afterOneNight(): Promise<{ dir: string; id: string }> {
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {})), 'MEMORY.md': '# Memory\n' }, { git: true });
    const { json } = await cli(dir, ['run']);
    return { dir, id: json.data.proposals[0].id };
  }

  const edits: [string, (state: any, id: string) => void, (id: string) => RegExp][] = [
    ['last_reinforced "not-a-date" (it used to archive the rule and commit)', (s, id) => (s.rules[id].last_reinforced = 'not-a-date'), (id) => new RegExp(`rules\\.${id}\\.last_reinforced: expected an ISO-8601 date, found "not-a-date"`)],
    ['state "bogus" (it used to be kept)', (s, id) => (s.rules[id].state = 'bogus'), (id) => new RegExp(`rules\\.${id}\\.state: expected one of "active", .*found "bogus"`)],
    ['pinned "yes" (it used to be kept)', (s, id) => (s.rules[id].pinned = 'yes'), (id) => new RegExp(`rules\\.${id}\\.pinned: expected true or false, found "yes"`)],
    ['a negative cursor offset (it used to be a raw Node error)', (s) => (s.cursors[TELEMETRY].offset = -5), () => /cursors\["logs\/telemetry\.jsonl"\]\.offset: expected a whole number, 0 or more, found -5/],
  ];
  for (const [name, edit, message] of edits) {
    it(`${name}: E_STATE naming the field and the fix, exit 1, nothing written, no commit`, async () => {
      const { dir, id } = await afterOneNight();
      const state = JSON.parse(read(dir, STATE));
      edit(state, id);
      writeFileSync(join(dir, STATE), JSON.stringify(state, null, 2));
      const before = { state: read(dir, STATE), memory: read(dir, 'MEMORY.md'), head: git(dir, 'rev-parse', 'HEAD'), files: readdirSync(join(dir, '.sleep-cycle')).sort() };
      // 200 days later: without the check, decay would archive a rule whose dates it cannot read.
      const { code, json } = await cli(dir, ['run'], '2027-06-01T03:00:00Z');
      expect(code).toBe(1);
      expect(json.error.code).toBe('E_STATE');
      expect(json.error.message).toMatch(/^\.sleep-cycle\/state\.json: /);
      expect(json.error.message).toMatch(message(id));
      expect(json.error.message).toContain('git checkout -- .sleep-cycle/state.json');
      expect({ state: read(dir, STATE), memory: read(dir, 'MEMORY.md'), head: git(dir, 'rev-parse', 'HEAD'), files: readdirSync(join(dir, '.sleep-cycle')).sort() }).toEqual(before);
      const status = await cli(dir, ['status']);
      expect(status.json.error.code).toBe('E_STATE');
    });
  }
});

describe('a skill file the run cannot read is reported and left alone; the rest of the night goes on', () => {
  const ROUTING = 'routing:\n  git_push: git\n';
  const SKILL = 'skills/git.yaml';
  const npmFailures = (timestamp: string) => failures(3, { tool_name: 'npm_test', error_category: 'test_error', error_message: 'Error: Cannot find module jest', timestamp });

  it('not valid YAML: exit 0, the MEMORY.md rule is written and committed, the skill file is byte for byte the same, and its draft waits', async () => {
    const broken = 'name: git\nderived_rules: [\n  - id: r-1\n';
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {}), ...npmFailures('2026-11-20T11:00:00.000Z')), 'MEMORY.md': '# Memory\n', [SKILL]: broken, 'config/sleep-cycle.yaml': ROUTING }, { git: true });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    const byTool = (tool: string) => json.data.proposals.find((p: { tool_name: string }) => p.tool_name === tool);
    expect(byTool('npm_test')).toMatchObject({ status: 'applied', target: 'memory' });
    expect(byTool('git_push')).toMatchObject({ status: 'proposed', target: 'skill:git' });
    expect(byTool('git_push').reasons.join(' ')).toContain('not written: skills/git.yaml cannot be read');
    expect(read(dir, SKILL)).toBe(broken);
    expect(read(dir, 'MEMORY.md')).toContain(byTool('npm_test').id);
    const notice = json.data.notices.find((n: string) => n.startsWith('skills/git.yaml is not valid YAML'));
    expect(notice).toMatch(/it was left as it is, its rules keep their state, and no rule was written to it .* Fix the file, then run again\.$/);
    const report = read(dir, 'proposed_memory_updates.md');
    expect(report).toContain('skills/git.yaml is not valid YAML');
    expect(report).toMatch(/\| rules \| 1 applied, 1 held back \(file unreadable\)/);
    const state = JSON.parse(read(dir, STATE));
    expect(state.rules[byTool('git_push').id]).toBeUndefined();
    expect(state.pending[byTool('git_push').cluster_id]).toBeDefined();
    expect(json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).not.toContain(SKILL);
    // Fixed by a human: the waiting draft is written on the next run.
    writeFileSync(join(dir, SKILL), 'name: git\nderived_rules: []\n');
    const next = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(next.json.data.proposals).toEqual([expect.objectContaining({ tool_name: 'git_push', status: 'applied', target: 'skill:git' })]);
    expect(read(dir, SKILL)).toContain(`- id: ${byTool('git_push').id}`);
  });

  it('a broken derived_rules item: the rules in the file are not taken for deleted by a human (no burn), and nothing is written to it', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {})), 'MEMORY.md': '# Memory\n', [SKILL]: 'name: git\nderived_rules: []\n', 'config/sleep-cycle.yaml': ROUTING }, { git: true });
    const first = await cli(dir, ['run']);
    const id = first.json.data.proposals[0].id;
    expect(read(dir, SKILL)).toContain(`- id: ${id}`);
    // A human edit gone wrong: the rule's id key is misspelt.
    const broken = read(dir, SKILL).replace(`- id: ${id}`, `- idd: ${id}`);
    writeFileSync(join(dir, SKILL), broken);
    // 200 days later: the rule would be archived out of the file if the run could touch it.
    const { code, json } = await cli(dir, ['run'], '2027-06-09T03:00:00Z');
    expect(code).toBe(0);
    expect(json.data.notices.join('\n')).toContain('skills/git.yaml has a derived_rules item (the 1st) without an id and a rule text');
    expect(read(dir, SKILL)).toBe(broken);
    const state = JSON.parse(read(dir, STATE));
    expect(state.rules[id].state).toBe('active');
    expect(state.burned).toEqual({});
    expect(json.data.lifecycle.changes.filter((c: { rule: string }) => c.rule === id)).toEqual([]);
  });
});

describe('lifecycle.jsonl lines that are not events are reported, kept, and the audit goes on', () => {
  it('a torn line and a hand-written note: a notice names both lines; the new events are appended after them', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {})), 'MEMORY.md': '# Memory\n' }, { git: true });
    await cli(dir, ['run']);
    const AUDIT = '.sleep-cycle/lifecycle.jsonl';
    const audit = `${read(dir, AUDIT)}{"rule": "r-12\nchecked by hand on Monday\n`;
    writeFileSync(join(dir, AUDIT), audit);
    appendFileSync(join(dir, TELEMETRY), lines(...failures(3, { tool_name: 'npm_test', error_category: 'test_error', error_message: 'Error: Cannot find module jest', timestamp: '2026-11-21T10:00:00.000Z' })));
    const { code, json } = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(code).toBe(0);
    expect(json.data.notices).toContain('.sleep-cycle/lifecycle.jsonl: lines 2 and 3 are not an audit event (torn or edited by hand): kept in the file as they are, left out of rule histories.');
    const after = read(dir, AUDIT);
    expect(after.startsWith(audit)).toBe(true);
    expect(after.slice(audit.length)).toMatch(/^\{"rule":"r-[0-9a-f]{16}","from":"none","to":"active"/);
  });
});

describe('imported history is counted as of its own time, even after live hook events', () => {
  const pushFailure = (timestamp: string) => failures(1, { timestamp })[0]!;
  const live = event({ timestamp: '2026-11-20T10:00:00.000Z', tool_name: 'Bash' });

  it('three failures within a day in June and one live event today: a rule (it used to be 0 rules and a notice)', async () => {
    const history = ['2026-06-01T10:00:00.000Z', '2026-06-01T11:00:00.000Z', '2026-06-02T09:00:00.000Z'].map(pushFailure);
    const dir = makeDir({ [TELEMETRY]: lines(live, ...history), 'MEMORY.md': '# Memory\n' }, { git: true });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    expect(json.data.proposals).toEqual([expect.objectContaining({ tool_name: 'git_push', status: 'applied' })]);
    expect(json.data.clusters.find((c: { tool_name: string }) => c.tool_name === 'git_push')).toMatchObject({ count: 3, outcome: 'promoted' });
    expect(json.data.notices.join('\n')).not.toMatch(/older than the newest one/);
  });

  it('failures a month apart: the notice says what to do, and doing it (a wider window over that history) gives the rule', async () => {
    const history = ['2026-06-01T10:00:00.000Z', '2026-07-01T10:00:00.000Z', '2026-08-01T10:00:00.000Z'].map(pushFailure);
    const dir = makeDir({ [TELEMETRY]: lines(live, ...history), 'MEMORY.md': '# Memory\n' }, { git: true });
    const night = await cli(dir, ['run']);
    expect(night.json.data.proposals).toEqual([]);
    const advice = 'SLEEP_CYCLE_WINDOW_DAYS=365 sleep-cycle run --since 2026-06-01';
    expect(night.json.data.notices).toContain(`3 events read tonight (from 2026-06-01) are more than 7 days older than the newest one and did not repeat 3 times within 7 days of each other: they count toward no rule and are not carried over. To count repeats spread further apart, run once over that history with a wider window, e.g. ${advice}.`);
    expect(read(dir, 'proposed_memory_updates.md')).toContain(advice);
    // The cursor has moved past those lines: the advice re-reads them.
    const again = await cli(dir, ['run', '--since', '2026-06-01'], '2026-11-21T04:00:00Z', { SLEEP_CYCLE_WINDOW_DAYS: '365' });
    expect(again.code).toBe(0);
    expect(again.json.data.proposals).toEqual([expect.objectContaining({ tool_name: 'git_push', status: 'applied' })]);
  });
});
