/**
 * MEMORY.md is human-owned; sleep-cycle owns only the `## Derived Rules` section. These functions are
 * pure: parse finds the section and its rule bullets, addRules returns the new text with every byte
 * outside the section unchanged. addRules never re-joins lines: it inserts the new bullets into the
 * original string at one offset, so every human line keeps its own line ending (LF or CRLF).
 * Fenced code blocks (``` or ~~~) are opaque: a heading or rule bullet inside one is just code.
 */
export const DERIVED_HEADING = '## Derived Rules';

export interface MemoryRule {
  id: string;
  text: string;
}

export interface ParsedMemory {
  /** The line ending of the file's first line break (LF when it has none); new sections use it. */
  eol: '\n' | '\r\n';
  /** Line indexes: the heading line and the first line after the section; null when absent. */
  section: { heading: number; end: number } | null;
  rules: MemoryRule[];
  /** More than one `## Derived Rules` heading: only the first is used. */
  duplicateHeadings: number;
}

const RULE_LINE = /^\s*[-*]\s+(.*?)\s*<!--\s*rule:(r-[0-9a-f]{4,16})\s*-->\s*$/;
/** CommonMark fences: up to 3 spaces of indent, 3+ backticks or tildes, then an info string. */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

interface Line {
  /** The line without its line ending (a CR before the LF is not part of it). */
  text: string;
  /** Offset of the line's first character. */
  start: number;
  /** Offset just past the line's LF, or the end of the file for a last line without one. */
  next: number;
  /** The line ending as written: '\n', '\r\n', or '' for a last line without one. */
  eol: string;
  /** The line is part of a fenced code block (its opening and closing fence lines included). */
  fenced: boolean;
  /** A fenced code block is still open after this line. */
  openAfter: boolean;
}

interface Scan {
  lines: Line[];
  /** The opening fence of a code block the file never closes, or null. */
  openFence: string | null;
  section: { heading: number; end: number } | null;
  headings: number[];
}

export function parseMemory(text: string): ParsedMemory {
  const scan = scanMemory(text);
  const eol = firstEol(text);
  if (!scan.section) return { eol, section: null, rules: [], duplicateHeadings: 0 };
  const { heading, end } = scan.section;
  const rules: MemoryRule[] = [];
  for (let i = heading + 1; i < end; i++) {
    const line = scan.lines[i]!;
    if (line.fenced) continue;
    const match = RULE_LINE.exec(line.text);
    if (match) rules.push({ id: match[2]!, text: match[1]! });
  }
  return { eol, section: { heading, end }, rules, duplicateHeadings: scan.headings.length - 1 };
}

/**
 * Appends rule bullets at the end of the section (after its last non-blank line, or right after the
 * heading), creating the section at the end of the file if needed. The result is always the original
 * text with one contiguous insertion.
 */
export function addRules(text: string, rules: MemoryRule[]): string {
  if (rules.length === 0) return text;
  const scan = scanMemory(text);
  const bullets = rules.map(renderRule);
  if (!scan.section) {
    const eol = firstEol(text);
    let body = text.length === 0 || text.endsWith('\n') ? text : `${text}${eol}`;
    // An unclosed fence runs to the end of the file and would swallow the new section: close it
    // (Markdown closes it there anyway, so the human content renders the same).
    if (scan.openFence !== null) body += `${scan.openFence}${eol}`;
    const gap = body.length === 0 ? '' : eol;
    return `${body}${gap}${DERIVED_HEADING}${eol}${eol}${bullets.join(eol)}${eol}`;
  }
  const { heading, end } = scan.section;
  const headingLine = scan.lines[heading]!;
  const eol = headingLine.eol === '\r\n' || headingLine.eol === '\n' ? headingLine.eol : firstEol(text);
  // The last non-blank line of the section that is not inside a still-open fence (bullets placed in
  // an unclosed fence would be code, not rules).
  let anchor = heading;
  for (let i = end - 1; i > heading; i--) {
    const line = scan.lines[i]!;
    if (line.text.trim() !== '' && !line.openAfter) {
      anchor = i;
      break;
    }
  }
  const blankAfterHeading = anchor === heading && heading + 1 < end && scan.lines[heading + 1]!.text.trim() === '' && !scan.lines[heading + 1]!.fenced;
  if (blankAfterHeading) {
    // An empty section that keeps its blank line (e.g. after its last rule was archived): the bullets go
    // after that blank line, so adding and removing a rule again and again does not pile up blank lines.
    const blank = scan.lines[heading + 1]!;
    const following = scan.lines[heading + 2];
    const tail = following !== undefined && following.text.trim() !== '' ? eol : '';
    const lead = blank.eol === '' ? eol : '';
    return `${text.slice(0, blank.next)}${lead}${bullets.join(eol)}${eol}${tail}${text.slice(blank.next)}`;
  }
  const line = scan.lines[anchor]!;
  const offset = line.next;
  const lead = line.eol === '' ? eol : '';
  const gap = anchor === heading ? eol : '';
  return `${text.slice(0, offset)}${lead}${gap}${bullets.join(eol)}${eol}${text.slice(offset)}`;
}

/**
 * Removes the bullets of these rule ids from the section (archived rules), line and line ending
 * included. Every other byte stays as it was; a human line is never removed.
 */
export function removeRules(text: string, ids: ReadonlySet<string>): string {
  if (ids.size === 0) return text;
  const scan = scanMemory(text);
  if (!scan.section) return text;
  const cuts: [number, number][] = [];
  for (let i = scan.section.heading + 1; i < scan.section.end; i++) {
    const line = scan.lines[i]!;
    if (line.fenced) continue;
    const match = RULE_LINE.exec(line.text);
    if (match && ids.has(match[2]!)) cuts.push([line.start, line.next]);
  }
  let out = '';
  let at = 0;
  for (const [start, next] of cuts) {
    out += text.slice(at, start);
    at = next;
  }
  return out + text.slice(at);
}

/** Lines as an editor counts them (a final line break does not start another line). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

export function renderRule(rule: MemoryRule): string {
  return `- ${sanitizeRuleText(rule.text)} <!-- rule:${rule.id} -->`;
}

/** A rule is one line that cannot close or open an HTML comment (which would hide or fake an id). */
export function sanitizeRuleText(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/<!--/g, '<!—').replace(/-->/g, '—>').trim();
}

function isDerivedHeading(line: string): boolean {
  return /^##\s+Derived Rules\s*$/i.test(line);
}

function isSectionEnd(line: string): boolean {
  return /^#{1,2}\s/.test(line);
}

function firstEol(text: string): '\n' | '\r\n' {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/**
 * Splits on LF (a CR before it belongs to the line ending; a final newline does not produce an extra
 * empty line), tracks fenced code blocks, and finds the managed section outside of them.
 */
function scanMemory(text: string): Scan {
  const lines: Line[] = [];
  let fence: { char: string; length: number; marker: string } | null = null;
  let start = 0;
  while (start < text.length) {
    const lf = text.indexOf('\n', start);
    const stop = lf === -1 ? text.length : lf;
    const next = lf === -1 ? text.length : lf + 1;
    const hasCr = stop > start && text[stop - 1] === '\r';
    const content = text.slice(start, hasCr ? stop - 1 : stop);
    const eol = lf === -1 ? '' : hasCr ? '\r\n' : '\n';
    let fenced = false;
    if (fence) {
      fenced = true;
      const close = FENCE_CLOSE.exec(content);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
    } else {
      const open = FENCE_OPEN.exec(content);
      // A backtick fence's info string cannot contain a backtick (that line is inline code instead).
      if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
        fenced = true;
        fence = { char: open[1]![0]!, length: open[1]!.length, marker: open[1]! };
      }
    }
    lines.push({ text: content, start, next, eol, fenced, openAfter: fence !== null });
    start = next;
  }
  const headings = lines.flatMap((line, index) => (!line.fenced && isDerivedHeading(line.text) ? [index] : []));
  const heading = headings[0];
  let section: Scan['section'] = null;
  if (heading !== undefined) {
    let end = heading + 1;
    while (end < lines.length && (lines[end]!.fenced || !isSectionEnd(lines[end]!.text))) end += 1;
    section = { heading, end };
  }
  return { lines, openFence: fence ? fence.marker : null, section, headings };
}

/**
 * What a human wrote in a memory file, as the items a reader sees: a bullet or a paragraph, with its
 * wrapped lines joined, numbered by its first line (1-based). Headings, blank lines, HTML comments,
 * fenced code and sleep-cycle's own rule bullets are not human statements to compare rules with.
 */
export function humanLines(text: string): { line: number; text: string }[] {
  const scan = scanMemory(text);
  const items: { line: number; text: string }[] = [];
  let open: { line: number; text: string } | null = null;
  scan.lines.forEach((line, index) => {
    const content = line.text.trim();
    const skip = line.fenced || content === '' || /^#{1,6}\s/.test(content) || /^<!--.*-->$/.test(content) || RULE_LINE.test(line.text);
    if (skip) {
      open = null;
      return;
    }
    const bullet = /^(?:[-*+]|\d+[.)])\s+/.exec(content);
    if (open && !bullet) {
      open.text = `${open.text} ${content}`;
      return;
    }
    open = { line: index + 1, text: bullet ? content.slice(bullet[0].length) : content };
    items.push(open);
  });
  return items;
}

/**
 * The section's rule bullets put in this order. Only the bullets whose id is in `order` move, each into
 * the slot of another; a bullet sleep-cycle does not know (written by hand with an id) keeps its place,
 * as does every other line and every line ending.
 */
export function orderRules(text: string, order: readonly string[]): string {
  const scan = scanMemory(text);
  if (!scan.section) return text;
  const rank = new Map(order.map((id, i) => [id, i]));
  const slots: { line: Line; id: string }[] = [];
  for (let i = scan.section.heading + 1; i < scan.section.end; i++) {
    const line = scan.lines[i]!;
    const match = line.fenced ? null : RULE_LINE.exec(line.text);
    if (match && rank.has(match[2]!)) slots.push({ line, id: match[2]! });
  }
  const sorted = [...slots].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  if (sorted.every((slot, i) => slot === slots[i])) return text;
  let out = '';
  let at = 0;
  slots.forEach((slot, i) => {
    out += text.slice(at, slot.line.start) + sorted[i]!.line.text;
    at = slot.line.start + slot.line.text.length;
  });
  return out + text.slice(at);
}
