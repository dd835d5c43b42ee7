import { maskTokens } from './mask.js';
import { DEFAULT_MINER_OPTIONS } from './miner.js';
import { tokenize } from './tokenize.js';

/**
 * The first half of template mining, run on every failure's error line: the miner's own masking (values
 * recognisable by their form become `<*>`), without learning. Two lines that differ only in such values
 * are one line to the miner, so a night's clusters are keyed by masked lines (few) rather than raw ones
 * (many), and the miner learns once per masked line, after the night is read, in sorted order.
 */
export function maskVariables(line: string): string {
  return maskTokens(tokenize(line, DEFAULT_MINER_OPTIONS)).join(' ');
}

/**
 * `maskVariables` for a night's stream of error lines, which mostly differ from each other in their
 * numbers only (`expected 3 to equal 5`, `a.ts(12,7): error TS2345: …`): masking a line costs about a
 * microsecond per token, and distinct lines run into the thousands.
 *
 * Masking reads a digit only by its class (`\d`, `[0-9a-f]`, "a digit next to a letter"), except a `0`
 * that may start `0x`, and it only drops or keeps characters, never moves them. So lines of one *digit
 * shape* (equal once each digit 1-9 is written `1`) are cut into the same tokens and have the same parts
 * masked, and their results differ only in the digits that stayed literal (`TS2345`, `ssh2`). The first
 * line of a shape is masked with its digits 1-9 renumbered (1, 2, 3, … in order; past nine digits, a
 * second copy numbers them by nines): in that result each such digit names the position it came from,
 * and every line of the shape is that result with its own digits put back. Bounded (log text is
 * attacker-controlled): past `maxEntries` shapes, for a line longer than `maxLength` or with more than
 * 81 digits 1-9, a line is masked on its own. `test/unit/line-mask.test.ts` holds this to
 * `maskVariables` on generated lines.
 */
export class LineMasker {
  /** By a hash of the digit shape: the lines that first had each shape, and their shape's mask. */
  private readonly byShape = new Map<number, { line: string; mask: ShapeMask | null }[]>();
  private shapes = 0;

  constructor(
    private readonly maxEntries = 4096,
    private readonly maxLength = 4096,
  ) {}

  mask(line: string): string {
    if (line.length > this.maxLength) return maskVariables(line);
    // The shape is hashed and compared in place: building it as a string cost more than the rest.
    const hash = shapeHash(line);
    let bucket = this.byShape.get(hash);
    let known: ShapeMask | null | undefined = bucket?.find((entry) => sameShape(entry.line, line))?.mask;
    if (known === undefined) {
      known = learnShape(line);
      if (this.shapes < this.maxEntries) {
        if (bucket === undefined) this.byShape.set(hash, (bucket = []));
        bucket.push({ line, mask: known });
        this.shapes += 1;
      }
    }
    return known === null ? maskVariables(line) : withDigitsOf(known, line);
  }
}

/** A shape's mask: digits 1-9 in it are placeholders, the n-th for the line's `slots[n]`-th digit 1-9. */
interface ShapeMask {
  masked: string;
  slots: number[];
}

const MAX_PROBES = 2;

/** FNV-1a of the line's digit shape (each digit 1-9 read as `1`; `0` stays: it may start a `0x` hex value). */
function shapeHash(line: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    hash = Math.imul(hash ^ (isNonZeroDigit(c) ? 49 : c), 0x01000193);
  }
  return hash >>> 0;
}

/** Whether two lines have one digit shape. */
function sameShape(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    const d = b.charCodeAt(i);
    if (c !== d && !(isNonZeroDigit(c) && isNonZeroDigit(d))) return false;
  }
  return true;
}

/** Masks numbered copies of a line and reads back where each digit of the result came from. */
function learnShape(line: string): ShapeMask | null {
  const count = nonZeroDigits(line).length;
  const probes = count === 0 ? 1 : Math.ceil(Math.log(count) / Math.log(9) + 1e-9) || 1;
  if (probes > MAX_PROBES) return null;
  const masks: string[] = [];
  for (let r = 0; r < probes; r++) masks.push(maskVariables(numbered(line, 9 ** r)));
  const first = masks[0]!;
  const slots = slotsOf(masks, count);
  return slots !== null && masks.every((m) => m.length === first.length) ? { masked: first, slots } : null;
}

/**
 * Where each digit 1-9 of the first mask came from (see learnShape), or null when the masks disagree.
 * A function of its own: the loop over characters makes whatever holds it hot, and learnShape (a few
 * hundred calls a night) would then be optimised with all of masking inlined, twice over (about 150 M
 * instructions of compilation per thread, more than its calls cost).
 */
function slotsOf(masks: readonly string[], count: number): number[] | null {
  const slots: number[] = [];
  const first = masks[0]!;
  for (let i = 0; i < first.length; i++) {
    if (!isNonZeroDigit(first.charCodeAt(i))) continue;
    let slot = 0;
    for (let r = 0; r < masks.length; r++) {
      const c = masks[r]!.charCodeAt(i);
      // The copies must agree but for their digits; if not, masking read a digit's value after all.
      if (!isNonZeroDigit(c)) return null;
      slot += (c - 49) * 9 ** r;
    }
    if (slot >= count) return null;
    slots.push(slot);
  }
  return slots;
}

/** The line with its n-th digit 1-9 (from 0) written 1 + floor(n / step) mod 9. */
function numbered(line: string, step: number): string {
  let out = '';
  let from = 0;
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (!isNonZeroDigit(line.charCodeAt(i))) continue;
    out += line.slice(from, i) + String.fromCharCode(49 + (Math.floor(n++ / step) % 9));
    from = i + 1;
  }
  return n === 0 ? line : out + line.slice(from);
}

/** A shape's mask with the line's own digits in its placeholders. */
function withDigitsOf(known: ShapeMask, line: string): string {
  if (known.slots.length === 0) return known.masked;
  const digits = nonZeroDigits(line);
  const masked = known.masked;
  let out = '';
  let from = 0;
  let n = 0;
  for (let i = 0; i < masked.length; i++) {
    if (!isNonZeroDigit(masked.charCodeAt(i))) continue;
    out += masked.slice(from, i) + String.fromCharCode(digits[known.slots[n++]!]!);
    from = i + 1;
  }
  return out + masked.slice(from);
}

function nonZeroDigits(line: string): number[] {
  const digits: number[] = [];
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (isNonZeroDigit(c)) digits.push(c);
  }
  return digits;
}

function isNonZeroDigit(c: number): boolean {
  return c >= 49 && c <= 57;
}

/** Lines of a message kept as evidence, and the characters they are read from. */
const EVIDENCE_LINES = 6;
const EVIDENCE_READ = 2000;

/**
 * A message as evidence is stored (state, report, audit, the model's prompt): its first lines, each
 * masked as the miner masks values, so what is kept is a template with its variables as `<*>`, never
 * the raw line. Callers pass redacted text: a secret is gone before masking could split its key from
 * its value.
 */
export function maskMessage(message: string): string {
  return message
    // Claude Code's wrapper is not part of the error (see error-line.ts); the masker would mangle it.
    .replace(/<\/?tool_use_error>/g, '')
    .slice(0, EVIDENCE_READ)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(0, EVIDENCE_LINES)
    .map(maskVariables)
    .join('\n');
}
