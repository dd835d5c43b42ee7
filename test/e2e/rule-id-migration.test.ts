import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';

const LOG = 'logs/telemetry.jsonl';

/** Rewrites every occurrence of `from` in the files sleep-cycle keeps, as if an older version had written `to`. */
function renameId(dir: string, from: string, to: string): void {
  for (const path of ['MEMORY.md', '.sleep-cycle/state.json', '.sleep-cycle/lifecycle.jsonl']) {
    writeFileSync(join(dir, path), readFileSync(join(dir, path), 'utf8').replaceAll(from, to));
  }
  git(dir, 'commit', '--quiet', '-am', 'state written by a version with 24-bit rule ids');
}

describe('rule ids: 64 bits for new rules, and state with 24-bit ids keeps working', () => {
  it('a new rule id has 16 hex digits', async () => {
    const dir = makeDir({ [LOG]: lines(...failures(3, {})) }, { git: true });
    const run = await cli(dir, ['run']);
    expect(run.json.data.proposals[0].id).toMatch(/^r-[0-9a-f]{16}$/);
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${run.json.data.proposals[0].id} -->`);
  });

  it('a rule with a 6-digit id is still found, recurs without a duplicate, and can be explained, pinned and listed', async () => {
    const dir = makeDir({ [LOG]: lines(...failures(3, {})) }, { git: true });
    const first = await cli(dir, ['run']);
    const id = first.json.data.proposals[0].id as string;
    const old = 'r-3f9a1c';
    renameId(dir, id, old);

    // The same failure again, and a new one: the old rule is not proposed again; the new one gets a long id.
    appendFileSync(join(dir, LOG), lines(...failures(3, { timestamp: '2026-11-21T10:00:00.000Z' }), ...failures(3, { tool_name: 'npm_test', error_category: 'test_failure', error_message: 'Error: Cannot find module jest', timestamp: '2026-11-21T11:00:00.000Z' })));
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(second.code, JSON.stringify(second.json.error)).toBe(0);
    const proposals = second.json.data.proposals as { id: string; tool_name: string; status: string }[];
    expect(proposals.filter((p) => p.tool_name === 'git_push' && p.status === 'applied')).toEqual([]);
    expect(proposals.filter((p) => p.status === 'applied').map((p) => p.id)).toEqual([expect.stringMatching(/^r-[0-9a-f]{16}$/)]);
    const memory = read(dir, 'MEMORY.md');
    expect(memory.split(`<!-- rule:${old} -->`)).toHaveLength(2);
    expect(JSON.parse(read(dir, '.sleep-cycle/state.json')).rules[old].state).toBe('active');

    const explain = await cli(dir, ['explain', old]);
    expect(explain.code).toBe(0);
    expect(explain.json.data.id ?? explain.json.data.rule?.id).toBe(old);
    expect((await cli(dir, ['pin', old])).code).toBe(0);
    expect(JSON.parse(read(dir, '.sleep-cycle/state.json')).rules[old].pinned).toBe(true);
    const list = await cli(dir, ['list']);
    expect(list.json.data.rules.map((rule: { id: string }) => rule.id)).toContain(old);
  });
});
