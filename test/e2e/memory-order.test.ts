import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../pipeline/memory/memory-md.js';
import type { State } from '../../pipeline/memory/state.js';
import { cli } from '../helpers/in-process.js';
import { event, git, lines, makeDir } from '../helpers/repo.js';

const START = Date.parse('2026-01-05T00:00:00Z');
const DAY = 86_400_000;
const HUMAN = '# Project memory\n\nHuman notes.\n\n## Derived Rules\n\n<!-- owned by sleep-cycle -->\n';
const at = (n: number, hour: number, minute = 0) => new Date(START + n * DAY + hour * 3_600_000 + minute * 60_000).toISOString();

/** Three failures a night can have: each becomes one rule on night 0. */
const FAILURES = {
  edit: { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet. Read it first before writing to it.' },
  push: { tool_name: 'git_push', error_category: 'git_error', error_message: "fatal: Unable to create '/repo/.git/index.lock': File exists." },
  vitest: { tool_name: 'vitest', error_category: 'not_found', error_message: 'sh: 1: vitest: not found' },
};

function fail(n: number, kind: keyof typeof FAILURES, count: number, sessions: number): string[] {
  return Array.from({ length: count }, (_, i) => event({ ...FAILURES[kind], exit_code: 1, timestamp: at(n, 10, i), session_id: `s-${n}-${i % sessions}` }));
}

describe('MEMORY.md ordered by weight over many nights (issue 15, item 6)', () => {
  it('puts the most useful rules first, keeps the order from night to night until weights cross, and commits the order it writes', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': '' }, { git: true });
    const orders: string[][] = [];
    const byTool: Record<string, string> = {};
    for (let n = 0; n <= 150; n += 10) {
      // Night 0: three failures, three rules. Afterwards only git_push keeps failing (its rule is reinforced);
      // vitest had more evidence than Edit, so its rule keeps its weight longer.
      const events = n === 0 ? [...fail(n, 'edit', 3, 1), ...fail(n, 'push', 3, 3), ...fail(n, 'vitest', 9, 3)] : fail(n, 'push', 3, 3);
      appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...events));
      const run = await cli(dir, ['run'], at(n, 23));
      expect(run.code, JSON.stringify(run.json.error)).toBe(0);
      const memory = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
      expect(memory.startsWith(HUMAN)).toBe(true);
      const state = JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8')) as State;
      for (const rule of Object.values(state.rules)) byTool[rule.tool_name] = rule.id;
      const inMemory = Object.values(state.rules).filter((r) => ['active', 'decaying', 'pinned'].includes(r.state));
      // The file's order is the ledger's ranking: pinned first, then weight, ties by id.
      const ranked = [...inMemory].sort((a, b) => Number(b.pinned) - Number(a.pinned) || (b.weight ?? 1) - (a.weight ?? 1) || (a.id < b.id ? -1 : 1)).map((r) => r.id);
      const order = parseMemory(memory).rules.map((r) => r.id);
      expect(order, `night ${n}`).toEqual(ranked);
      // What was committed is what is in the working tree, order included.
      expect(git(dir, 'status', '--porcelain', '--', 'MEMORY.md').trim(), `night ${n}`).toBe('');
      orders.push(order);
    }
    const { Edit: edit, git_push: push, vitest } = byTool;
    // Night 0: every rule weighs 1: by id.
    expect(orders[0]).toEqual([edit!, push!, vitest!].sort());
    // Once the quiet rules decay, the reinforced one leads and the better-evidenced quiet one comes next.
    expect(orders).toContainEqual([push, vitest, edit]);
    // Stable: the order changed only on the nights weights crossed (a handful of times over 16 nights),
    // and a rule that left memory (archived) is the only other change.
    const changes = orders.slice(1).filter((order, i) => order.join() !== orders[i]!.join()).length;
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThanOrEqual(4);
  }, 240_000);
});
