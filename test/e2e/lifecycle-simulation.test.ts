import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvents } from '../../pipeline/memory/lifecycle.js';
import { countLines, parseMemory } from '../../pipeline/memory/memory-md.js';
import type { LedgerEntry, State } from '../../pipeline/memory/state.js';
import { isAllowed, type FromState } from '../../pipeline/memory/transitions.js';
import { renderStats } from '../../pipeline/cli/stats-command.js';
import { cli } from '../helpers/in-process.js';
import { event, lines, makeDir } from '../helpers/repo.js';

const NIGHTS = 120;
const START = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;
const MAX_LINES = 24;
const HUMAN = '# Project memory\r\n\r\nHuman notes, CRLF on purpose.\n\n```md\n## Derived Rules\n- not a rule <!-- rule:r-000000 -->\n```\n\n## Derived Rules\n';

/** The settings the simulation runs under: a short TTL and retention so 120 nights see every state. */
const ENV = {
  SLEEP_CYCLE_TTL_DAYS: '40',
  SLEEP_CYCLE_ARCHIVE_RETENTION_DAYS: '40',
  SLEEP_CYCLE_EXPIRED_RETENTION_DAYS: '20',
  SLEEP_CYCLE_MEMORY_MAX_LINES: String(MAX_LINES),
  SLEEP_CYCLE_VALIDATE_MIN_CALLS: '20',
};

const day = (n: number, hour = 10, minute = 0) => new Date(START + n * DAY + hour * 3_600_000 + minute * 60_000).toISOString();

/**
 * One night's telemetry, scripted:
 * - Read/not_found fails 4 times on nights 0-1, then never again while Read keeps succeeding: a rule that works.
 * - git_push/git_error fails 3 times every night from night 2 on: its rule is ineffective; its offline rewrite
 *   would repeat it, so it is left to a human.
 * - WebFetch/network_error fails 4 times on night 3 and the tool is never called again: a dead rule.
 * - Task/uncategorized fails 3 times on night 4, is silent, and returns on night 50: archived, then restored.
 * - From night 10 to 40 a new tool fails 3 times each night (an error the offline writer can quote, so
 *   each gets a rule): pressure on the MEMORY.md ceiling.
 */
function night(n: number): string[] {
  const out: string[] = [];
  const fail = (tool: string, category: string, message: string, count: number) => {
    for (let i = 0; i < count; i++) {
      out.push(event({ timestamp: day(n, 10, i), tool_name: tool, exit_code: 1, error_category: category, error_message: message, session_id: `s-${n}-${i % 2}` }));
    }
  };
  if (n <= 1) fail('Read', 'not_found', 'File does not exist.', 4);
  for (let i = 0; i < 3; i++) out.push(event({ timestamp: day(n, 11, i), tool_name: 'Read', session_id: `s-${n}`, ...(n % 10 === 5 ? { memory_refs: [] } : {}) }));
  if (n >= 2) fail('git_push', 'git_error', "fatal: Unable to create '/repo/.git/index.lock': File exists.", 3);
  if (n === 3) fail('WebFetch', 'network_error', 'fetch failed: getaddrinfo ENOTFOUND docs.example.invalid', 4);
  if (n === 4 || n === 50) fail('Task', 'uncategorized', "Agent type 'reviewer' not found.", 3);
  if (n >= 10 && n <= 40) fail(`tool_${n}`, 'runtime_error', `tool ${n} failed to start`, 3);
  return out;
}

function ruleOf(state: State, tool: string): LedgerEntry[] {
  return Object.values(state.rules).filter((rule) => rule.tool_name === tool).sort((a, b) => (a.created < b.created ? -1 : 1));
}

describe('120 simulated nights of the memory lifecycle', () => {
  it('keeps the ceiling, keeps the rule that works, archives dead ones, leaves the ineffective one to a human, restores a returning one', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': '' });
    if (process.env.SLEEP_CYCLE_PRINT_SIMULATION) process.stdout.write(`simulation in ${dir}\n`);
    const humanPart = (text: string) => text.slice(0, text.lastIndexOf('## Derived Rules'));
    const seen = new Map<string, Set<string>>();
    let taskArchivedBy: number | null = null;
    let taskRestoredOn: number | null = null;
    for (let n = 0; n < NIGHTS; n++) {
      appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...night(n)));
      const result = await cli(dir, ['run'], day(n, 23), ENV);
      expect(result.code, `night ${n}: ${JSON.stringify(result.json.error)}`).toBe(0);
      const memory = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
      expect(countLines(memory), `night ${n}`).toBeLessThanOrEqual(MAX_LINES);
      expect(humanPart(memory), `night ${n}`).toBe(humanPart(HUMAN));
      const state = JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8')) as State;
      for (const rule of Object.values(state.rules)) seen.set(rule.id, (seen.get(rule.id) ?? new Set()).add(rule.state));
      const task = ruleOf(state, 'Task')[0];
      if (task && taskArchivedBy === null && task.state === 'archived') taskArchivedBy = n;
      if (task && taskArchivedBy !== null && taskRestoredOn === null && task.state === 'active') {
        taskRestoredOn = n;
        expect(memory).toContain(`<!-- rule:${task.id} -->`);
      }
      // Every rule in memory is in the ledger as active, decaying or pinned, and the other way round.
      const inFile = new Set(parseMemory(memory).rules.map((rule) => rule.id));
      const inMemory = Object.values(state.rules).filter((r) => r.target === 'memory' && ['active', 'decaying', 'pinned'].includes(r.state)).map((r) => r.id);
      expect([...inFile].sort(), `night ${n}`).toEqual(inMemory.sort());
    }

    const state = JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8')) as State;
    // The rule that works survives all 120 nights, validated (failures stopped while Read kept being used).
    const [read] = ruleOf(state, 'Read');
    expect(read!.state).toBe('active');
    expect(read!.status).toBe('validated');
    expect(read!.weight).toBe(1);
    // The dead rule went the whole way: archived, expired, deleted — its audit history stays.
    const [webfetch] = ruleOf(state, 'WebFetch');
    expect([...seen.get(webfetch!.id)!]).toEqual(expect.arrayContaining(['active', 'archived', 'expired', 'deleted']));
    expect(webfetch!.state).toBe('deleted');
    // The returning failure restored its archived rule instead of writing a new one.
    const tasks = ruleOf(state, 'Task');
    expect(tasks).toHaveLength(1);
    expect(taskArchivedBy).not.toBeNull();
    expect(taskArchivedBy!).toBeLessThan(50);
    expect(taskRestoredOn).toBe(50);
    // The ineffective rule's offline rewrite says the same thing again: a successor must not repeat its
    // predecessor (issue 15), so none is written; the failures keep counting against the rule, which the
    // report leaves to a human.
    const pushes = ruleOf(state, 'git_push');
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.effectiveness?.verdict).toBe('ineffective');
    expect(pushes[0]!.status).toBe('active');
    const report = readFileSync(join(dir, 'proposed_memory_updates.md'), 'utf8');
    expect(report).toContain(`\`${pushes[0]!.id}\` (\`git_push\`): 3 failures per day before, 3 since`);
    expect(report).toContain(`not written: repeats the rule it would replace, ${pushes[0]!.id} (lexical similarity 1.00)`);
    // The per-rule effectiveness table: the working rule and the ineffective one, worst first.
    expect(report).toMatch(new RegExp(`\\| \`${pushes[0]!.id}\` \\| \`git_push\` \\| 3 \\| 3 \\| 0% \\| ineffective \\|[\\s\\S]*\\| \`${read!.id}\` \\| \`Read\` \\| 4 \\| 0\\.0\\d+ \\| -\\d+% \\| working \\|`));
    // The ceiling archived some of the one-off tools' rules.
    const oneOffs = Object.values(state.rules).filter((rule) => rule.tool_name.startsWith('tool_'));
    expect(oneOffs.some((rule) => rule.archive_reason?.includes('ceiling'))).toBe(true);
    // Only allowed transitions were ever logged.
    const events = parseEvents(readFileSync(join(dir, '.sleep-cycle/lifecycle.jsonl'), 'utf8'));
    for (const e of events.filter((e) => e.field !== 'status')) expect(isAllowed(e.from as FromState, e.to as never), `${e.rule} ${e.from} → ${e.to}`).toBe(true);
    // The archive file lists what is archived or expired, and nothing deleted.
    const archive = readFileSync(join(dir, 'memory/archive.md'), 'utf8');
    expect(archive).not.toContain(webfetch!.id);

    const stats = await cli(dir, ['stats'], day(NIGHTS, 0), ENV);
    expect(stats.code).toBe(0);
    expect(stats.json.data.by_state.deleted).toBeGreaterThan(0);
    expect(stats.json.data.runs.some((r: { restored: number }) => r.restored > 0)).toBe(true);
    writeFileSync(join(dir, 'stats.txt'), renderStats(stats.json.data));
    if (process.env.SLEEP_CYCLE_PRINT_SIMULATION) process.stdout.write(`${dir}\n${renderStats(stats.json.data)}`);
  }, 120_000);
});
