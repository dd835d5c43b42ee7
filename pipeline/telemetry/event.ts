/** The telemetry event contract (see ARCHITECTURE.md) and its fast type guard. */
export interface TelemetryEvent {
  timestamp: string | number;
  tool_name: string;
  input_hash: string;
  exit_code: number;
  /**
   * The call's own time. 0 when its producer could not measure it: a hook call whose PreToolUse was
   * never seen, a trajectory without timings, a call that may have waited for a human (human-wait.ts).
   */
  duration_ms: number;
  error_category?: string;
  error_message?: string;
  session_id?: string;
  agent?: string;
  memory_refs?: string[];
  /**
   * The call itself, redacted and shortened (a Bash command, a project-relative path, an MCP tool's
   * argument names). Producers cap it at 200 characters; a reader must not rely on that (a foreign
   * logger may write more), so it is checked only for being a string.
   */
  input_summary?: string;
  /**
   * Set on a line that records no tool call but rules put in front of the agent (their ids in
   * memory_refs): `session_start` (injected when the session began) or `reminder` (shown next to a
   * failure of their cluster). Ingest counts these as exposures and accesses, never as calls.
   */
  exposure?: string;
}

/**
 * A valid event as the hot path reads it: its time and the fields every line needs, and the event
 * object itself, built only when something keeps it (EventScanner reads most lines this way).
 */
export interface ReadEvent {
  readonly ts: number;
  readonly toolName: string;
  readonly exitCode: number;
  readonly durationMs: number;
  memoryRefs(): string[] | undefined;
  /** The session, without building the event (sessions repeat from line to line). */
  sessionId(): string | undefined;
  /** The call itself (a shell tool's command line), without building the event (commands repeat too). */
  inputSummary(): string | undefined;
  event(): TelemetryEvent;
}

/** An event JSON.parse gave (and the contract check passed) as a ReadEvent; set to each line in turn. */
export class ParsedEvent implements ReadEvent {
  ts = 0;
  toolName = '';
  exitCode = 0;
  durationMs = 0;
  private value: TelemetryEvent | undefined;

  set(value: TelemetryEvent, ts: number): this {
    this.value = value;
    this.ts = ts;
    this.toolName = value.tool_name;
    this.exitCode = value.exit_code;
    this.durationMs = value.duration_ms;
    return this;
  }

  memoryRefs(): string[] | undefined {
    return this.value!.memory_refs;
  }

  sessionId(): string | undefined {
    return this.value!.session_id;
  }

  inputSummary(): string | undefined {
    return this.value!.input_summary;
  }

  event(): TelemetryEvent {
    return this.value!;
  }
}

export type InvalidReason =
  | 'invalid_json'
  | 'not_an_object'
  | 'bad_timestamp'
  | 'bad_tool_name'
  | 'bad_input_hash'
  | 'bad_exit_code'
  | 'bad_duration_ms'
  | 'bad_optional_field'
  | 'line_too_long';

/**
 * Returns null for a valid event, or the first reason it breaks the contract. Hand-written checks
 * instead of a schema library: this runs once per line on the hot path.
 */
export function checkEvent(value: unknown): InvalidReason | null {
  const checked = checkEventTime(value);
  return typeof checked === 'number' ? null : checked;
}

/** Like checkEvent, but a valid event yields its time (epoch ms), so the hot path parses it once. */
export function checkEventTime(value: unknown): number | InvalidReason {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not_an_object';
  const e = value as Record<string, unknown>;
  const ts = parseTimestamp(e.timestamp);
  if (ts === null) return 'bad_timestamp';
  if (typeof e.tool_name !== 'string' || e.tool_name.length === 0 || e.tool_name.length > 200) return 'bad_tool_name';
  if (typeof e.input_hash !== 'string' || e.input_hash.length === 0 || e.input_hash.length > 200) return 'bad_input_hash';
  if (!Number.isInteger(e.exit_code)) return 'bad_exit_code';
  if (typeof e.duration_ms !== 'number' || !(e.duration_ms >= 0) || !Number.isFinite(e.duration_ms)) return 'bad_duration_ms';
  if (!optionalString(e.error_category) || !optionalString(e.error_message)) return 'bad_optional_field';
  if (!optionalString(e.session_id) || !optionalString(e.agent) || !optionalString(e.input_summary)) return 'bad_optional_field';
  if (e.memory_refs !== undefined && !isStringArray(e.memory_refs)) return 'bad_optional_field';
  if (!optionalString(e.exposure)) return 'bad_optional_field';
  return ts;
}

export function isTelemetryEvent(value: unknown): value is TelemetryEvent {
  return checkEvent(value) === null;
}

/** The last millisecond of year 9999: later times have no 4-digit ISO form, and past 8.64e15 no Date at all. */
export const LATEST_EVENT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An event time we can store: years 1970 to 9999. A time outside would make `toISOString` throw (a
 * stored cursor would then fail every later night) or write a year no ISO reader takes back.
 */
export function isEventTime(ms: number): boolean {
  return ms >= 0 && ms <= LATEST_EVENT_MS;
}

/** Epoch milliseconds of an ISO-8601 string or epoch-ms number (years 1970–9999), or null when it is neither. */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value === 'number') return isEventTime(value) ? value : null;
  if (typeof value !== 'string' || value.length < 10 || value.length > 40) return null;
  const fast = canonicalUtc(value);
  if (fast !== null) return isEventTime(fast) ? fast : null;
  const ms = Date.parse(value);
  return isEventTime(ms) ? ms : null;
}

/** Epoch ms of each day seen lately (key YYYYMMDD), as Date.parse computes it (quirks included). */
const DAY_MS = new Map<number, number>();
/** Consecutive events mostly share their day (two variables, not an object: no allocation per line). */
let lastDayKey = -1;
let lastDayMs = 0;
/**
 * The hot path's timestamp: `YYYY-MM-DDTHH:MM:SS[.sss]Z`, the shape every logger writes, parsed from its
 * digits with the day looked up once; anything else (offsets, other precisions, odd values) returns null
 * and goes to Date.parse. Same result as Date.parse for every string it accepts.
 */
function canonicalUtc(s: string): number | null {
  const n = s.length;
  if ((n !== 24 && n !== 20) || s.charCodeAt(n - 1) !== 90 /* Z */ || s.charCodeAt(10) !== 84 /* T */) return null;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58 || (n === 24 && s.charCodeAt(19) !== 46)) return null;
  // Straight-line reads (no loop): this also runs on a small night's lines before the JIT warms up.
  const d0 = s.charCodeAt(0) - 48, d1 = s.charCodeAt(1) - 48, d2 = s.charCodeAt(2) - 48, d3 = s.charCodeAt(3) - 48;
  const d5 = s.charCodeAt(5) - 48, d6 = s.charCodeAt(6) - 48, d8 = s.charCodeAt(8) - 48, d9 = s.charCodeAt(9) - 48;
  const d11 = s.charCodeAt(11) - 48, d12 = s.charCodeAt(12) - 48, d14 = s.charCodeAt(14) - 48, d15 = s.charCodeAt(15) - 48;
  const d17 = s.charCodeAt(17) - 48, d18 = s.charCodeAt(18) - 48;
  const long = n === 24;
  const d20 = long ? s.charCodeAt(20) - 48 : 0, d21 = long ? s.charCodeAt(21) - 48 : 0, d22 = long ? s.charCodeAt(22) - 48 : 0;
  return utcFromDigits(d0, d1, d2, d3, d5, d6, d8, d9, d11, d12, d14, d15, d17, d18, d20, d21, d22, TIME, 0) ? TIME[0]! : null;
}

const TIME = new Float64Array(1);

/**
 * canonicalUtc over the ASCII bytes `b[s, s + n)` (the event scanner reads timestamps from the line's
 * bytes): false when they are not a canonical UTC timestamp, else true with its epoch ms in `out[at]`
 * (a typed array rather than a returned number, which would be boxed: an allocation per line).
 */
export function canonicalUtcBytes(b: Uint8Array, s: number, n: number, out: Float64Array, at: number): boolean {
  if ((n !== 24 && n !== 20) || b[s + n - 1] !== 90 /* Z */ || b[s + 10] !== 84 /* T */) return false;
  if (b[s + 4] !== 45 || b[s + 7] !== 45 || b[s + 13] !== 58 || b[s + 16] !== 58 || (n === 24 && b[s + 19] !== 46)) return false;
  const d0 = b[s]! - 48, d1 = b[s + 1]! - 48, d2 = b[s + 2]! - 48, d3 = b[s + 3]! - 48;
  const d5 = b[s + 5]! - 48, d6 = b[s + 6]! - 48, d8 = b[s + 8]! - 48, d9 = b[s + 9]! - 48;
  const d11 = b[s + 11]! - 48, d12 = b[s + 12]! - 48, d14 = b[s + 14]! - 48, d15 = b[s + 15]! - 48;
  const d17 = b[s + 17]! - 48, d18 = b[s + 18]! - 48;
  const long = n === 24;
  const d20 = long ? b[s + 20]! - 48 : 0, d21 = long ? b[s + 21]! - 48 : 0, d22 = long ? b[s + 22]! - 48 : 0;
  return utcFromDigits(d0, d1, d2, d3, d5, d6, d8, d9, d11, d12, d14, d15, d17, d18, d20, d21, d22, out, at);
}

/**
 * Epoch ms from a canonical timestamp's digits (each the character code minus 48; the milliseconds' are
 * 0 when it has none), into `out[at]`; false when a "digit" is not one (checked without a branch each:
 * any non-digit makes `bad` negative) or a field is out of range. The day is looked up once per day, as
 * Date.parse computes it.
 */
function utcFromDigits(
  d0: number, d1: number, d2: number, d3: number, d5: number, d6: number, d8: number, d9: number,
  d11: number, d12: number, d14: number, d15: number, d17: number, d18: number, d20: number, d21: number, d22: number,
  out: Float64Array, at: number,
): boolean {
  const bad =
    d0 | (9 - d0) | d1 | (9 - d1) | d2 | (9 - d2) | d3 | (9 - d3) | d5 | (9 - d5) | d6 | (9 - d6) | d8 | (9 - d8) | d9 | (9 - d9) |
    d11 | (9 - d11) | d12 | (9 - d12) | d14 | (9 - d14) | d15 | (9 - d15) | d17 | (9 - d17) | d18 | (9 - d18) |
    d20 | (9 - d20) | d21 | (9 - d21) | d22 | (9 - d22);
  const h = d11 * 10 + d12;
  const m = d14 * 10 + d15;
  const sec = d17 * 10 + d18;
  if (bad < 0 || h > 23 || m > 59 || sec > 59) return false;
  const key = (d0 * 1000 + d1 * 100 + d2 * 10 + d3) * 10_000 + (d5 * 10 + d6) * 100 + d8 * 10 + d9;
  let day: number;
  if (key === lastDayKey) {
    day = lastDayMs;
  } else {
    day = DAY_MS.get(key) ?? Date.parse(`${d0}${d1}${d2}${d3}-${d5}${d6}-${d8}${d9}T00:00:00Z`);
    if (DAY_MS.size >= 4096) DAY_MS.clear();
    DAY_MS.set(key, day);
    lastDayKey = key;
    lastDayMs = day;
  }
  if (Number.isNaN(day)) return false;
  out[at] = day + ((h * 60 + m) * 60 + sec) * 1000 + d20 * 100 + d21 * 10 + d22;
  return true;
}

function optionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
