import { describe, expect, it } from 'vitest';
import { plural } from '../../pipeline/model/plural.js';
import { cli, sc } from '../helpers/in-process.js';
import { failures, lines, makeDir } from '../helpers/repo.js';

const MEMORY = '# M\n\n## Derived Rules\n';
const TAGGED = '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>';

describe('what the commands print at a terminal', () => {
  it('run shows no stage progress at a terminal unless --verbose', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const quiet = await sc(dir, ['run', '--dry-run'], { isTTY: true });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const verbose = await sc(dir, ['run', '--dry-run', '--verbose'], { isTTY: true });
    expect(verbose.stderr).toContain('sleep-cycle: start ingest\n');
    expect(verbose.stderr).toContain('sleep-cycle: finish write-report\n');
    expect(verbose.stderr).toContain('sleep-cycle: skip apply (dry run)\n');
    expect(verbose.stdout).toBe(quiet.stdout);
  });

  it('decay --dry-run prints the lifecycle, not telemetry counts it did not read', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    expect((await cli(dir, ['run'])).code).toBe(0);
    const preview = await sc(dir, ['decay', '--dry-run', '--now', '2027-06-09'], { isTTY: true });
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/^sleep-cycle decay \(dry run\) run-20270609T000000\n/);
    expect(preview.stdout).not.toMatch(/lines:|clusters:/);
    expect(preview.stdout).toMatch(/lifecycle\s+r-[0-9a-f]{16} active → archived/);
    expect(preview.stderr).toBe('');
    const quietDecay = await sc(dir, ['decay', '--dry-run']);
    expect(quietDecay.stdout).toContain('  lifecycle: no rule changes state\n');
  });

  it('counts read as English: 1 rule, 1 session, 0 entries', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, { session_id: 's-only' })) }, { git: true });
    const id = (await cli(dir, ['run'])).json.data.proposals[0].id;
    expect((await sc(dir, ['list'])).stdout).toMatch(/^1 rule at 2026-11-21T03:00:00.000Z\n/);
    expect((await sc(dir, ['list'])).stdout).toContain(', 0 recurrences;');
    const explain = (await sc(dir, ['explain', id])).stdout;
    expect(explain).toContain('seen 3 times, 3 distinct inputs, 1 session, ');
    expect((await sc(dir, ['stats'])).stdout).toContain('archive: 0 entries (0 lines, 0 bytes)');
    expect([plural(1, 'entry', 'entries'), plural(2, 'rule'), plural(0, 'session')]).toEqual(['1 entry', '2 rules', '0 sessions']);
  });

  it('log text is shown as it was written: markdown escapes stay in the report', async () => {
    const events = failures(3, { tool_name: 'Edit', error_category: 'not_read_first', error_message: TAGGED });
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...events) }, { git: true });
    const id = (await cli(dir, ['run'])).json.data.proposals[0].id;
    const explain = (await sc(dir, ['explain', id])).stdout;
    // Evidence is kept as a masked template (no raw line is stored), without the harness's wrapper tags.
    expect(explain).toContain(TAGGED.replace(/<\/?tool_use_error>/g, ''));
    expect(explain).not.toContain('&lt;');
  });

  it('status and review give a pending cluster the same count: its events inside the window ending now', async () => {
    const events = [...failures(1, { timestamp: '2026-11-15T10:00:00.000Z' }), ...failures(1, { timestamp: '2026-11-20T10:00:00.000Z' })];
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...events) }, { git: true });
    const run = await cli(dir, ['run'], '2026-11-21T03:00:00Z');
    expect(run.json.data.clusters[0]).toMatchObject({ promoted: false, outcome: 'pending' });
    // Counted at the run (window from 2026-11-14) and later (window from 2026-11-17: the 15th has left it).
    for (const [now, expected] of [['2026-11-21T03:00:00Z', 2], ['2026-11-24T03:00:00Z', 1], ['2026-12-01T03:00:00Z', 0]] as const) {
      const status = await cli(dir, ['status'], now);
      const review = await cli(dir, ['review'], now);
      expect(status.json.data.pending).toEqual(review.json.data.pending);
      expect(status.json.data.pending[0].count, now).toBe(expected);
      const statusText = (await sc(dir, ['status'], { now })).stdout;
      const reviewText = (await sc(dir, ['review'], { now })).stdout;
      expect(statusText).toContain(`: ${expected} in window`);
      expect(reviewText).toContain(`: ${expected} in window, last `);
    }
  });
});
