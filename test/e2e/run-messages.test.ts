import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/program.js';
import { testDeps } from '../helpers/command.js';
import { cli } from '../helpers/in-process.js';
import { failures, lines, makeDir, read, sha } from '../helpers/repo.js';

/** The CLI in this process as a person runs it: readable text, no --json. */
async function text(dir: string, args: string[], now = '2026-11-21T03:00:00Z') {
  const { deps, out, err } = testDeps(dir, { now });
  const code = await runCli(args, deps);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('what run says it did', () => {
  it('a run with nothing to change says it wrote nothing, and leaves the report as it was', async () => {
    const dir = makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const first = await text(dir, ['run']);
    expect(first.stdout).toContain('wrote: proposed_memory_updates.md, ');
    const report = sha(dir, 'proposed_memory_updates.md');

    const idle = await text(dir, ['run']);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain('  wrote: nothing (nothing to change)\n');
    expect(idle.stdout).toContain('  report: not rewritten (proposed_memory_updates.md is left as the last run that changed something wrote it)\n');
    expect(idle.stdout).not.toContain('wrote: proposed_memory_updates.md');
    expect(sha(dir, 'proposed_memory_updates.md')).toBe(report);
    const { json } = await cli(dir, ['run']);
    expect(json.data.written).toEqual([]);
  });

  it('a dry run names the report it wrote', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    const run = await text(dir, ['run', '--dry-run']);
    expect(run.stdout).toContain('  report: proposed_memory_updates.md\n');
    expect(read(dir, 'proposed_memory_updates.md')).toContain('# Proposed memory updates');
  });
});

describe('a missing telemetry file', () => {
  it('is "no telemetry file yet" when no run has read it', async () => {
    const { code, json } = await cli(makeDir({}), ['run', '--dry-run']);
    expect(code).toBe(0);
    expect(json.data.notices).toContain('logs/telemetry.jsonl: no telemetry file yet; nothing to read.');
  });

  it('is "deleted or moved" when the cursor shows an earlier run read it, and the cursor is kept', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    await cli(dir, ['run', '--no-commit']);
    const cursor = JSON.parse(read(dir, '.sleep-cycle/state.json')).cursors['logs/telemetry.jsonl'];
    renameSync(join(dir, 'logs/telemetry.jsonl'), join(dir, 'logs/old.jsonl'));
    const { code, json } = await cli(dir, ['run', '--no-commit'], '2026-11-21T04:00:00Z');
    expect(code).toBe(0);
    const notice = json.data.notices.join('\n');
    expect(notice).toContain(`logs/telemetry.jsonl: not found, but an earlier run read it (up to byte ${cursor.offset}, last event 2026-11-20T10:02:00.000Z): it was deleted, moved or rotated away.`);
    expect(notice).not.toContain('no telemetry file yet');
    expect(JSON.parse(read(dir, '.sleep-cycle/state.json')).cursors['logs/telemetry.jsonl']).toEqual(cursor);
  });

  it('named with --log is a usage error naming the path; the default log missing stays a notice', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) });
    const typo = await cli(dir, ['run', '--dry-run', '--log', 'logs/telemtry.jsonl']);
    expect(typo.code).toBe(2);
    expect(typo.json.error.code).toBe('E_USAGE');
    expect(typo.json.error.message).toContain('found nothing at logs/telemtry.jsonl');
    const plain = await text(dir, ['run', '--dry-run', '--log', 'logs/telemtry.jsonl', '--log', 'logs/telemetry.jsonl']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^sleep-cycle: E_USAGE: --log expects an existing telemetry file, found nothing at logs\/telemtry\.jsonl/);
    expect(plain.stdout).toBe('');

    const named = await cli(dir, ['run', '--dry-run', '--log', 'logs/telemetry.jsonl']);
    expect(named.code).toBe(0);
    expect(named.json.data.lines.read).toBe(3);
    rmSync(join(dir, 'logs/telemetry.jsonl'));
    const fallback = await cli(dir, ['run', '--dry-run']);
    expect(fallback.code).toBe(0);
    expect(fallback.json.data.notices.join(' ')).toContain('no telemetry file yet');
  });
});

describe('the notice about events leaving the window', () => {
  it('does not speak of "the newest one" on a night that read no event', async () => {
    // Two failures: below min_repeats, carried over. Ten days later, with nothing new, they age out.
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(2, {})) });
    await cli(dir, ['run', '--no-commit']);
    const quiet = await cli(dir, ['run', '--dry-run'], '2026-12-01T03:00:00Z');
    expect(quiet.json.data.lines.read).toBe(0);
    const notices = quiet.json.data.notices.join('\n');
    expect(notices).toContain('2 events carried over from earlier nights are now more than 7 days old and no longer count toward a rule.');
    expect(notices).not.toContain('newest');
  });
});

describe('where evidence sits in the log', () => {
  it('is shown as a byte offset in the report and in explain; state.json keeps its numeric field', async () => {
    const log = lines(...failures(3, {}));
    const second = log.indexOf('\n') + 1;
    const dir = makeDir({ 'logs/telemetry.jsonl': `${log}not json\n` });
    const { json } = await cli(dir, ['run', '--no-commit']);
    const id = json.data.proposals[0].id;

    const report = read(dir, 'proposed_memory_updates.md');
    expect(report).toContain('| where in the log |');
    expect(report).toContain('| `logs/telemetry.jsonl (byte 0)` |');
    expect(report).toContain(`| \`logs/telemetry.jsonl (byte ${second})\` |`);
    expect(report).toContain(`First 1: \`logs/telemetry.jsonl (byte ${log.length})\`: invalid_json`);
    expect(report).not.toMatch(/telemetry\.jsonl:\d/);

    const explain = await text(dir, ['explain', id]);
    expect(explain.stdout).toContain(`logs/telemetry.jsonl (byte ${second}) input`);
    expect(explain.stdout).not.toMatch(/telemetry\.jsonl:\d/);

    const evidence = JSON.parse(read(dir, '.sleep-cycle/state.json')).rules[id].provenance.evidence;
    expect(evidence[1]).toMatchObject({ file: 'logs/telemetry.jsonl', offset: second });
    const explained = await cli(dir, ['explain', id]);
    expect(explained.json.data.evidence[1]).toMatchObject({ file: 'logs/telemetry.jsonl', offset: second });
  });
});
