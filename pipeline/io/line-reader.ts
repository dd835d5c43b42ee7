import type { FileHandle } from 'node:fs/promises';

/**
 * One complete line: its text (without CR/LF), where it starts, and where the next line starts. A line
 * is valid only during the callback: the reader reuses its buffers and the line object itself (no
 * allocation per line), and decodes a line's text only when asked for. Copy what you keep.
 */
export interface RawLine {
  readonly text: string;
  offset: number;
  next: number;
  /** The line was longer than `maxLineBytes`; its text is empty and it was skipped unread. */
  tooLong: boolean;
  /**
   * The line's bytes, when the reader has them: `bytes[start, end)`, without CR/LF. Valid only during
   * the callback (the reader reuses its buffers).
   */
  bytes?: Buffer;
  start?: number;
  end?: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * A line read from a buffer: its text is decoded only if asked for (the hot path reads the bytes). One
 * per splitter, set to each line in turn.
 */
class BufferLine implements RawLine {
  readonly tooLong = false;
  bytes: Buffer = EMPTY;
  start = 0;
  end = 0;
  offset = 0;
  next = 0;
  private decoded: string | undefined;

  /** Points this line at `bytes[start, end)`. */
  set(bytes: Buffer, start: number, end: number, offset: number, next: number): this {
    this.bytes = bytes;
    this.start = start;
    this.end = end;
    this.offset = offset;
    this.next = next;
    this.decoded = undefined;
    return this;
  }

  get text(): string {
    this.decoded ??= HAS_UTF8_SLICE ? (this.bytes as FastBuffer).utf8Slice(this.start, this.end) : this.bytes.toString('utf8', this.start, this.end);
    return this.decoded;
  }
}

export interface ReadLinesOptions {
  chunkBytes?: number;
  maxLineBytes: number;
  /** Called after each chunk with the bytes read so far (for a progress bar). */
  onProgress?: (bytes: number) => void;
  /**
   * The file is finished (a rotated log nobody appends to any more): a last line without a newline is
   * reported and consumed instead of waiting for the rest of it (unless the read stopped at `end`).
   */
  final?: boolean;
  /** Stop at this byte offset (exclusive) instead of the end of the file: a range folded apart. */
  end?: number;
}

/**
 * Buffer's UTF-8 decoder without `toString`'s argument checks, which cost about as much as the decoding
 * of a short line (60 ms per million lines here). Not in Node's documentation but in every release; if
 * it ever goes, `toString` (which calls it) is used instead. Same result for any bytes.
 */
type FastBuffer = Buffer & { utf8Slice(start: number, end: number): string };
const HAS_UTF8_SLICE = typeof (Buffer.prototype as Partial<FastBuffer>).utf8Slice === 'function';

const NEWLINE = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Streams the complete lines of `path` from byte `start` and returns the offset just after the last
 * complete line. A last line without a newline is torn (an agent is still writing it): it is neither
 * reported nor consumed, so the cursor stops before it. A callback instead of an async iterator keeps
 * the per-line cost at a plain function call on the hot path.
 */
export async function readLines(
  path: string,
  start: number,
  options: ReadLinesOptions,
  onLine: (line: RawLine) => void,
): Promise<number> {
  // Loaded here, not at the top: node:fs/promises (and the readline code it loads) would cost every hook
  // call that imports the filesystem port ~3 M instructions, and only reading lines needs it.
  const { open } = await import('node:fs/promises');
  const handle = await open(path, 'r');
  let pending: Promise<unknown> | undefined;
  try {
    if (start === 0 && (await startsWithBom(handle))) start = BOM.length;
    const state = new LineSplitter(start, options.maxLineBytes, onLine);
    // Two buffers: the next chunk is read (on libuv's thread pool) while this one is split and parsed,
    // so the disk and the CPU work at the same time instead of taking turns.
    const size = options.chunkBytes ?? 1 << 20;
    const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
    let position = start;
    let which = 0;
    const end = options.end ?? Number.POSITIVE_INFINITY;
    const upTo = (from: number) => Math.max(0, Math.min(size, end - from));
    let next = handle.read(buffers[0]!, 0, upTo(position), position);
    pending = next;
    for (;;) {
      const { bytesRead } = await next;
      if (bytesRead === 0) break;
      const chunk = buffers[which]!.subarray(0, bytesRead);
      which ^= 1;
      next = handle.read(buffers[which]!, 0, upTo(position + bytesRead), position + bytesRead);
      pending = next;
      state.push(chunk, position);
      position += bytesRead;
      options.onProgress?.(position - start);
    }
    // Stopped at `end` (a byte cap), the file goes on: its partial line is not the last line. A torn line
    // already longer than max_line_bytes can never become a valid line, whatever is appended to it: it is
    // reported as too long and consumed, so it cannot hold the cursor night after night (a run of NUL bytes
    // with no newline at the log's end); the rest of it, once written, is one more invalid line.
    if ((options.final && position < end) || state.overlong) state.flush(position);
    return state.consumed;
  } finally {
    // A line callback that threw leaves a read in flight: let it finish before the handle closes.
    await pending?.catch(() => undefined);
    await handle.close();
  }
}

/** Splits chunks into lines with byte offsets; shared by the plain and the gzip reader. */
export class LineSplitter {
  consumed: number;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private skipping = false;
  private lineStart: number;
  private readonly line = new BufferLine();

  constructor(
    start: number,
    private readonly maxLineBytes: number,
    private readonly onLine: (line: RawLine) => void,
  ) {
    this.consumed = start;
    this.lineStart = start;
  }

  push(chunk: Buffer, chunkOffset: number): void {
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, pos);
      if (nl === -1) {
        this.keep(chunk.subarray(pos));
        return;
      }
      this.emit(chunk, pos, nl, chunkOffset + nl + 1);
      pos = nl + 1;
    }
  }

  /** The line being read is already longer than max_line_bytes (it is skipped to its newline). */
  get overlong(): boolean {
    return this.skipping;
  }

  /** Reports a last line that has no newline (its next offset is `end`, the end of the file). */
  flush(end: number): void {
    if (this.carryBytes === 0 && !this.skipping) return;
    this.emit(Buffer.alloc(0), 0, 0, end);
  }

  private keep(rest: Buffer): void {
    if (rest.length === 0 || this.skipping) return;
    // One byte of allowance: a CRLF line's CR is not part of the line.
    if (this.carryBytes + rest.length > this.maxLineBytes + 1) {
      this.skipping = true;
      this.carry = [];
      this.carryBytes = 0;
      return;
    }
    // Copy: the read buffer is reused for the next chunk.
    this.carry.push(Buffer.from(rest));
    this.carryBytes += rest.length;
  }

  private emit(chunk: Buffer, from: number, to: number, next: number): void {
    const offset = this.lineStart;
    const lastByte = to > from ? chunk[to - 1] : this.carry.at(-1)?.at(-1);
    const length = this.carryBytes + (to - from) - (lastByte === CR ? 1 : 0);
    if (this.skipping || length > this.maxLineBytes) {
      this.onLine({ text: '', offset, next, tooLong: true });
    } else {
      let end = to;
      if (this.carry.length === 0) {
        if (end > from && chunk[end - 1] === CR) end -= 1;
        this.onLine(this.line.set(chunk, from, end, offset, next));
      } else {
        const bytes = Buffer.concat([...this.carry, chunk.subarray(from, to)]);
        const trimmed = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
        this.onLine(this.line.set(bytes, 0, trimmed, offset, next));
      }
    }
    this.carry = [];
    this.carryBytes = 0;
    this.skipping = false;
    this.lineStart = next;
    this.consumed = next;
  }
}

async function startsWithBom(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(BOM.length);
  const { bytesRead } = await handle.read(head, 0, BOM.length, 0);
  return bytesRead === BOM.length && head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
}
