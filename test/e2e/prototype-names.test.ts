import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { event, failures, lines, makeDir, read } from '../helpers/repo.js';

const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('names of Object.prototype members as tool names, categories and sessions', () => {
  it('are entries like any other, on a first night (empty state) and on the next (loaded state)', async () => {
    const night = (timestamp: string) => NAMES.flatMap((name) => [
      ...failures(3, { tool_name: name, error_category: name, session_id: name, timestamp }),
      ...Array.from({ length: 12 }, () => event({ tool_name: name, duration_ms: 100, timestamp })),
    ]);
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...night('2026-11-20T10:00:00.000Z')) }, { git: true });
    const first = await cli(dir, ['run']);
    expect(first.code, JSON.stringify(first.json.error)).toBe(0);
    expect(first.json.data.lines.valid).toBe(NAMES.length * 15);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...night('2026-11-21T10:00:00.000Z')));
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(second.code, JSON.stringify(second.json.error)).toBe(0);
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    // Baselines are numbers, never a function's text or an inherited value.
    for (const baseline of Object.values(state.baselines) as { mean_ms: unknown; count: unknown }[]) {
      expect(typeof baseline.mean_ms).toBe('number');
      expect(typeof baseline.count).toBe('number');
    }
    for (const command of ['list', 'status', 'stats', 'review']) {
      const run = await cli(dir, [command]);
      expect(run.code, `${command}: ${JSON.stringify(run.json.error)}`).toBe(0);
    }
  });
});
