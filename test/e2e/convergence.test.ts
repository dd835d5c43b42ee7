import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../pipeline/cli/context-from-options.js';
import { runCli } from '../../pipeline/cli/program.js';
import { fixedClock } from '../../pipeline/io/clock.js';
import { failures, lines, makeDir, read, runCliProcess } from '../helpers/repo.js';

const POLICY = read(join(import.meta.dirname, '..', '..'), 'config/safety-rules.yaml');
const TELEMETRY = lines(
  ...failures(3, {}),
  ...failures(4, { tool_name: 'Edit', error_category: 'not_read_first', error_message: '<tool_use_error>File has not been read yet.</tool_use_error>' }),
);

describe('re-runs converge', () => {
  it('a crash after memory was written but before state re-runs the night without duplicating rules', () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': TELEMETRY, 'config/safety-rules.yaml': POLICY }, { git: true });
    const first = runCliProcess(dir, ['run', '--json', '--no-commit']);
    const memory = read(dir, 'MEMORY.md');
    const rules = JSON.parse(read(dir, '.sleep-cycle/state.json')).rules;
    rmSync(join(dir, '.sleep-cycle/state.json'));

    const again = runCliProcess(dir, ['run', '--json', '--no-commit']);
    expect(again.json.data.lines.read).toBe(first.json.data.lines.read);
    expect(again.json.data.proposals.map((p: any) => p.id)).toEqual(first.json.data.proposals.map((p: any) => p.id));
    expect(read(dir, 'MEMORY.md')).toBe(memory);
    expect(Object.keys(JSON.parse(read(dir, '.sleep-cycle/state.json')).rules).sort()).toEqual(Object.keys(rules).sort());
    const audit = read(dir, '.sleep-cycle/lifecycle.jsonl').trim().split('\n');
    expect(audit).toHaveLength(2);
  });

  it('a crash before the state write, then more events: still one rule per cluster in MEMORY.md', () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n\n## Derived Rules\n', 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/safety-rules.yaml': POLICY }, { git: true });
    const first = runCliProcess(dir, ['run', '--json', '--no-commit']);
    rmSync(join(dir, '.sleep-cycle'), { recursive: true });
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(1, { timestamp: '2026-11-20T11:00:00.000Z' })));
    const again = runCliProcess(dir, ['run', '--json', '--no-commit']);
    expect(again.json.data.proposals[0].id).toBe(first.json.data.proposals[0].id);
    expect(read(dir, 'MEMORY.md').match(/<!-- rule:/g)).toHaveLength(1);
    expect(Object.keys(JSON.parse(read(dir, '.sleep-cycle/state.json')).rules)).toEqual([first.json.data.proposals[0].id]);
  });

  it('the dry-run report is identical for the same input and clock', async () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': TELEMETRY, 'config/safety-rules.yaml': POLICY }, { git: true });
    const out: string[] = [];
    const deps = { ...defaultDeps(), cwd: dir, clock: fixedClock('2026-11-21T03:00:00Z'), stdout: (t: string) => out.push(t), isTTY: false };
    expect(await runCli(['run', '--dry-run'], deps)).toBe(0);
    const first = read(dir, 'proposed_memory_updates.md');
    expect(await runCli(['run', '--dry-run'], deps)).toBe(0);
    expect(read(dir, 'proposed_memory_updates.md')).toBe(first);
    expect(first).toContain('_sleep-cycle run-20261121T030000 at 2026-11-21T03:00:00.000Z (dry run');
    expect(out[0]).toContain('proposed');
  });
});
