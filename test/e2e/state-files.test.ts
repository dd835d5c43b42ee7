import { appendFileSync, chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, lines, makeDir, read } from '../helpers/repo.js';

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
