import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readGzipLines } from '../../pipeline/io/gzip-reader.js';
import { cli } from '../helpers/in-process.js';
import { event, failures, lines, makeDir, read } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const TELEMETRY = 'logs/telemetry.jsonl';

/**
 * A gzip file of `members` copies of one compressed member (gzip allows members back to back): a
 * bomb that inflates to members × member size, built in milliseconds.
 */
function bomb(path: string, memberText: Buffer, members: number): void {
  const member = gzipSync(memberText, { level: 9 });
  writeFileSync(path, Buffer.concat(Array.from({ length: members }, () => member)));
}

const ZEROS = Buffer.alloc(64 << 20);
const SAME_LINE = Buffer.from(`${event({ exit_code: 1, error_category: 'git_error', error_message: 'fatal: boom' })}\n`.repeat(200_000));

describe('resource caps: rotated .gz copies', () => {
  it.each([
    ['zeros', ZEROS, 32],
    ['one telemetry line repeated', SAME_LINE, Math.ceil((2 * 1024 ** 3) / SAME_LINE.length)],
  ] as const)('a gzip bomb (%s, inflating to 2 GiB) is refused in well under a second, with E_IO naming it', async (_, text, members) => {
    const path = join(tempDir(), 'telemetry.jsonl.1.gz');
    bomb(path, text, members);
    const started = Date.now();
    let lines = 0;
    const error = await readGzipLines(path, 0, { maxLineBytes: 1 << 20, final: true }, () => void (lines += 1)).then(() => null, (e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(900);
    expect(error).toMatchObject({ code: 'E_IO' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('gzip bomb');
    expect(statSync(path).size).toBeLessThan(10 << 20);
  });

  it('a genuine rotated log of 12 MB compresses about 10 to 1 and is read whole', async () => {
    const path = join(tempDir(), 'telemetry.jsonl.1.gz');
    const count = 60_000;
    const text = Array.from({ length: count }, (_, i) => `${event({ input_hash: randomBytes(8).toString('hex'), session_id: `s-${randomBytes(4).toString('hex')}`, duration_ms: i % 5000, timestamp: new Date(Date.UTC(2026, 10, 20) + i * 1000).toISOString() })}\n`).join('');
    writeFileSync(path, gzipSync(text));
    let seen = 0;
    const end = await readGzipLines(path, 0, { maxLineBytes: 1 << 20, final: true }, () => void (seen += 1));
    expect(seen).toBe(count);
    expect(end).toBe(Buffer.byteLength(text));
  });

  it('a bomb among the rotated copies stops the run with that error; the cursor does not move', async () => {
    const dir = makeDir({ [TELEMETRY]: lines(...failures(3, {})) }, { git: true });
    expect((await cli(dir, ['run'])).code).toBe(0);
    const state = read(dir, '.sleep-cycle/state.json');
    // logrotate: the log becomes .2, an attacker's bomb is .1.gz, a new log starts.
    renameSync(join(dir, TELEMETRY), join(dir, `${TELEMETRY}.2`));
    bomb(join(dir, `${TELEMETRY}.1.gz`), ZEROS, 32);
    writeFileSync(join(dir, TELEMETRY), lines(...failures(3, { timestamp: '2026-11-21T10:00:00.000Z', error_message: 'fatal: a later failure' })));
    const started = Date.now();
    const run = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('E_IO');
    expect(run.json.error.message).toContain('telemetry.jsonl.1.gz');
    expect(read(dir, '.sleep-cycle/state.json')).toBe(state);
  });
});

describe('resource caps: bytes per night', () => {
  it('reads at most max_bytes_per_night a night; the cursor stops after the last whole line, and later nights read the rest exactly once', async () => {
    const all = Array.from({ length: 1500 }, (_, i) => event({ exit_code: i % 2, error_category: 'git_error', error_message: `fatal: thing ${i % 7} failed`, tool_name: 'git_push' }));
    const dir = makeDir({ [TELEMETRY]: lines(...all), 'config/sleep-cycle.yaml': 'max_bytes_per_night: 65536\n' }, { git: true });
    const size = statSync(join(dir, TELEMETRY)).size;
    expect(size).toBeGreaterThan(3 * 65536);
    let read = 0;
    let nights = 0;
    const offsets: number[] = [];
    while (read < all.length && nights < 10) {
      const run = await cli(dir, ['run'], `2026-11-${21 + nights}T03:00:00Z`);
      nights += 1;
      expect(run.code, JSON.stringify(run.json.error)).toBe(0);
      read += run.json.data.lines.read;
      const cursor = JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8')).cursors[TELEMETRY];
      offsets.push(cursor.offset);
      // Always just after a newline, never more than the cap past the last night's cursor.
      expect(readFileSync(join(dir, TELEMETRY)).subarray(cursor.offset - 1, cursor.offset).toString()).toBe('\n');
      expect(cursor.offset - (offsets.at(-2) ?? 0)).toBeLessThanOrEqual(65536);
      if (cursor.offset < size) expect(run.json.data.notices.join(' ')).toContain('max_bytes_per_night 65536');
    }
    expect(read).toBe(all.length);
    expect(nights).toBeGreaterThan(3);
    expect(offsets.at(-1)).toBe(size);
  });

  it('a cap smaller than one line still moves on: the first read of a night always has room for a whole line', async () => {
    const long = (i: number) => event({ exit_code: 1, error_category: 'git_error', error_message: `fatal: ${i} ${'x'.repeat(70_000)}` });
    const dir = makeDir({ [TELEMETRY]: lines(long(1), long(2), long(3)), 'config/sleep-cycle.yaml': 'max_bytes_per_night: 65536\nmax_line_bytes: 100000\n' }, { git: true });
    for (const [k, now] of ['2026-11-21', '2026-11-22', '2026-11-23'].entries()) {
      const run = await cli(dir, ['run'], `${now}T03:00:00Z`);
      expect(run.code, JSON.stringify(run.json.error)).toBe(0);
      expect(run.json.data.lines.read, `night ${k + 1}`).toBe(1);
    }
  });
});

describe('resource caps: event times outside years 1970–9999', () => {
  it('numeric and string times past the Date range or before 1970 are invalid lines, counted, never stored; later nights work', async () => {
    const bad = [1e20, 8.64e15 + 1, Date.UTC(10000, 0, 1), -1, '+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z'];
    const dir = makeDir({ [TELEMETRY]: lines(...bad.map((timestamp) => event({ timestamp, exit_code: 1, error_category: 'git_error' })), ...failures(3, {})) }, { git: true });
    const first = await cli(dir, ['run']);
    expect(first.code, JSON.stringify(first.json.error)).toBe(0);
    expect(first.json.data.lines).toMatchObject({ invalid: bad.length, valid: 3 });
    expect(read(dir, 'proposed_memory_updates.md')).toMatch(/\| bad_timestamp \| 7 \|/);
    const state = read(dir, '.sleep-cycle/state.json');
    for (const text of ['275760', '+01000', '1969-', '1e+20']) expect(state).not.toContain(text);
    appendFileSync(join(dir, TELEMETRY), lines(event({ timestamp: 1e20 }), ...failures(1, {})));
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z');
    expect(second.code, JSON.stringify(second.json.error)).toBe(0);
    expect(second.json.data.lines).toMatchObject({ invalid: 1, valid: 1 });
  });
});
