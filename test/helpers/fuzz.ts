/**
 * A seeded generator of hostile telemetry for the garbage fuzz test. Every line is built from a known
 * recipe, so the generator knows, by construction and without asking our checker, how ingest must count
 * it: valid, blank, or invalid with one reason (`InvalidReason`).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { InvalidReason } from '../../pipeline/telemetry/event.js';

/** What the oracle expects of a line: the reason names are the product's, the judgement is the oracle's own. */
export type Outcome = 'valid' | 'blank' | InvalidReason;

export interface FuzzExpectation {
  lines: number;
  bytes: number;
  read: number;
  valid: number;
  invalid: number;
  blank: number;
  /** Only reasons that occur, as ingest reports them. */
  invalid_by_reason: Record<string, number>;
  /** Valid events that are failures (exit_code != 0, category not benign), per tool_name. */
  failures_by_tool: Record<string, number>;
  /** How many lines each recipe produced (for the report, and to prove every recipe ran). */
  by_recipe: Record<string, number>;
}

/** mulberry32: small, fast, and the same sequence on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEFAULT_MAX_LINE_BYTES = 1 << 20;

/**
 * Whether this engine's JSON.parse takes 10,000 nested arrays (V8 parses iteratively since 7.6). If it
 * threw (RangeError), ingest's try/catch must count the line as invalid_json instead of crashing. This
 * probes the platform's JSON.parse only, never our checker.
 */
function deepParses(depth: number): boolean {
  try {
    JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    return true;
  } catch {
    return false;
  }
}

const TOOLS = ['git_push', 'Bash', 'Edit', 'Read', 'npm_test'] as const;
const CATEGORIES = ['git_error', 'validation_error', 'timeout', 'not_found'] as const;
/** Byte sequences that are not UTF-8: lone continuation, overlong, truncated, surrogate, > U+10FFFF, never-valid bytes. */
const BAD_UTF8: number[][] = [[0x80], [0xbf], [0xc0, 0xaf], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe], [0xff], [0xf0, 0x9f, 0x98]];
/** Tool names with bad bytes (a fixed few, so they do not explode the cluster count). */
const BAD_TOOL_NAMES: Buffer[] = [
  Buffer.concat([Buffer.from('Bash'), Buffer.from([0xff])]),
  Buffer.concat([Buffer.from([0xc3]), Buffer.from('Edit')]),
  Buffer.concat([Buffer.from('mcp__'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('x')]),
];

interface Line {
  bytes: Buffer;
  outcome: Outcome;
  recipe: string;
  /** A valid failure's tool name (for the per-tool failure tally). */
  failureTool?: string;
  /** Force an LF ending (boundary lines whose length must be exact). */
  lfOnly?: boolean;
}

type Recipe = { name: string; weight: number; make: (ctx: Gen) => Line };

class Gen {
  n = 0;
  constructor(
    readonly rand: () => number,
    readonly deepOk: boolean,
    readonly maxLineBytes: number,
  ) {}
  int(max: number): number {
    return Math.floor(this.rand() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  timestamp(): string {
    const minute = this.int(2 * 24 * 60);
    return new Date(Date.UTC(2026, 10, 19) + minute * 60_000 + this.int(60_000)).toISOString();
  }
  /** A complete valid event; failures get a non-benign category. */
  event(overrides: Record<string, unknown> = {}, failure = this.rand() < 0.3): Record<string, unknown> {
    this.n += 1;
    const base: Record<string, unknown> = {
      timestamp: this.timestamp(),
      tool_name: this.pick(TOOLS),
      input_hash: `h${this.n.toString(16)}`,
      exit_code: failure ? 1 + this.int(3) : 0,
      duration_ms: this.int(2000),
      session_id: `s-${this.int(20)}`,
    };
    if (failure) {
      base.error_category = this.pick(CATEGORIES);
      base.error_message = `error ${this.int(1000)}: something failed`;
    }
    return { ...base, ...overrides };
  }
  /** Printable ASCII without `"` and `\`, safe inside a JSON string. */
  ascii(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) {
      let c = 0x20 + this.int(95);
      if (c === 0x22 || c === 0x5c) c = 0x5f;
      out += String.fromCharCode(c);
    }
    return out;
  }
  /** Random bytes, never LF (that would split the line). */
  randomBytes(length: number): Buffer {
    const bytes = Buffer.alloc(length);
    for (let i = 0; i < length; i++) {
      let b = this.int(256);
      if (b === 0x0a) b = 0x0b;
      bytes[i] = b;
    }
    return bytes;
  }
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** A valid event line, tallied as a failure when it is one. */
function validLine(g: Gen, recipe: string, value: Record<string, unknown>, bytes: Buffer = json(value)): Line {
  const failure = value.exit_code !== 0 && !['benign', 'interrupted', 'cancelled'].includes(String(value.error_category ?? ''));
  return { bytes, outcome: 'valid', recipe, ...(failure ? { failureTool: String(value.tool_name) } : {}) };
}

/** An event with one field broken in a known way. */
function broken(outcome: Outcome, recipe: string, mutate: (e: Record<string, unknown>, g: Gen) => void) {
  return (g: Gen): Line => {
    const e = g.event();
    mutate(e, g);
    return { bytes: json(e), outcome, recipe };
  };
}

function deep(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

const RECIPES: Recipe[] = [
  // ---- valid ----
  { name: 'valid', weight: 400, make: (g) => { const e = g.event(); return validLine(g, 'valid', e); } },
  { name: 'valid_epoch_ms', weight: 20, make: (g) => { const e = g.event({ timestamp: Date.UTC(2026, 10, 20) + g.int(86_400_000) }); return validLine(g, 'valid_epoch_ms', e); } },
  { name: 'valid_nulls_and_extras', weight: 20, make: (g) => { const e = g.event({ error_message: null, agent: null, memory_refs: ['r-1', 'r-2'], unknown: { a: [1, { b: null }] } }); return validLine(g, 'valid_nulls_and_extras', e); } },
  {
    // Numbers written differently are still the same numbers: 1.0 and 1e0 are integers, -0 is >= 0.
    name: 'valid_number_forms', weight: 10, make: (g) => {
      g.n += 1;
      const text = `{"timestamp":"${g.timestamp()}","tool_name":"Bash","input_hash":"nf${g.n}","exit_code":${g.pick(['0', '0.0', '0e0', '-0'])},"duration_ms":${g.pick(['0', '1e3', '12.5', '-0'])}}`;
      return { bytes: Buffer.from(text), outcome: 'valid', recipe: 'valid_number_forms' };
    },
  },
  {
    name: 'valid_padded', weight: 10, make: (g) => {
      const e = g.event();
      return validLine(g, 'valid_padded', e, Buffer.from(`${g.pick([' ', '\t', '  \t'])}${JSON.stringify(e)}${g.pick([' ', '\t', ' \r'])}`));
    },
  },
  {
    // Duplicate keys: JSON.parse keeps the last one, which is valid here.
    name: 'valid_duplicate_keys', weight: 5, make: (g) => {
      const e = g.event({}, false);
      const text = `{"exit_code":"not a number",${JSON.stringify(e).slice(1)}`;
      return validLine(g, 'valid_duplicate_keys', e, Buffer.from(text));
    },
  },
  {
    // Invalid UTF-8 inside a string becomes U+FFFD: the line is still a valid event.
    name: 'valid_bad_utf8_in_message', weight: 30, make: (g) => {
      const e = g.event({}, true);
      const parts: Buffer[] = [];
      for (let i = 0, k = 1 + g.int(4); i < k; i++) parts.push(Buffer.from(g.ascii(g.int(10))), Buffer.from(g.pick(BAD_UTF8)));
      const text = JSON.stringify({ ...e, error_message: '@@MSG@@' });
      const [before, after] = text.split('@@MSG@@') as [string, string];
      return validLine(g, 'valid_bad_utf8_in_message', e, Buffer.concat([Buffer.from(before), ...parts, Buffer.from(after)]));
    },
  },
  {
    name: 'valid_bad_utf8_in_tool_name', weight: 10, make: (g) => {
      const e = g.event({}, false);
      const text = JSON.stringify({ ...e, tool_name: '@@T@@' });
      const [before, after] = text.split('@@T@@') as [string, string];
      return { bytes: Buffer.concat([Buffer.from(before), g.pick(BAD_TOOL_NAMES), Buffer.from(after)]), outcome: 'valid', recipe: 'valid_bad_utf8_in_tool_name' };
    },
  },
  // JSON.stringify writes NUL as the escape \u0000, which JSON allows inside a string.
  { name: 'valid_escaped_nul', weight: 5, make: (g) => validLine(g, 'valid_escaped_nul', g.event({ error_message: 'a\u0000b\u0000' }, true)) },
  {
    // Unknown fields are ignored, however deep.
    name: 'valid_deep_unknown_field', weight: 1, make: (g) => {
      const e = g.event({}, false);
      const text = `${JSON.stringify(e).slice(0, -1)},"extra":${deep(10_000)}}`;
      return { bytes: Buffer.from(text), outcome: g.deepOk ? 'valid' : 'invalid_json', recipe: 'valid_deep_unknown_field' };
    },
  },
  { name: 'valid_tool_name_200', weight: 2, make: (g) => { const e = g.event({ tool_name: 'T'.repeat(200) }, false); return validLine(g, 'valid_tool_name_200', e); } },
  { name: 'valid_date_only', weight: 2, make: (g) => { const e = g.event({ timestamp: '2026-11-20' }, false); return validLine(g, 'valid_date_only', e); } },

  // ---- blank ----
  { name: 'blank', weight: 30, make: (g) => ({ bytes: Buffer.from(g.pick(['', ' ', '\t', '  \t  ', '\r', '\r\r'])), outcome: 'blank', recipe: 'blank' }) },

  // ---- invalid_json ----
  { name: 'random_bytes', weight: 60, make: (g) => ({ bytes: Buffer.concat([Buffer.from([0xff]), g.randomBytes(g.int(300))]), outcome: 'invalid_json', recipe: 'random_bytes' }) },
  { name: 'random_ascii', weight: 20, make: (g) => ({ bytes: Buffer.from(`x${g.ascii(g.int(200))}`), outcome: 'invalid_json', recipe: 'random_ascii' }) },
  {
    name: 'truncated_event', weight: 40, make: (g) => {
      const text = JSON.stringify(g.event());
      return { bytes: Buffer.from(text.slice(0, 1 + g.int(text.length - 1))), outcome: 'invalid_json', recipe: 'truncated_event' };
    },
  },
  {
    name: 'bad_utf8_outside_string', weight: 20, make: (g) => {
      const text = JSON.stringify(g.event());
      const at = text.indexOf(',') + 1;
      return { bytes: Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(g.pick(BAD_UTF8)), Buffer.from(text.slice(at))]), outcome: 'invalid_json', recipe: 'bad_utf8_outside_string' };
    },
  },
  {
    name: 'nul_bytes', weight: 30, make: (g) => {
      const text = JSON.stringify(g.event({ error_message: '@@NUL@@' }, true));
      const variants = [
        Buffer.from('\0'),
        Buffer.alloc(1 + g.int(64)),
        Buffer.from(text.replace('@@NUL@@', 'a\0b')), // a raw control character inside a string
        Buffer.from(`${text.replace('@@NUL@@', 'x')}\0`),
        Buffer.from(`\0${text.replace('@@NUL@@', 'x')}`),
      ];
      return { bytes: g.pick(variants), outcome: 'invalid_json', recipe: 'nul_bytes' };
    },
  },
  {
    name: 'json_lookalikes', weight: 20, make: (g) => {
      const a = JSON.stringify(g.event());
      const b = JSON.stringify(g.event());
      const variants = [
        `${a}${b}`, // two events on one line
        `${a}\r${b}`, // a lone CR is not a line break
        `${a.slice(0, -1)},}`, // trailing comma
        a.replace(/"/g, "'"), // single quotes
        a.replace(/"duration_ms":\d+/, '"duration_ms":NaN'),
        a.replace(/"exit_code":(\d+)/, '"exit_code":0$1'), // leading zero
        `\ufeff${a}`, // a BOM in the middle of the file is not whitespace
        `{${'['.repeat(10_000)}`,
        '['.repeat(10_000), // deep and unclosed
      ];
      return { bytes: Buffer.from(g.pick(variants)), outcome: 'invalid_json', recipe: 'json_lookalikes' };
    },
  },

  // ---- not_an_object ----
  { name: 'not_an_object', weight: 20, make: (g) => ({ bytes: Buffer.from(g.pick(['[]', '[1,2]', '1', '12345', '"12345"', '"text"', 'null', 'true', 'false', '-0.5e3', `[${JSON.stringify(g.event())}]`])), outcome: 'not_an_object', recipe: 'not_an_object' }) },
  { name: 'deep_array', weight: 2, make: (g) => ({ bytes: Buffer.from(deep(10_000)), outcome: g.deepOk ? 'not_an_object' : 'invalid_json', recipe: 'deep_array' }) },
  // ---- bad_timestamp (also: deep objects, which have no timestamp) ----
  { name: 'deep_object', weight: 2, make: (g) => ({ bytes: Buffer.from(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`), outcome: g.deepOk ? 'bad_timestamp' : 'invalid_json', recipe: 'deep_object' }) },
  {
    // '1763600000000' is a number written as a string: not ISO-8601, and not an epoch-ms number either.
    name: 'bad_timestamp', weight: 25, make: broken('bad_timestamp', 'bad_timestamp', (e, g) => {
      const v = g.pick([undefined, null, 'yesterday', '', '2026', '1763600000000', true, {}, [], -1, 'x'.repeat(41)]);
      if (v === undefined) delete e.timestamp;
      else e.timestamp = v;
    }),
  },
  {
    // 1e400 parses to Infinity: not a finite time.
    name: 'infinite_timestamp', weight: 3, make: (g) => {
      const text = JSON.stringify(g.event({ timestamp: 0 })).replace('"timestamp":0', '"timestamp":1e400');
      return { bytes: Buffer.from(text), outcome: 'bad_timestamp', recipe: 'infinite_timestamp' };
    },
  },
  // ---- bad_tool_name ----
  { name: 'bad_tool_name', weight: 20, make: (g) => { const e = g.event(); const v = g.pick([undefined, '', 5, null, ['x'], 'T'.repeat(201)]); if (v === undefined) delete e.tool_name; else e.tool_name = v; return { bytes: json(e), outcome: 'bad_tool_name', recipe: 'bad_tool_name' }; } },
  // ---- bad_input_hash ----
  { name: 'bad_input_hash', weight: 20, make: (g) => { const e = g.event(); const v = g.pick([undefined, '', 7, null, 'h'.repeat(201)]); if (v === undefined) delete e.input_hash; else e.input_hash = v; return { bytes: json(e), outcome: 'bad_input_hash', recipe: 'bad_input_hash' }; } },
  // ---- bad_exit_code (numbers as strings among them) ----
  { name: 'bad_exit_code', weight: 25, make: (g) => { const e = g.event(); const v = g.pick([undefined, '1', '0', 1.5, null, true, [0]]); if (v === undefined) delete e.exit_code; else e.exit_code = v; return { bytes: json(e), outcome: 'bad_exit_code', recipe: 'bad_exit_code' }; } },
  // ---- bad_duration_ms ----
  { name: 'bad_duration_ms', weight: 25, make: (g) => { const e = g.event(); const v = g.pick([undefined, '100', -1, null, '12.5', {}]); if (v === undefined) delete e.duration_ms; else e.duration_ms = v; return { bytes: json(e), outcome: 'bad_duration_ms', recipe: 'bad_duration_ms' }; } },
  { name: 'infinite_duration', weight: 3, make: (g) => ({ bytes: Buffer.from(JSON.stringify(g.event({ duration_ms: 0 })).replace('"duration_ms":0', '"duration_ms":1e400')), outcome: 'bad_duration_ms', recipe: 'infinite_duration' }) },
  // ---- bad_optional_field ----
  {
    name: 'bad_optional_field', weight: 25, make: (g) => {
      const e = g.event({}, true);
      const [key, value] = g.pick<[string, unknown]>([['error_category', 5], ['error_message', {}], ['session_id', 1], ['agent', []], ['memory_refs', 'r-1'], ['memory_refs', [1]], ['memory_refs', [null]], ['error_message', false]]);
      e[key] = value;
      return { bytes: json(e), outcome: 'bad_optional_field', recipe: 'bad_optional_field' };
    },
  },
  {
    name: 'deep_memory_refs', weight: 1, make: (g) => {
      const text = `${JSON.stringify(g.event()).slice(0, -1)},"memory_refs":${deep(10_000)}}`;
      return { bytes: Buffer.from(text), outcome: g.deepOk ? 'bad_optional_field' : 'invalid_json', recipe: 'deep_memory_refs' };
    },
  },
];

/**
 * Lines written once each, at fixed places: the 10 MB line, lines either side of `max_line_bytes`,
 * a blank line too long to be read, and a very deep (but short enough) array.
 */
function specials(g: Gen): Line[] {
  const max = g.maxLineBytes;
  const padded = (size: number, recipe: string, outcome: Outcome): Line => {
    const e = g.event({ error_message: '' }, false);
    const shell = JSON.stringify(e);
    const fill = size - Buffer.byteLength(shell);
    const text = shell.replace('"error_message":""', `"error_message":"${'m'.repeat(fill)}"`);
    if (Buffer.byteLength(text) !== size) throw new Error(`padded line is ${Buffer.byteLength(text)} bytes, wanted ${size}`);
    return { bytes: Buffer.from(text), outcome, recipe, lfOnly: true };
  };
  // As deep as fits: just under max_line_bytes.
  const deepDepth = Math.floor((max - 2) / 2) - Math.min(1000, Math.floor(max / 8));
  return [
    padded(10 * 1024 * 1024, 'ten_mb_line', 'line_too_long'),
    padded(max + 1, 'max_plus_one', 'line_too_long'),
    padded(max + 1, 'max_plus_one', 'line_too_long'),
    padded(max, 'exactly_max', 'valid'),
    padded(max - 1, 'max_minus_one', 'valid'),
    { bytes: Buffer.alloc(max * 2, 0x20), outcome: 'line_too_long', recipe: 'long_blank', lfOnly: true },
    { bytes: g.randomBytes(3 * max).fill(0x78, 0, 1), outcome: 'line_too_long', recipe: 'long_random', lfOnly: true },
    { bytes: Buffer.from(deep(deepDepth)), outcome: g.deepOk ? 'not_an_object' : 'invalid_json', recipe: 'very_deep_array', lfOnly: true },
  ];
}

/**
 * Writes `count` random lines plus the special lines to `path` (a UTF-8 BOM first, every line ended by
 * LF or, for about one in ten, CRLF) and returns what ingest must count.
 */
export function writeFuzzTelemetry(path: string, options: { seed: number; count: number; maxLineBytes?: number }): FuzzExpectation {
  const rand = prng(options.seed);
  const g = new Gen(rand, deepParses(10_000), options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const total = RECIPES.reduce((sum, r) => sum + r.weight, 0);
  const expected: FuzzExpectation = { lines: 0, bytes: 0, read: 0, valid: 0, invalid: 0, blank: 0, invalid_by_reason: {}, failures_by_tool: {}, by_recipe: {} };
  const special = specials(g);
  // Spread the special lines through the file.
  const slots = new Map<number, Line>(special.map((line, i) => [Math.floor(((i + 1) * options.count) / (special.length + 1)), line]));
  const fd = openSync(path, 'w');
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    writeSync(fd, Buffer.concat(pending));
    pending.length = 0;
    pendingBytes = 0;
  };
  const put = (bytes: Buffer) => {
    pending.push(bytes);
    pendingBytes += bytes.length;
    expected.bytes += bytes.length;
    if (pendingBytes > 1 << 20) flush();
  };
  const record = (made: Line) => {
    // Over max_line_bytes (the line without its line ending), a line is skipped unread, whatever it holds.
    const line: Line = made.bytes.length > g.maxLineBytes ? { bytes: made.bytes, outcome: 'line_too_long', recipe: made.recipe, lfOnly: made.lfOnly ?? false } : made;
    // Exactly max_line_bytes plus a CR: whether the CR counts is a separate question (see hostile tests); keep LF here.
    const lfOnly = line.lfOnly || line.bytes.length >= g.maxLineBytes - 1;
    expected.lines += 1;
    expected.by_recipe[line.recipe] = (expected.by_recipe[line.recipe] ?? 0) + 1;
    if (line.outcome === 'blank') expected.blank += 1;
    else {
      expected.read += 1;
      if (line.outcome === 'valid') {
        expected.valid += 1;
        if (line.failureTool) expected.failures_by_tool[line.failureTool] = (expected.failures_by_tool[line.failureTool] ?? 0) + 1;
      } else {
        expected.invalid += 1;
        expected.invalid_by_reason[line.outcome] = (expected.invalid_by_reason[line.outcome] ?? 0) + 1;
      }
    }
    put(line.bytes);
    put(!lfOnly && rand() < 0.1 ? CRLF : LF);
  };
  try {
    put(Buffer.from([0xef, 0xbb, 0xbf]));
    for (let i = 0; i < options.count; i++) {
      const slot = slots.get(i);
      if (slot) record(slot);
      let pick = rand() * total;
      let recipe = RECIPES[0]!;
      for (const r of RECIPES) {
        pick -= r.weight;
        if (pick < 0) {
          recipe = r;
          break;
        }
      }
      record(recipe.make(g));
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return expected;
}

const LF = Buffer.from('\n');
const CRLF = Buffer.from('\r\n');
