import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFuzzTelemetry, type FuzzExpectation } from '../helpers/fuzz.js';
import { makeDir, read, runCliProcess, type CliRun } from '../helpers/repo.js';

const REASONS = ['invalid_json', 'not_an_object', 'bad_timestamp', 'bad_tool_name', 'bad_input_hash', 'bad_exit_code', 'bad_duration_ms', 'bad_optional_field', 'line_too_long'];
const MEMORY = '# Memory\n\nHuman notes.\n';
/** The fuzz files are tens of MB: removed after each test. */
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes the fuzz file into a temp repo and runs the built CLI on it with a small heap. */
function fuzzRun(options: { seed: number; count: number; maxLineBytes?: number }): { dir: string; expected: FuzzExpectation; run: CliRun } {
  const dir = makeDir({ 'MEMORY.md': MEMORY });
  made.push(dir);
  mkdirSync(join(dir, 'logs'), { recursive: true });
  if (options.maxLineBytes !== undefined) {
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/sleep-cycle.yaml'), `max_line_bytes: ${options.maxLineBytes}\n`);
  }
  const expected = writeFuzzTelemetry(join(dir, 'logs/telemetry.jsonl'), options);
  expect(statSync(join(dir, 'logs/telemetry.jsonl')).size).toBe(expected.bytes);
  console.log(
    `fuzz seed ${options.seed}, max_line_bytes ${options.maxLineBytes ?? 'default'}: ${expected.lines} lines, ${expected.bytes} bytes`,
    JSON.stringify({ read: expected.read, valid: expected.valid, invalid: expected.invalid, blank: expected.blank, invalid_by_reason: expected.invalid_by_reason }),
  );
  // A small heap: the 10 MB line and the deep lines must not need memory in proportion to their size.
  const run = runCliProcess(dir, ['run', '--dry-run', '--json', '--offline'], { NODE_OPTIONS: '--max-old-space-size=128' });
  return { dir, expected, run };
}

function expectExactCounts({ dir, expected, run }: ReturnType<typeof fuzzRun>): void {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.json.success).toBe(true);
  const lines = run.json.data.lines;
  expect({ read: lines.read, valid: lines.valid, invalid: lines.invalid, blank: lines.blank, old: lines.old }).toEqual({
    read: expected.read,
    valid: expected.valid,
    invalid: expected.invalid,
    blank: expected.blank,
    old: 0,
  });
  expect(lines.invalid_by_reason).toEqual(expected.invalid_by_reason);

  // Every valid failure reached a cluster: per tool, the failure clusters add up to what was written.
  const counted: Record<string, number> = {};
  for (const cluster of run.json.data.clusters as { kind: string; tool_name: string; count: number }[]) {
    if (cluster.kind === 'failure') counted[cluster.tool_name] = (counted[cluster.tool_name] ?? 0) + cluster.count;
  }
  expect(counted).toEqual(expected.failures_by_tool);

  // A dry run writes the report and nothing else.
  expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  expect(existsSync(join(dir, '.sleep-cycle/state.json'))).toBe(false);
  expect(existsSync(join(dir, 'proposed_memory_updates.md'))).toBe(true);
}

describe('garbage: seeded fuzz of the telemetry reader', () => {
  it('counts 100,000+ hostile lines exactly, by reason, and every valid line (default max_line_bytes)', () => {
    const result = fuzzRun({ seed: 0x5eed_0005, count: 100_000 });
    expect(result.expected.lines).toBeGreaterThanOrEqual(100_000);
    // Every reason occurs: the fuzz is not accidentally only valid lines.
    for (const reason of REASONS) expect(result.expected.invalid_by_reason[reason], reason).toBeGreaterThan(0);
    for (const recipe of ['ten_mb_line', 'exactly_max', 'deep_array', 'deep_object', 'deep_memory_refs', 'valid_deep_unknown_field', 'very_deep_array', 'nul_bytes', 'random_bytes', 'valid_bad_utf8_in_message']) {
      expect(result.expected.by_recipe[recipe], recipe).toBeGreaterThan(0);
    }
    expectExactCounts(result);
    // 61 MB: above ingest_worker_min_mb, so a worker thread read the second half. Its fold merges unless a session
    // of the first half gave a secret away (split-secrets.ts canAbsorb): the fuzz's random tokens now read as cut
    // secrets (random-pieces.ts), and the range is read again; the counts are exact either way (above).
    expect(result.run.json.data.parallel_ingest).toMatchObject({ file: 'logs/telemetry.jsonl' });
  });

  it('counts exactly with a small max_line_bytes, where many lines straddle the limit', () => {
    const result = fuzzRun({ seed: 0x5eed_0256, count: 30_000, maxLineBytes: 256 });
    expect(result.expected.invalid_by_reason.line_too_long).toBeGreaterThan(1000);
    expect(result.expected.valid).toBeGreaterThan(1000);
    expectExactCounts(result);
  });
});

describe('defects found by these tests, now fixed', () => {
  // max_line_bytes is about the line; its CRLF ending should not make a line "too long" that the same
  // line with an LF ending is not. pipeline/io/line-reader.ts:95 counts the CR before the LF.
  it('a line of exactly max_line_bytes is read whether it ends in LF or CRLF', () => {
    const shell = (message: string) => JSON.stringify({ timestamp: '2026-11-20T10:00:00.000Z', tool_name: 'Bash', input_hash: 'h1', exit_code: 0, duration_ms: 5, error_message: message });
    const line = shell('m'.repeat(256 - shell('').length));
    expect(Buffer.byteLength(line)).toBe(256);
    const dir = makeDir({ 'logs/telemetry.jsonl': `${line}\n${line}\r\n`, 'config/sleep-cycle.yaml': 'max_line_bytes: 256\n' });
    const run = runCliProcess(dir, ['run', '--dry-run', '--json']);
    expect(run.code).toBe(0);
    expect(run.json.data.lines).toMatchObject({ read: 2, valid: 2, invalid: 0 });
  });
});
