import { canonicalUtcBytes, isEventTime, type ReadEvent, type TelemetryEvent } from './event.js';

/**
 * The hot path's reader of one telemetry line, straight from the bytes: no decoded line, no parsed
 * object, no string per field. It accepts only the plain shape loggers write: one flat JSON object of the
 * contract's fields, each once, in ASCII, whose values meet the contract (a canonical UTC timestamp or
 * epoch-ms number, and so on). Anything else (a non-ASCII byte, an unknown or repeated key, nesting, an
 * odd number, whitespace other than spaces and tabs, an invalid or suspicious value) makes `scan` return
 * false, and the line goes to JSON.parse and the contract check as before, which decide its fate. So a
 * line this accepts is one JSON.parse accepts as a valid event, with the same values; the property test
 * in test/unit/event-scanner.property.test.ts holds it to that.
 */
export class EventScanner implements ReadEvent {
  /** Of the last accepted line: its time (epoch ms), tool name, exit code and duration. */
  ts = 0;
  toolName = '';
  exitCode = 0;
  durationMs = 0;
  private buf: Buffer = Buffer.alloc(0);
  /** `buf` read four bytes at a time. */
  private view: DataView = new DataView(new ArrayBuffer(0));
  private readonly kind = new Uint8Array(FIELDS);
  private readonly from = new Int32Array(FIELDS);
  private readonly to = new Int32Array(FIELDS);
  private readonly num = new Float64Array(FIELDS);
  /** Bit per field present in the last scanned line (its `kind` is stale otherwise). */
  private seen = 0;
  /** Where the last scanned value ended (a second return value without an allocation). */
  private pos = 0;
  private readonly names = new RepeatedStrings();
  /** Commands repeat too, but less than names: a table of their own, so they do not push names out. */
  private readonly summaries = new RepeatedStrings();
  /** Per field (+1; 0 is the start), the field that followed it in the last line: the next key to try. */
  private readonly after = new Int8Array(FIELDS + 1).fill(-1);

  /** Scans `buf[start, end)`; true when it is a valid event of the plain shape (see the class comment). */
  scan(buf: Buffer, start: number, end: number): boolean {
    // The byte after the line must stop every loop below (a newline, a CR, or the buffer's end).
    if (end - start > MAX_SCANNED || buf[start] !== OPEN_BRACE || (end < buf.length && buf[end] !== NEWLINE && buf[end] !== CR)) return false;
    if (buf !== this.buf) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    }
    const view = this.view;
    const kind = this.kind;
    const after = this.after;
    let seen = 0;
    let previous = -1;
    let p = skipSpaces(buf, start + 1);
    if (buf[p] === CLOSE_BRACE) return false;
    for (;;) {
      if (buf[p] !== QUOTE) return false;
      const keyStart = p + 1;
      // A logger writes its keys in one order: the key that followed the previous one last time is
      // tried first, byte by byte; otherwise the key is read and looked up.
      let field = after[previous + 1]!;
      let q = field >= 0 ? matchKey(view, buf, keyStart, end, field) : -1;
      if (q < 0) {
        q = keyStart;
        while (PLAIN[buf[q]!] === 1) q += 1;
        if (q >= end || buf[q] !== QUOTE) return false;
        field = fieldOf(buf, keyStart, q);
        if (field < 0) return false;
        after[previous + 1] = field;
      }
      if (((seen >> field) & 1) !== 0) return false;
      seen |= 1 << field;
      previous = field;
      p = skipSpaces(buf, q + 1);
      if (buf[p] !== COLON) return false;
      p = skipSpaces(buf, p + 1);
      const valueKind = this.value(buf, p, end, field);
      // A kind the contract refuses for this field (or ABSENT: not of the plain shape) ends the scan.
      if (((ALLOWED_KINDS[field]! >> valueKind) & 1) === 0) return false;
      kind[field] = valueKind;
      this.from[field] = p;
      this.to[field] = this.pos;
      p = skipSpaces(buf, this.pos);
      if (buf[p] === COMMA) {
        p = skipSpaces(buf, p + 1);
        continue;
      }
      if (buf[p] !== CLOSE_BRACE) return false;
      p += 1;
      break;
    }
    this.seen = seen;
    return p === end && this.meetsContract();
  }

  /**
   * The event of the last accepted line, with the values JSON.parse would give it. Names, sessions,
   * agents and categories repeat from line to line and come from a small table instead of a decode.
   */
  event(): TelemetryEvent {
    const event: TelemetryEvent = {
      timestamp: this.valueOf(TIMESTAMP, this.kind[TIMESTAMP]!) as string | number,
      tool_name: this.toolName,
      input_hash: this.valueOf(INPUT_HASH, STRING) as string,
      exit_code: this.exitCode,
      duration_ms: this.durationMs,
    };
    const seen = this.seen;
    if ((seen & (1 << ERROR_CATEGORY)) !== 0) event.error_category = this.repeated(ERROR_CATEGORY) as string;
    if ((seen & (1 << ERROR_MESSAGE)) !== 0) event.error_message = this.valueOf(ERROR_MESSAGE, this.kind[ERROR_MESSAGE]!) as string;
    if ((seen & (1 << SESSION_ID)) !== 0) event.session_id = this.repeated(SESSION_ID) as string;
    if ((seen & (1 << AGENT)) !== 0) event.agent = this.repeated(AGENT) as string;
    if ((seen & (1 << MEMORY_REFS)) !== 0) event.memory_refs = this.memoryRefs()!;
    if ((seen & (1 << INPUT_SUMMARY)) !== 0) event.input_summary = this.valueOf(INPUT_SUMMARY, this.kind[INPUT_SUMMARY]!) as string;
    return event;
  }

  /** An optional string field's value; a plain string from the table of repeated ones. */
  private repeated(field: number): unknown {
    const kind = this.kind[field]!;
    return kind === STRING ? this.names.of(this.buf, this.from[field]! + 1, this.to[field]! - 1) : this.valueOf(field, kind);
  }

  /** The last accepted line's session, or undefined when it has none (from the table of repeated strings). */
  sessionId(): string | undefined {
    return (this.seen & (1 << SESSION_ID)) !== 0 ? (this.repeated(SESSION_ID) as string) : undefined;
  }

  /** The last accepted line's input_summary, or undefined when it has none (from its own table of repeated strings). */
  inputSummary(): string | undefined {
    if ((this.seen & (1 << INPUT_SUMMARY)) === 0) return undefined;
    const kind = this.kind[INPUT_SUMMARY]!;
    return (kind === STRING ? this.summaries.of(this.buf, this.from[INPUT_SUMMARY]! + 1, this.to[INPUT_SUMMARY]! - 1) : this.valueOf(INPUT_SUMMARY, kind)) as string;
  }

  /** The last accepted line's memory_refs, or undefined when it has none. */
  memoryRefs(): string[] | undefined {
    // Present means an array of strings: no other kind is allowed for this field (ALLOWED_KINDS).
    return (this.seen & (1 << MEMORY_REFS)) !== 0 ? this.stringsOf(this.from[MEMORY_REFS]!, this.to[MEMORY_REFS]!) : undefined;
  }

  /** Scans the value at `p` and returns its kind (ABSENT: not of the plain shape); sets `pos` after it. */
  private value(buf: Buffer, p: number, end: number, field: number): number {
    const c = buf[p]!;
    if (c === QUOTE) return field === TIMESTAMP ? this.timestampString(buf, p, end) : this.string(buf, p + 1, end);
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) return this.number(buf, p, end, field);
    if (c === LOWER_N && buf[p + 1] === 0x75 && buf[p + 2] === 0x6c && buf[p + 3] === 0x6c) return this.literal(p + 4, NULL);
    if (c === LOWER_T && buf[p + 1] === 0x72 && buf[p + 2] === 0x75 && buf[p + 3] === 0x65) return this.literal(p + 4, TRUE);
    if (c === LOWER_F && buf[p + 1] === 0x61 && buf[p + 2] === 0x6c && buf[p + 3] === 0x73 && buf[p + 4] === 0x65) return this.literal(p + 5, FALSE);
    if (c === OPEN_BRACKET) return this.stringArray(buf, p + 1, end);
    return ABSENT;
  }

  /**
   * A timestamp string at `p` (its opening quote): a canonical one is read from its digits where it
   * stands (kind CANONICAL, epoch ms in `num`), without a pass over it as a string first.
   */
  private timestampString(buf: Buffer, p: number, end: number): number {
    for (const length of CANONICAL_LENGTHS) {
      // The closing quote must lie inside the line: nothing past `end` is read.
      if (p + length + 1 >= end || buf[p + length + 1] !== QUOTE) continue;
      if (!canonicalUtcBytes(buf, p + 1, length, this.num, TIMESTAMP)) continue;
      this.pos = p + length + 2;
      return CANONICAL;
    }
    return this.string(buf, p + 1, end);
  }

  private literal(after: number, kind: number): number {
    this.pos = after;
    return kind;
  }

  /** A string from just after its opening quote: STRING, ESCAPED (has escapes) or ABSENT. */
  private string(buf: Buffer, p: number, end: number): number {
    // Four bytes at a time while none can end the plain run (see plainWord), then byte by byte.
    const view = this.view;
    while (p + 4 <= end && plainWord(view.getInt32(p, true))) p += 4;
    while (PLAIN[buf[p]!] === 1) p += 1;
    if (p >= end) return ABSENT;
    if (buf[p] === QUOTE) {
      this.pos = p + 1;
      return STRING;
    }
    // A backslash: check each escape (a control character or a non-ASCII byte ends the plain shape).
    for (;;) {
      while (PLAIN[buf[p]!] === 1) p += 1;
      if (p >= end) return ABSENT;
      const c = buf[p];
      if (c === QUOTE) {
        this.pos = p + 1;
        return ESCAPED;
      }
      if (c !== BACKSLASH) return ABSENT;
      const e = buf[p + 1]!;
      if (e === LOWER_U) {
        for (let i = p + 2; i < p + 6; i++) if (hexValue(buf[i]!) < 0) return ABSENT;
        p += 6;
      } else if (SIMPLE_ESCAPE[e] !== 0) {
        p += 2;
      } else {
        return ABSENT;
      }
    }
  }

  /** A JSON number; plain integers are read here, others by Number() over the same text (as JSON.parse). */
  private number(buf: Buffer, p: number, end: number, field: number): number {
    const start = p;
    const negative = buf[p] === MINUS;
    if (negative) p += 1;
    let c = buf[p]!;
    let value = 0;
    if (c === DIGIT_0) {
      p += 1;
    } else if (c >= DIGIT_1 && c <= DIGIT_9) {
      const first = p;
      while (p < end && (c = buf[p]!) >= DIGIT_0 && c <= DIGIT_9) {
        value = value * 10 + (c - DIGIT_0);
        p += 1;
      }
      if (p - first > 15) value = Number.NaN; // past 2^53: read by Number() below
    } else {
      return ABSENT;
    }
    c = buf[p]!;
    if (c === DOT) {
      p = digits(buf, p + 1, end);
      if (p < 0) return ABSENT;
      c = buf[p]!;
      value = Number.NaN;
    }
    if (c === LOWER_E || c === UPPER_E) {
      p += 1;
      if (buf[p] === PLUS || buf[p] === MINUS) p += 1;
      p = digits(buf, p, end);
      if (p < 0) return ABSENT;
      value = Number.NaN;
    }
    this.pos = p;
    this.num[field] = Number.isNaN(value) ? Number(latin1(buf, start, p)) : negative ? -value : value;
    return NUMBER;
  }

  /** `[` string, ... `]` from just after the bracket; anything but strings ends the plain shape. */
  private stringArray(buf: Buffer, p: number, end: number): number {
    p = skipSpaces(buf, p);
    if (buf[p] === CLOSE_BRACKET) return this.literal(p + 1, ARRAY);
    for (;;) {
      if (buf[p] !== QUOTE || this.string(buf, p + 1, end) === ABSENT) return ABSENT;
      p = skipSpaces(buf, this.pos);
      if (buf[p] === CLOSE_BRACKET) return this.literal(p + 1, ARRAY);
      if (buf[p] !== COMMA) return ABSENT;
      p = skipSpaces(buf, p + 1);
    }
  }

  /** The contract (checkEventTime) on the scanned values; sets ts, toolName, exitCode and durationMs. */
  private meetsContract(): boolean {
    // Each field's kind was checked as it was scanned (ALLOWED_KINDS); what is left: the required
    // fields, the lengths, and the numbers' values.
    if ((this.seen & REQUIRED) !== REQUIRED) return false;
    // A number or a canonical string's epoch ms: either way inside years 1970–9999.
    if (!isEventTime(this.num[TIMESTAMP]!)) return false;
    if (!plainLength(this.from[TOOL_NAME]!, this.to[TOOL_NAME]!) || !plainLength(this.from[INPUT_HASH]!, this.to[INPUT_HASH]!)) return false;
    if (!Number.isInteger(this.num[EXIT_CODE])) return false;
    const duration = this.num[DURATION_MS]!;
    if (!(duration >= 0) || !Number.isFinite(duration)) return false;
    this.ts = this.num[TIMESTAMP]!;
    this.toolName = this.names.of(this.buf, this.from[TOOL_NAME]! + 1, this.to[TOOL_NAME]! - 1);
    this.exitCode = this.num[EXIT_CODE]!;
    this.durationMs = duration;
    return true;
  }

  private valueOf(field: number, kind: number): unknown {
    const from = this.from[field]!;
    const to = this.to[field]!;
    switch (kind) {
      case STRING:
      case CANONICAL:
        return latin1(this.buf, from + 1, to - 1);
      case ESCAPED:
        return unescapeJson(this.buf, from + 1, to - 1);
      case NUMBER:
        return this.num[field];
      case NULL:
        return null;
      case TRUE:
        return true;
      case FALSE:
        return false;
      default:
        return this.stringsOf(from, to);
    }
  }

  /** The strings of a scanned `[...]` from `from` (the bracket) to `to` (just after the closing one). */
  private stringsOf(from: number, to: number): string[] {
    const out: string[] = [];
    const buf = this.buf;
    let p = from + 1;
    while (p < to) {
      if (buf[p] !== QUOTE) {
        p += 1;
        continue;
      }
      const kind = this.string(buf, p + 1, to);
      out.push(kind === ESCAPED ? unescapeJson(buf, p + 1, this.pos - 1) : latin1(buf, p + 1, this.pos - 1));
      p = this.pos;
    }
    return out;
  }
}

/**
 * Strings that repeat from line to line (tool names, sessions, agents, categories) without a decode per
 * line: a small table keyed by a hash of the bytes, checked byte by byte. A collision only costs a decode.
 */
class RepeatedStrings {
  private readonly bytes: (Uint8Array | undefined)[] = new Array(SLOTS);
  private readonly names: string[] = new Array(SLOTS).fill('');

  of(buf: Buffer, from: number, to: number): string {
    let hash = 0x811c9dc5;
    for (let i = from; i < to; i++) hash = Math.imul(hash ^ buf[i]!, 0x01000193);
    const slot = (hash >>> 0) & (SLOTS - 1);
    const known = this.bytes[slot];
    if (known !== undefined && known.length === to - from) {
      let same = true;
      for (let i = 0; i < known.length; i++) {
        if (known[i] !== buf[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.names[slot]!;
    }
    const name = latin1(buf, from, to);
    this.bytes[slot] = Uint8Array.prototype.slice.call(buf, from, to);
    this.names[slot] = name;
    return name;
  }
}

const SLOTS = 1024;

/** Longest line the scanner reads (longer ones are rare and go to JSON.parse; offsets stay in int32). */
const MAX_SCANNED = 1 << 26;

const FIELD_NAMES = ['timestamp', 'tool_name', 'input_hash', 'exit_code', 'duration_ms', 'error_category', 'error_message', 'session_id', 'agent', 'memory_refs', 'input_summary'] as const;
const FIELDS = FIELD_NAMES.length;
const FIELD_BYTES = FIELD_NAMES.map((name) => Uint8Array.from(name, (c) => c.charCodeAt(0)));
/** Each name's whole four-byte words, little-endian (as DataView.getInt32(…, true) reads them). */
const FIELD_WORDS = FIELD_BYTES.map((name) => Int32Array.from({ length: name.length >> 2 }, (_, w) => new DataView(name.buffer).getInt32(w * 4, true)));
const [TIMESTAMP, TOOL_NAME, INPUT_HASH, EXIT_CODE, DURATION_MS, ERROR_CATEGORY, ERROR_MESSAGE, SESSION_ID, AGENT, MEMORY_REFS, INPUT_SUMMARY] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

// Value kinds.
const ABSENT = 0;
const STRING = 1;
const ESCAPED = 2;
const NUMBER = 3;
const NULL = 4;
const TRUE = 5;
const FALSE = 6;
const ARRAY = 7;
/** A timestamp string in the canonical shape, read as it was scanned (its epoch ms are in `num`). */
const CANONICAL = 8;
const CANONICAL_LENGTHS = [24, 20];

/**
 * Per field, the value kinds (a bit each) the contract takes, as checkEventTime does: a canonical
 * timestamp string or a number (checked for its value later); strings for the tool name and the input
 * hash (without escapes: their length is then their byte count); numbers for the exit code and the
 * duration; a string or null for the optional texts (input_summary among them); an array of strings for
 * memory_refs. Anything else goes to JSON.parse, whose contract check names the reason.
 */
const ALLOWED_KINDS = Uint16Array.from([
  (1 << CANONICAL) | (1 << NUMBER),
  1 << STRING,
  1 << STRING,
  1 << NUMBER,
  1 << NUMBER,
  (1 << STRING) | (1 << ESCAPED) | (1 << NULL),
  (1 << STRING) | (1 << ESCAPED) | (1 << NULL),
  (1 << STRING) | (1 << ESCAPED) | (1 << NULL),
  (1 << STRING) | (1 << ESCAPED) | (1 << NULL),
  1 << ARRAY,
  (1 << STRING) | (1 << ESCAPED) | (1 << NULL),
]);
/** The fields the contract requires. */
const REQUIRED = (1 << TIMESTAMP) | (1 << TOOL_NAME) | (1 << INPUT_HASH) | (1 << EXIT_CODE) | (1 << DURATION_MS);

const NEWLINE = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_U = 0x75;

/** 1 for a byte a plain string runs over: ASCII but control characters, the quote and the backslash. */
const PLAIN = new Uint8Array(256).map((_, c) => (c >= 0x20 && c < 0x80 && c !== QUOTE && c !== BACKSLASH ? 1 : 0));
/** The one-character escapes JSON has, by the byte after the backslash, to what they stand for. */
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
const SIMPLE_ESCAPE = new Uint8Array(256).map((_, c) => (ESCAPES[c] !== undefined ? 1 : 0));

/** The position of the closing quote when `field`'s name is the key at `from`, else -1. */
function matchKey(view: DataView, buf: Buffer, from: number, end: number, field: number): number {
  const name = FIELD_BYTES[field]!;
  const length = name.length;
  if (from + length >= end) return -1;
  // The name's whole four-byte words, then its last bytes, then the closing quote.
  const words = FIELD_WORDS[field]!;
  let i = 0;
  for (let w = 0; w < words.length; w++, i += 4) if (view.getInt32(from + i, true) !== words[w]) return -1;
  for (; i < length; i++) if (buf[from + i] !== name[i]) return -1;
  return buf[from + length] === QUOTE ? from + length : -1;
}

/**
 * Whether none of the four bytes in `w` ends a plain string: no quote, backslash, control character or
 * non-ASCII byte. The classic bit tricks ("has a zero byte", "has a byte less than n") may report such a
 * byte where there is none (the byte loop then looks), never miss one.
 */
function plainWord(w: number): boolean {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  return (((w - 0x20202020) & ~w) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | w) & 0x80808080 ? false : true;
}

/** The field a key names (compared byte by byte), or -1. */
function fieldOf(buf: Buffer, from: number, to: number): number {
  const length = to - from;
  for (let field = 0; field < FIELDS; field++) {
    const name = FIELD_BYTES[field]!;
    if (name.length !== length || name[0] !== buf[from]) continue;
    let i = 1;
    while (i < length && name[i] === buf[from + i]) i += 1;
    if (i === length) return field;
  }
  return -1;
}

function skipSpaces(buf: Buffer, p: number): number {
  let c = buf[p];
  while (c === 0x20 || c === 0x09) c = buf[++p];
  return p;
}

/** One or more digits from `p`: the position after them, or -1. */
function digits(buf: Buffer, p: number, end: number): number {
  const first = p;
  while (p < end && buf[p]! >= DIGIT_0 && buf[p]! <= DIGIT_9) p += 1;
  return p === first ? -1 : p;
}

function hexValue(c: number): number {
  if (c >= DIGIT_0 && c <= DIGIT_9) return c - DIGIT_0;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** A plain (ASCII, escape-free) quoted string from `from` to `to` (quotes included) of 1 to 200 characters. */
function plainLength(from: number, to: number): boolean {
  const length = to - from - 2;
  return length >= 1 && length <= 200;
}

type Latin1Buffer = Buffer & { latin1Slice(start: number, end: number): string };
const HAS_LATIN1_SLICE = typeof (Buffer.prototype as Partial<Latin1Buffer>).latin1Slice === 'function';

/** ASCII bytes as a string (latin1Slice is Buffer's own, without toString's argument checks). */
function latin1(buf: Buffer, from: number, to: number): string {
  return HAS_LATIN1_SLICE ? (buf as Latin1Buffer).latin1Slice(from, to) : buf.toString('latin1', from, to);
}

/** A scanned string with escapes (checked by the scan) as the text it stands for. */
function unescapeJson(buf: Buffer, from: number, to: number): string {
  let out = '';
  let run = from;
  let p = from;
  while (p < to) {
    if (buf[p] !== BACKSLASH) {
      p += 1;
      continue;
    }
    out += latin1(buf, run, p);
    const e = buf[p + 1]!;
    if (e === LOWER_U) {
      out += String.fromCharCode(hexValue(buf[p + 2]!) * 4096 + hexValue(buf[p + 3]!) * 256 + hexValue(buf[p + 4]!) * 16 + hexValue(buf[p + 5]!));
      p += 6;
    } else {
      out += ESCAPES[e]!;
      p += 2;
    }
    run = p;
  }
  return out + latin1(buf, run, to);
}
