import { appendFileSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { event, failures, lines, makeDir, read } from '../helpers/repo.js';

describe('ingest', () => {
  it('counts invalid lines exactly, by reason, and keeps the valid lines around them', async () => {
    const dir = makeDir({
      'logs/telemetry.jsonl': lines(
        event(), '{"truncated": ', 'Segmentation fault', '[1,2]', event({ tool_name: '' }), event({ exit_code: '1' }), event({ duration_ms: -1 }),
        event({ timestamp: 'yesterday' }), event({ input_hash: 7 }), event({ memory_refs: 'r-1' }), '', '   ', event(),
      ) + `${'x'.repeat(2000)}\n${event()}\n`,
      'config/sleep-cycle.yaml': 'max_line_bytes: 1000\n',
    });
    const { json } = await cli(dir, ['run', '--dry-run']);
    expect(json.data.lines).toMatchObject({ read: 13, valid: 3, invalid: 10, blank: 2, old: 0 });
    expect(json.data.lines.invalid_by_reason).toEqual({
      invalid_json: 2, not_an_object: 1, bad_tool_name: 1, bad_exit_code: 1, bad_duration_ms: 1, bad_timestamp: 1, bad_input_hash: 1, bad_optional_field: 1, line_too_long: 1,
    });
  });

  it('reads a UTF-8 BOM and CRLF line endings', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': `\ufeff${failures(3, {}).join('\r\n')}\r\n` });
    const { json } = await cli(dir, ['run', '--dry-run']);
    expect(json.data.lines).toMatchObject({ read: 3, valid: 3, invalid: 0 });
    expect(json.data.proposals).toHaveLength(1);
  });

  it('falls back to the last timestamp, and says so, when the file was replaced or truncated', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(2, { timestamp: '2026-11-19T10:00:00.000Z' })) });
    await cli(dir, ['run', '--no-commit']);
    // Rotated: a new file with one old line (already counted) and two new ones.
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-19T09:00:00.000Z' }), event({ timestamp: '2026-11-20T09:00:00.000Z' }), event({ timestamp: '2026-11-20T09:30:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit']);
    expect(json.data.lines).toMatchObject({ read: 3, valid: 2, old: 1 });
    expect(json.data.notices.join(' ')).toMatch(/shrank|replaced/);
  });

  it('a line dated far in the future does not make a replaced file\'s new lines old: the fallback never counts past the last run', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(2, { timestamp: '2026-11-19T10:00:00.000Z' }), event({ timestamp: '9999-12-31T00:00:00.000Z' })) });
    await cli(dir, ['run', '--no-commit'], '2026-11-21T03:00:00Z');
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-19T09:00:00.000Z' }), event({ timestamp: '2026-11-22T09:00:00.000Z' }), event({ timestamp: '2026-11-22T09:30:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit'], '2026-11-23T03:00:00Z');
    expect(json.data.lines).toMatchObject({ read: 3, valid: 2, old: 1 });
    expect(json.data.notices.join(' ')).toContain('after 2026-11-21T03:00:00.000Z');
  });

  it('a line dated far in the future does not hide a rotation: the copy is finished from the cursor, the new file read whole', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(event({ timestamp: '2026-11-20T10:00:00.000Z' }), event({ timestamp: '9999-12-31T00:00:00.000Z' })) });
    await cli(dir, ['run', '--no-commit'], '2026-11-21T03:00:00Z');
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-21T11:00:00.000Z' })));
    renameSync(join(dir, 'logs/telemetry.jsonl'), join(dir, 'logs/telemetry.jsonl.1'));
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-21T12:00:00.000Z' }), event({ timestamp: '2026-11-21T12:01:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit'], '2026-11-22T03:00:00Z');
    expect(json.data.lines).toMatchObject({ read: 3, valid: 3, old: 0 });
    expect(json.data.notices.join(' ')).toContain('was rotated');
  });

  it('a rotated log is finished from the cursor, then the new file is read from its start', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(event(), event()) });
    await cli(dir, ['run', '--no-commit']);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-20T11:00:00.000Z' })));
    renameSync(join(dir, 'logs/telemetry.jsonl'), join(dir, 'logs/telemetry.jsonl.1'));
    writeFileSync(join(dir, 'logs/telemetry.jsonl'), lines(event({ timestamp: '2026-11-20T12:00:00.000Z' }), event({ timestamp: '2026-11-20T12:01:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit']);
    expect(json.data.lines).toMatchObject({ read: 3, valid: 3, old: 0 });
    expect(json.data.notices.join(' ')).toContain('was rotated');
    const again = await cli(dir, ['run', '--no-commit']);
    expect(again.json.data.lines.read).toBe(0);
  });

  it('a log rotated twice (the older copy gzipped) is finished from the cursor, then every later copy, then the new file', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(event(), event()) });
    await cli(dir, ['run', '--no-commit']);
    const log = join(dir, 'logs/telemetry.jsonl');
    // Night A: two more lines, then logrotate: .1 → .2.gz (compressed), current → .1.
    appendFileSync(log, lines(event({ timestamp: '2026-11-20T11:00:00.000Z' }), event({ timestamp: '2026-11-20T11:01:00.000Z' })));
    writeFileSync(`${log}.2.gz`, gzipSync(readFileSync(log)));
    rmSync(log);
    utimesSync(`${log}.2.gz`, new Date('2026-11-20T12:00:00Z'), new Date('2026-11-20T12:00:00Z'));
    // Night B, before anyone ran: a copy with three lines, its last one without a newline (never finished).
    writeFileSync(`${log}.1`, `${lines(event({ timestamp: '2026-11-21T09:00:00.000Z' }), event({ timestamp: '2026-11-21T09:01:00.000Z' }))}${event({ timestamp: '2026-11-21T09:02:00.000Z' })}`);
    utimesSync(`${log}.1`, new Date('2026-11-21T12:00:00Z'), new Date('2026-11-21T12:00:00Z'));
    writeFileSync(log, lines(event({ timestamp: '2026-11-22T09:00:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit'], '2026-11-22T10:00:00Z');
    // 2 from the gzipped copy (after the cursor), 3 from .1 (its torn last line included), 1 from the new file.
    expect(json.data.lines).toMatchObject({ read: 6, valid: 6, old: 0 });
    expect(json.data.notices.join(' ')).toContain('finished logs/telemetry.jsonl.2.gz from byte');
    expect(json.data.notices.join(' ')).toContain('read logs/telemetry.jsonl.1');
    expect((await cli(dir, ['run', '--no-commit'], '2026-11-22T11:00:00Z')).json.data.lines.read).toBe(0);
  });

  it('rotated_logs names where rotated copies are found', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(event(), event()), 'config/sleep-cycle.yaml': 'rotated_logs: "{log}-*.gz"\n' });
    await cli(dir, ['run', '--no-commit']);
    const log = join(dir, 'logs/telemetry.jsonl');
    appendFileSync(log, lines(event({ timestamp: '2026-11-20T11:00:00.000Z' })));
    writeFileSync(`${log}-20261120.gz`, gzipSync(readFileSync(log)));
    writeFileSync(log, lines(event({ timestamp: '2026-11-21T09:00:00.000Z' })));
    const { json } = await cli(dir, ['run', '--no-commit']);
    expect(json.data.lines).toMatchObject({ read: 2, valid: 2, old: 0 });
    const bad = await cli(dir, ['run', '--dry-run'], undefined, { SLEEP_CYCLE_ROTATED_LOGS: 'logs/*.gz' });
    expect(bad.json.error.code).toBe('E_CONFIG');
  });

  it('--since reads from that time on, ignoring the cursor', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(event({ timestamp: '2026-11-18T00:00:00.000Z' }), event({ timestamp: '2026-11-19T00:00:00.000Z' }), event({ timestamp: '2026-11-20T00:00:00.000Z' })) });
    await cli(dir, ['run', '--no-commit']);
    const { json } = await cli(dir, ['run', '--dry-run', '--since', '2026-11-19T00:00:00Z']);
    expect(json.data.lines).toMatchObject({ read: 3, valid: 2, old: 1 });
  });

  it('--log is repeatable and each file keeps its own cursor', async () => {
    const dir = makeDir({ 'a.jsonl': lines(...failures(2, {})), 'b.jsonl': lines(...failures(1, {})) });
    const first = await cli(dir, ['run', '--no-commit', '--log', 'a.jsonl', '--log', 'b.jsonl']);
    expect(first.json.data.lines.valid).toBe(3);
    expect(first.json.data.proposals).toHaveLength(1);
    appendFileSync(join(dir, 'b.jsonl'), lines(event()));
    const second = await cli(dir, ['run', '--no-commit', '--log', 'a.jsonl', '--log', 'b.jsonl']);
    expect(second.json.data.lines.valid).toBe(1);
  });

  it('says so when a file is mostly not telemetry (a transcript passed by mistake)', async () => {
    const dir = makeDir({ 'transcript.jsonl': lines('{"type":"user","message":{}}', '{"type":"assistant","message":{}}') });
    const { code, json } = await cli(dir, ['run', '--dry-run', '--log', 'transcript.jsonl']);
    expect(code).toBe(0);
    expect(json.data.notices.join(' ')).toContain('2 of 2 lines are not telemetry events');
  });

  it('a night with more distinct clusters than max_clusters degrades with a warning instead of growing', async () => {
    const telemetry = lines(...Array.from({ length: 1_000 }, (_, i) => event({ tool_name: `tool_${i}`, exit_code: 1, error_category: 'api_error' })));
    const dir = makeDir({ 'logs/telemetry.jsonl': telemetry, 'config/sleep-cycle.yaml': 'max_clusters: 100\n' });
    const { code, json } = await cli(dir, ['run', '--dry-run']);
    expect(code).toBe(0);
    expect(json.data.lines.valid).toBe(1_000);
    expect(json.data.clusters).toHaveLength(100);
    expect(json.data.notices.join(' ')).toContain('900 events belonged to clusters beyond max_clusters (100)');
    // The heaviest are kept (here all weigh 1: the latest), and run --json counts what was dropped.
    expect(json.data.flood).toMatchObject({ clusters: 900, events: 900, rules_deferred: 0 });
    expect(read(dir, 'proposed_memory_updates.md')).toContain('900 events belonged to clusters beyond max_clusters (100)');
  });

  it('a missing telemetry file is nothing to do, not an error', async () => {
    const { code, json } = await cli(makeDir({}), ['run', '--dry-run']);
    expect(code).toBe(0);
    expect(json.data.lines.read).toBe(0);
    expect(json.data.notices.join(' ')).toContain('no telemetry file yet');
  });
});

describe('status and config', () => {
  it('status shows cursor, last sleep, pending clusters and rule counts', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {}), ...failures(1, { tool_name: 'Read', error_category: 'not_found' })) });
    await cli(dir, ['run', '--no-commit']);
    const { json } = await cli(dir, ['status']);
    expect(json.data).toMatchObject({ last_sleep: '2026-11-21T03:00:00.000Z', rules: { active: 1, total: 1 }, quarantined: 0 });
    expect(json.data.cursors[0]).toMatchObject({ path: 'logs/telemetry.jsonl' });
    expect(json.data.pending).toEqual([expect.objectContaining({ tool_name: 'Read', count: 1 })]);
  });

  it('config --print shows each setting with where it came from', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'min_repeats: 5\n' });
    const { json } = await cli(dir, ['config', '--print'], undefined, { SLEEP_CYCLE_WINDOW_DAYS: '3' });
    expect(json.data.settings.min_repeats).toMatchObject({ value: 5, source: 'file' });
    expect(json.data.settings.window_days).toMatchObject({ value: 3, source: 'env', env: 'SLEEP_CYCLE_WINDOW_DAYS' });
    expect(json.data.settings.slow_factor).toMatchObject({ value: 2, source: 'default' });
  });

  it('a broken state.json is E_STATE with how to recover, and nothing is written', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})), '.sleep-cycle/state.json': '{"version": 1, "rules": ', 'MEMORY.md': '# M\n' });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(1);
    expect(json.error.code).toBe('E_STATE');
    expect(json.error.message).toContain('git checkout');
  });

  it('says when the Claude synthesizer was asked for without a key, and writes the rules offline', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/sleep-cycle.yaml': 'synthesizer: claude\n' });
    const { json } = await cli(dir, ['run', '--dry-run']);
    expect(json.data.notices.join(' ')).toContain('ANTHROPIC_API_KEY is not set');
    expect(json.data.llm).toMatchObject({ synthesizer: 'offline', calls: 0 });
    expect(json.data.proposals[0].text).toContain('`git_push` fails with `fatal: Unable to create');
  });

  it('a log that invents a tool name per call: 10,000 are judged, the rest counted and named in a notice, state stays small', async () => {
    const calls = Array.from({ length: 10_050 }, (_, i) => event({ tool_name: `tool_${i}` }));
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...calls) });
    const { json } = await cli(dir, ['run', '--no-commit']);
    expect(json.data.lines).toMatchObject({ read: 10_050, valid: 10_050 });
    expect(json.data.notices.join(' ')).toContain('50 successful calls of tools beyond the first 10,000 tool names were not checked');
    const state = JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8'));
    expect(Object.keys(state.baselines)).toHaveLength(10_000);
  });
});

