import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestFold } from '../../pipeline/ingest/fold.js';
import { EventScanner } from '../../pipeline/telemetry/event-scanner.js';
import { checkEventTime } from '../../pipeline/telemetry/event.js';
import { makeLog, splitLines } from '../helpers/night-log.js';

/**
 * The event scanner reads most lines straight from their bytes and leaves the rest to JSON.parse and the
 * contract check. Whatever it accepts must be exactly what that path would make of the line: a valid
 * event with the same time and the same values. Lines are generated near the contract's shape (keys in any
 * order, odd values, escapes, spaces, non-ASCII) and then often broken by one byte.
 */

const scanner = new EventScanner();

function scanText(text: string): boolean {
  const bytes = Buffer.from(text);
  return scanner.scan(bytes, 0, bytes.length);
}

/** What the JSON.parse path makes of a line: its event and time, or null when it is not a valid event. */
function viaJson(text: string): { event: Record<string, unknown>; ts: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const ts = checkEventTime(value);
  return typeof ts === 'number' ? { event: value as Record<string, unknown>, ts } : null;
}

function expectSameAsJson(text: string): boolean {
  const accepted = scanText(text);
  if (!accepted) return false;
  const parsed = viaJson(text);
  expect(parsed, text).not.toBeNull();
  expect(scanner.ts, text).toBe(parsed!.ts);
  expect(scanner.event(), text).toStrictEqual(parsed!.event);
  expect(scanner.toolName).toBe(parsed!.event.tool_name);
  expect(scanner.exitCode).toBe(parsed!.event.exit_code);
  expect(scanner.durationMs).toBe(parsed!.event.duration_ms);
  expect(scanner.memoryRefs()).toStrictEqual(parsed!.event.memory_refs);
  return true;
}

const asciiText = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\u0001', '\u007f', 'é', '\u2028', '😀', '<', ':'), maxLength: 12 });
const timestamp = fc.oneof(
  fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
  fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`),
  fc.constantFrom('2026-02-30T10:00:00Z', '2026-11-20T24:00:00.000Z', '2026-11-20T10:00:00+01:00', '2026-11-20', 'x', ''),
  fc.double(),
  fc.constantFrom(-1, 0, -0, 1e400 - 1e400, 1_700_000_000_000),
);
/** Numbers, and integers of up to 20 digits written out in full (a bigint is written as its digits). */
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1e21, 2 ** 53 + 1, -1, 0.5), fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }));
const json = (value: unknown) => (typeof value === 'bigint' ? String(value) : JSON.stringify(value));
const anyValue = fc.oneof(asciiText, number, fc.constantFrom(null, true, false), fc.array(asciiText, { maxLength: 3 }), fc.constant({ a: 1 }));
/** A valid event of ASCII values (most of them), sometimes without its optional fields. */
const validEvent = fc.record(
  {
    timestamp: fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
    tool_name: fc.constantFrom('Bash', 'Read', 'git_push', 'x'.repeat(200)),
    input_hash: fc.string({ unit: fc.constantFrom('0', '9', 'a', 'f'), minLength: 1, maxLength: 16 }),
    exit_code: fc.oneof(fc.integer({ min: -2, max: 255 }), fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n })),
    duration_ms: fc.oneof(fc.nat(100_000), fc.double({ min: 0, max: 1e6, noNaN: true })),
    error_category: fc.oneof(fc.constantFrom('git_error', 'benign'), fc.constant(null)),
    error_message: fc.oneof(asciiText, fc.constant('Exit code 1\nbash: x: Permission denied'), fc.constant(null)),
    session_id: fc.oneof(fc.constantFrom('s-1', 's-2'), fc.constant(null)),
    agent: fc.constant('claude-code'),
    memory_refs: fc.array(fc.constantFrom('r-0123abcd', 'r-ffff'), { maxLength: 3 }),
    input_summary: fc.oneof(asciiText, fc.constantFrom('cd /repo && python -m pytest -x 2>&1 | tail -20', 'src/a.ts', '{owner, repo}', 'x'.repeat(250)), fc.constant(null)),
  },
  { requiredKeys: ['timestamp', 'tool_name', 'input_hash', 'exit_code', 'duration_ms'] },
);
/** Any value for any field (the contract's and others): most of these make the event invalid. */
const tweak = fc.tuple(
  fc.constantFrom('timestamp', 'tool_name', 'input_hash', 'exit_code', 'duration_ms', 'error_category', 'error_message', 'session_id', 'agent', 'memory_refs', 'input_summary', 'extra', '__proto__'),
  fc.oneof(anyValue, timestamp, number, fc.constantFrom('', 'x'.repeat(201), '1')),
);
const fields = fc.tuple(validEvent, fc.array(tweak, { maxLength: 2 }), fc.array(fc.constantFrom('timestamp', 'tool_name', 'exit_code', 'error_message', 'input_summary'), { maxLength: 1 })).map(([event, tweaks, dropped]) => {
  const record: Record<string, unknown> = { ...event };
  for (const [key, value] of tweaks) Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of dropped) delete record[key];
  return record;
});

/** A JSON text of the fields in a shuffled order, compact or spaced (some loggers write `", "`). */
const line = fc.tuple(fields, fc.nat(), fc.constantFrom('', ' ', '\t', '  ')).map(([record, seed, gap]) => {
  const entries = Object.entries(record);
  // A deterministic shuffle from the seed.
  for (let i = entries.length - 1; i > 0; i--) {
    const j = (seed + i * 7919) % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return `{${gap}${entries.map(([key, value]) => `${JSON.stringify(key)}${gap}:${gap}${json(value)}`).join(`,${gap}`)}${gap}}`;
});

/** A line with one byte inserted, removed or replaced. */
const brokenLine = fc.tuple(line, fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.constantFrom('"', '\\', ',', ':', '}', '{', '[', ']', '0', '-', 'e', '.', ' ', 'x', '\u0000', '\u00ff')).map(
  ([text, at, how, char]) => {
    const i = at % (text.length + 1);
    if (how === 'insert') return text.slice(0, i) + char + text.slice(i);
    if (how === 'remove') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + char + text.slice(i + 1);
  },
);

describe('EventScanner', () => {
  it('accepts only valid events, with the same time and values as JSON.parse and the contract check', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(line, brokenLine), (text) => {
        if (expectSameAsJson(text)) accepted += 1;
      }),
      { numRuns: 20_000, seed: 5 },
    );
    // The generator makes plenty of valid events; the scanner must take many of them, not bail on all.
    expect(accepted).toBeGreaterThan(500);
  });

  it('accepts what loggers write: compact JSON of a valid ASCII event, with escapes and spaces', () => {
    const event = {
      timestamp: '2026-11-20T10:00:00.250Z', tool_name: 'Bash', input_hash: 'abc123', exit_code: 1, duration_ms: 12.5,
      error_category: 'git_error', error_message: 'Exit code 1\n\t"fatal": \\ \u0001 /x \u007f', session_id: 's-1', agent: 'claude-code', memory_refs: ['r-0123abcd'],
      input_summary: 'cd /repo && grep -n "a|b" src/*.py 2>&1 | head',
    };
    for (const text of [JSON.stringify(event), JSON.stringify(event).replaceAll('","', '", "').replaceAll('":', '": '), JSON.stringify({ ...event, timestamp: 1_763_632_800_000 })]) {
      expect(expectSameAsJson(text), text).toBe(true);
    }
    expect(expectSameAsJson('{"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":-0,"duration_ms":1e3,"error_message":"\\ud83d\\ude00 \\u00e9"}')).toBe(true);
  });

  it('leaves to JSON.parse what it does not read itself', () => {
    const valid = '"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":0,"duration_ms":5';
    for (const text of [
      `{${valid},"cwd":"/tmp"}`, // an unknown key
      `{${valid},"tool_name":"Bash"}`, // a repeated key (JSON.parse keeps the last)
      `{${valid},"error_message":"café"}`, // non-ASCII
      `{${valid},"memory_refs":null}`, // invalid
      `{${valid},"input_summary":1}`, // invalid
      `{${valid},"input_summary":"café"}`, // non-ASCII
      `{${valid}} `, // trailing space
      ` {${valid}}`,
      `{${valid},"exit_code":1}`,
      `{"timestamp":"2026-11-20T10:00:00+01:00","tool_name":"Read","input_hash":"h","exit_code":0,"duration_ms":5}`,
      ...['01', '00', '-00', '-', '1.', '1e', '.5', '+1', '1e+', '0x1', '1.5'].map((n) => `{${valid.replace('"exit_code":0', `"exit_code":${n}`)}}`),
      ...['[,]', '[,', '["r-1",]', '["r-1"', '["r-1",,"r-2"]', '[1]', '[null]'].map((refs) => `{${valid},"memory_refs":${refs}}`),
      '{"timestamp":"2026-11-20T10:00:00Zx,"tool_name":"Read","input_hash":"h","exit_code":0,"duration_ms":5}',
      ...['2026-11-20T10:00:00Zx', '2026-11-20T10:00:00.000Zx', '2026-11-20T10:00:00.000', '2026-11-20T10:00:00'].map((t) => `{${valid.replace('2026-11-20T10:00:00Z', t)}}`),
      `{${valid.replace('"duration_ms":5', '"duration_ms":-5')}}`,
      `{${valid.replace('"duration_ms":5', '"duration_ms":1e400')}}`,
    ]) {
      expect(scanText(text), text).toBe(false);
    }
  });

  it('reads long integers as JSON.parse does (rounded once, not digit by digit)', () => {
    let seed = 12_345;
    const digit = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed % 10;
    };
    for (let i = 0; i < 5000; i++) {
      const length = 14 + (i % 8);
      const digits = `${1 + (digit() % 9)}${Array.from({ length: length - 1 }, digit).join('')}`;
      const text = `{"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":${digits},"duration_ms":${digits}}`;
      expect(expectSameAsJson(text), text).toBe(true);
    }
  });

  it('refuses raw control characters inside strings, wherever they fall', () => {
    const message = 'a long error message, long enough to be read four bytes at a time';
    for (let at = 0; at < message.length; at++) {
      for (const control of ['\u0000', '\u0001', '\u001f', '\t', '\n']) {
        const text = `{"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":1,"duration_ms":5,"error_message":"${message.slice(0, at)}${control}${message.slice(at)}"}`;
        expect(scanText(text), JSON.stringify(text)).toBe(false);
      }
      // DEL is not a control character to JSON: it stays, as JSON.parse keeps it.
      expect(expectSameAsJson(`{"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":1,"duration_ms":5,"error_message":"${message.slice(0, at)}\u007f${message.slice(at)}"}`)).toBe(true);
    }
  });

  it('never reads past the end of its line', () => {
    const text = '{"timestamp":"2026-11-20T10:00:00Z","tool_name":"Read","input_hash":"h","exit_code":0,"duration_ms":5}';
    const bytes = Buffer.from(`${text}\n${text}`);
    expect(scanner.scan(bytes, 0, text.length)).toBe(true);
    // A range whose next byte is not a line end is refused rather than read beyond.
    expect(scanner.scan(bytes, 0, text.length - 1)).toBe(false);
    expect(scanner.scan(Buffer.from(`${text}}`), 0, text.length)).toBe(false);
    // A timestamp last in its line, then bytes that would close it as a 24-character one: still read as
    // its own 20 characters, from inside the line only.
    const last = '{"tool_name":"Bash","input_hash":"ab","exit_code":0,"duration_ms":1,"timestamp":"2024-01-01T00:00:00Z"}';
    const spied = new Proxy(Buffer.from(`${last}\n.000"`), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) > last.length) throw new Error(`read byte ${key}, past the line`);
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(scanner.scan(spied as unknown as Buffer, 0, last.length)).toBe(true);
    expect(scanner.ts).toBe(Date.parse('2024-01-01T00:00:00Z'));
    // A line cut anywhere, at the very end of its buffer: refused, never read beyond.
    for (let cut = 1; cut < text.length; cut++) expect(scanner.scan(Buffer.from(text.slice(0, cut)), 0, cut)).toBe(false);
  });
});

describe('IngestFold reading bytes', () => {
  it('folds a night the same whether lines come as bytes (scanned) or as text (JSON.parse)', () => {
    const log = makeLog({ seed: 3, lines: 3000, messageVariety: 50, inputVariety: 2000, rareToolAt: 2500 });
    const extra = ['{"timestamp":"2026-11-01T00:00:00.000+00:00","tool_name":"Read","input_hash":"h","exit_code":0,"duration_ms":5}', '{"timestamp":"2026-11-01T01:00:00Z","tool_name":"Bash","input_hash":"é","exit_code":2,"duration_ms":5,"error_message":"x"}'];
    const text = `${log}\n${extra.join('\n')}\n`;
    const settings = { sample_size: 5, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 20, slow_min_ms: 0 };
    const segment = { file: 'logs/telemetry.jsonl', cutoff: null };
    const asBytes = new IngestFold(settings, {}, { scanAfterLines: 0 });
    const asText = new IngestFold(settings, {});
    const lines = splitLines(text, 1 << 20);
    for (const l of lines) {
      asBytes.line(l, segment);
      asText.line({ text: l.text, offset: l.offset, next: l.next, tooLong: l.tooLong }, segment);
    }
    const outcome = (fold: IngestFold) => ({ lines: fold.lines, invalid: fold.invalidSamples, window: fold.window, usage: fold.usage.finish(fold.toolName), baselines: fold.detector.finish(), clusters: fold.builder.finish() });
    expect(asBytes.lines.valid).toBeGreaterThan(2500);
    expect(outcome(asBytes)).toStrictEqual(outcome(asText));
  });
});

describe('EventScanner and input_summary', () => {
  it('reads lines carrying input_summary itself, so they do not fall back to JSON.parse', () => {
    const base = { timestamp: '2026-11-20T10:00:00.000Z', tool_name: 'Bash', input_hash: 'ab12', exit_code: 1, duration_ms: 40, error_category: 'dependency_missing' };
    for (const summary of ['pytest -q', 'cd /repo && python -c "print(\\"x\\")" | tail -5', 'x'.repeat(200), '']) {
      const text = JSON.stringify({ ...base, input_summary: summary });
      expect(scanText(text), text).toBe(true);
      expect(scanner.event().input_summary).toBe(summary);
    }
    expect(scanText(JSON.stringify({ ...base, input_summary: null }))).toBe(true);
    expect(scanner.event().input_summary).toBeNull();
    // A line without it has none (the field's bit does not linger from the line before).
    expect(scanText(JSON.stringify(base))).toBe(true);
    expect(scanner.event()).not.toHaveProperty('input_summary');
  });
});
