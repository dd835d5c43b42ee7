import { isGzip } from '../io/gzip-reader.js';
import type { FsPort } from '../io/fs.js';
import type { Segment } from './cursor.js';

/**
 * The byte cap of one night (settings.max_bytes_per_night): a log an attacker (or a runaway agent)
 * grew to gigabytes is read a cap's worth per run, and the cursor moves only over what was read, so
 * the rest is read by the next runs. A read stops at a byte offset; its last partial line is left.
 */
export class NightCap {
  private spent = 0;
  private stoppedAt: { file: string; offset: number } | null = null;

  constructor(
    private readonly budget: number,
    private readonly maxLineBytes: number,
  ) {}

  /** The cap was reached: nothing more is read tonight. */
  get reached(): boolean {
    return this.stoppedAt !== null;
  }

  /** Where the read of `segment` must stop (an offset), or null when all of it fits. */
  async limitFor(segment: Segment, ctx: { fs: FsPort }): Promise<number | null> {
    const end = segment.offset + this.budget - this.spent;
    // A .gz copy's decompressed size is unknown until it is read: it is always read with the limit.
    if (isGzip(segment.absolute)) return end;
    const size = (await ctx.fs.identify(segment.absolute))?.size ?? 0;
    return size > end ? end : null;
  }

  /**
   * Where a read that found no whole line inside the cap may go instead: the night's first read has room
   * for one line of max_line_bytes, so a cap below a line's length still moves on every night.
   */
  retryEnd(segment: Segment, consumed: number): number | null {
    return this.spent === 0 && consumed === segment.offset ? segment.offset + this.maxLineBytes + 2 : null;
  }

  /** Counts a read that went from `from` to `consumed` (stopping at `limit`, when there was one). */
  record(segment: Segment, consumed: number, limit: number | null): void {
    this.spent += Math.max(0, consumed - segment.offset);
    const cut = limit !== null && (!isGzip(segment.absolute) || consumed + this.maxLineBytes + 2 > limit);
    if (cut || this.spent >= this.budget) this.stoppedAt = { file: segment.file, offset: consumed };
  }

  /** What the report says when the cap stopped the night. */
  get notice(): string | null {
    if (!this.stoppedAt) return null;
    return `read ${this.spent} bytes, the most one run reads (max_bytes_per_night ${this.budget}): ${this.stoppedAt.file} continues from byte ${this.stoppedAt.offset} on the next run, and logs after it wait until then.`;
  }
}
