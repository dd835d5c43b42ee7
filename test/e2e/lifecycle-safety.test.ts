import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { event, failures, git, lines, makeDir, read, PACKAGE_ROOT } from '../helpers/repo.js';

const T0 = '2026-11-21T03:00:00Z';
const D200 = '2027-06-09T03:00:00Z';
const MEMORY = '# Project memory\n\nHuman notes.\n\n## Derived Rules\n';
const BUNDLED = readFileSync(join(PACKAGE_ROOT, 'config/safety-rules.yaml'), 'utf8').trimEnd();
const BLOCK_INDEX_LOCK = `${BUNDLED}

  - id: test-no-index-lock-advice
    severity: block
    reason: agents must not touch index.lock files (test policy).
    when:
      all:
        - { fact: text, operator: matchesRegex, value: "index\\\\.lock" }
`;
const state = (dir: string) => JSON.parse(read(dir, '.sleep-cycle/state.json'));

async function archivedRule() {
  const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/safety-rules.yaml': `${BUNDLED}\n` }, { git: true });
  const id = (await cli(dir, ['run'], T0)).json.data.proposals[0].id as string;
  await cli(dir, ['decay', '--now', D200], D200);
  expect(state(dir).rules[id].state).toBe('archived');
  return { dir, id };
}

describe('a rule the current policy blocks comes back into memory', () => {
  it('by recurrence, when the policy was tightened while the rule was archived', async () => {
    const { dir, id } = await archivedRule();
    writeFileSync(join(dir, 'config/safety-rules.yaml'), BLOCK_INDEX_LOCK);
    git(dir, 'commit', '--quiet', '-am', 'tighten the policy');
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { timestamp: '2027-06-09T10:00:00.000Z' })));
    const night = '2027-06-09T23:00:00Z';
    const run = await cli(dir, ['run', '--now', night], night);
    expect(run.code).toBe(0);
    // The rule text mentions index.lock, which the committed policy now blocks.
    expect(git(dir, 'show', 'HEAD:MEMORY.md')).not.toContain(id);
  });

  it('not by pin or restore either', async () => {
    const { dir, id } = await archivedRule();
    writeFileSync(join(dir, 'config/safety-rules.yaml'), BLOCK_INDEX_LOCK);
    git(dir, 'commit', '--quiet', '-am', 'tighten the policy');
    // Refused: pinning would put the blocked text back into memory.
    const pin = await cli(dir, ['pin', id], '2027-06-10T03:00:00Z');
    expect(pin.code).toBe(2);
    expect(pin.json.error.message).toContain('the current safety policy blocks it');
    expect((await cli(dir, ['restore', id], '2027-06-10T03:00:00Z')).code).toBe(2);
    await cli(dir, ['run', '--now', '2027-06-11T03:00:00Z'], '2027-06-11T03:00:00Z');
    expect(read(dir, 'MEMORY.md')).not.toContain(id);
  });
});

describe('the commit matches the working tree', () => {
  it('a night that restores one rule and adds another leaves MEMORY.md clean', async () => {
    const { dir } = await archivedRule();
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(
      ...failures(3, { timestamp: '2027-06-09T10:00:00.000Z' }),
      ...failures(3, { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet.', timestamp: '2027-06-09T11:00:00.000Z' }),
    ));
    const night = '2027-06-09T23:00:00Z';
    const run = await cli(dir, ['run', '--now', night], night);
    expect(run.code, JSON.stringify(run.json.error)).toBe(0);
    expect(run.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    const diff = git(dir, 'diff', '--', 'MEMORY.md');
    expect(diff).toBe('');
  });
});

describe('rotation', () => {
  it('a backup copy next to the log (sed -i.bak) does not make the whole log count again', async () => {
    const first = [event({ timestamp: '2026-11-20T01:00:00.000Z' }), event({ timestamp: '2026-11-20T02:00:00.000Z' }), event({ timestamp: '2026-11-20T03:00:00.000Z' })];
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...first) });
    const one = await cli(dir, ['run', '--no-commit'], T0);
    expect(one.json.data.lines.valid).toBe(3);
    // `sed -i.bak 's/"s-1"/"s-2"/' logs/telemetry.jsonl`: a backup, and an edited (new) live file; then one new line.
    copyFileSync(join(dir, 'logs/telemetry.jsonl'), join(dir, 'logs/telemetry.jsonl.bak'));
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), read(dir, 'logs/telemetry.jsonl').replaceAll('"s-1"', '"s-2"'));
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-21T01:00:00.000Z' })));
    const two = await cli(dir, ['run', '--no-commit'], '2026-11-22T03:00:00Z');
    // Only the one new line is new (without the .bak file, the timestamp fallback counts exactly 1).
    expect(two.json.data.lines.valid).toBe(1);
  });

  it('even with a pattern that matches the backup, a log edited in place is not taken for a rotation', async () => {
    const first = [event({ timestamp: '2026-11-20T01:00:00.000Z' }), event({ timestamp: '2026-11-20T02:00:00.000Z' }), event({ timestamp: '2026-11-20T03:00:00.000Z' })];
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...first), 'config/sleep-cycle.yaml': 'rotated_logs: "{log}.*"\n' });
    await cli(dir, ['run', '--no-commit'], T0);
    copyFileSync(join(dir, 'logs/telemetry.jsonl'), join(dir, 'logs/telemetry.jsonl.bak'));
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), read(dir, 'logs/telemetry.jsonl').replaceAll('"s-1"', '"s-2"'));
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-21T01:00:00.000Z' })));
    const two = await cli(dir, ['run', '--no-commit'], '2026-11-22T03:00:00Z');
    expect(two.json.data.lines).toMatchObject({ valid: 1, old: 3 });
    expect(two.json.data.notices.join(' ')).not.toContain('rotated');
  });
});

describe('the git index after sleep-cycle commits', () => {
  it("a human's staged edit of MEMORY.md is not taken for a stale copy of ours (only those are reset)", async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const first = await cli(dir, ['run'], T0);
    expect(first.json.data.commit).toEqual(expect.any(String));
    writeFileSync(join(dir, 'MEMORY.md'), read(dir, 'MEMORY.md').replace('# Project memory', '# Project memory, edited and staged by a human'));
    git(dir, 'add', 'MEMORY.md');
    // A night with nothing new: no commit, and the human's staged change is left as it is.
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(second.json.data.commit).toBeNull();
    expect(git(dir, 'diff', '--cached', '--name-only').trim()).toBe('MEMORY.md');
    expect(git(dir, 'diff', '--cached')).toContain('+# Project memory, edited and staged by a human');
  });
});
