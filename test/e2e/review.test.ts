import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';

const BLOCK_INDEX_LOCK = 'version: 1\nrules:\n  - id: no-index-lock-talk\n    severity: block\n    reason: test policy\n    when:\n      any:\n        - { fact: text, operator: matchesRegex, value: "index\\\\.lock" }\n';
const MEMORY = '# M\n\n## Derived Rules\n';

describe('review and explain', () => {
  it('a safety-blocked draft is accepted only with --force, and the override is audited and explained', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/safety-rules.yaml': BLOCK_INDEX_LOCK }, { git: true });
    const run = await cli(dir, ['run']);
    const id = run.json.data.proposals[0].id;
    expect(run.json.data.proposals[0].status).toBe('quarantined');

    const list = await cli(dir, ['review']);
    expect(list.json.data.quarantined).toEqual([expect.objectContaining({ id, safety_blocked: true, target: 'memory' })]);

    const refused = await cli(dir, ['review', id, '--accept']);
    expect(refused.code).toBe(2);
    expect(refused.json.error.message).toContain('--force');
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);

    const stale = await cli(dir, ['review', id, '--accept', '--force', '--sha', '00000000']);
    expect(stale.code).toBe(2);
    expect(stale.json.error.message).toContain('now holds different text');
    const forced = await cli(dir, ['review', id, '--accept', '--force', '--sha', list.json.data.quarantined[0].text_sha.slice(0, 8)]);
    expect(forced.code).toBe(0);
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${id} -->`);
    const explain = await cli(dir, ['explain', id]);
    expect(explain.json.data).toMatchObject({ id, state: 'active', cluster: { tool_name: 'git_push', error_category: 'git_error' }, counts: { count: 3 } });
    expect(explain.json.data.safety.violations).toEqual(['no-index-lock-talk']);
    expect(explain.json.data.evidence).toHaveLength(3);
    expect(explain.json.data.history.map((h: any) => `${h.from}->${h.to}${h.forced ? ' forced' : ''}`)).toEqual(['none->quarantined', 'quarantined->active forced']);
  });

  it('explain is read-only and an unknown id lists close matches', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const id = (await cli(dir, ['run'])).json.data.proposals[0].id;
    const before = git(dir, 'status', '--porcelain') + read(dir, '.sleep-cycle/state.json');
    const explained = (await cli(dir, ['explain', id])).json.data;
    expect(explained.text).toContain('`git_push` fails with `fatal: Unable to create');
    // explain names the error template the rule is about.
    expect(explained.template).toBe("fatal: Unable to create '<*>': File exists.");
    const unknown = await cli(dir, ['explain', id.slice(0, 4)]);
    expect(unknown.code).toBe(2);
    expect(unknown.json.error.message).toContain(`Close matches: ${id}`);
    expect(git(dir, 'status', '--porcelain') + read(dir, '.sleep-cycle/state.json')).toBe(before);
  });

  it('a rejected pattern is not proposed again during its cooldown, and is after it', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(2, {})) }, { git: true });
    const first = await cli(dir, ['run'], '2026-11-20T23:00:00Z');
    const clusterId = first.json.data.clusters[0].id;
    const rejected = await cli(dir, ['review', clusterId, '--reject', '--reason', 'pushes are retried by CI'], '2026-11-21T09:00:00Z');
    expect(rejected.code).toBe(0);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(4, { timestamp: '2026-11-21T10:00:00.000Z' })));
    const during = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(during.json.data.proposals).toEqual([]);
    expect(during.json.data.clusters[0].outcome).toBe('burned');
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { timestamp: '2027-03-01T10:00:00.000Z' })));
    const after = await cli(dir, ['run'], '2027-03-02T03:00:00Z');
    expect(after.json.data.proposals).toHaveLength(1);
    const audit = read(dir, '.sleep-cycle/lifecycle.jsonl');
    expect(audit).toContain('rejected in review: pushes are retried by CI');
  });

  it('review needs exactly one decision', async () => {
    const dir = makeDir({});
    expect((await cli(dir, ['review', 'r-000000'])).code).toBe(2);
    expect((await cli(dir, ['review', 'r-000000', '--accept', '--reject'])).code).toBe(2);
    expect((await cli(dir, ['review', 'r-000000', '--accept'])).json.error.message).toContain('no quarantined draft');
  });
});
