/**
 * MEMORY.md is human-owned; sleep-cycle owns only the `## Derived Rules` section. These functions are
 * pure: parse finds the section and its rule bullets, addRules returns the new text with every byte
 * outside the section unchanged.
 */
export const DERIVED_HEADING = '## Derived Rules';

export interface MemoryRule {
  id: string;
  text: string;
}

export interface ParsedMemory {
  eol: '\n' | '\r\n';
  /** Line indexes: the heading line and the first line after the section; null when absent. */
  section: { heading: number; end: number } | null;
  rules: MemoryRule[];
  /** More than one `## Derived Rules` heading: only the first is used. */
  duplicateHeadings: number;
}

const RULE_LINE = /^\s*[-*]\s+(.*?)\s*<!--\s*rule:(r-[0-9a-f]{4,16})\s*-->\s*$/;

export function parseMemory(text: string): ParsedMemory {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = splitLines(text);
  const headings = lines.flatMap((line, index) => (isDerivedHeading(line) ? [index] : []));
  const heading = headings[0];
  if (heading === undefined) return { eol, section: null, rules: [], duplicateHeadings: 0 };
  let end = heading + 1;
  while (end < lines.length && !/^#{1,2}\s/.test(lines[end]!)) end += 1;
  const rules: MemoryRule[] = [];
  for (let i = heading + 1; i < end; i++) {
    const match = RULE_LINE.exec(lines[i]!);
    if (match) rules.push({ id: match[2]!, text: match[1]! });
  }
  return { eol, section: { heading, end }, rules, duplicateHeadings: headings.length - 1 };
}

/** Appends rule bullets at the end of the section, creating the section at the end of the file if needed. */
export function addRules(text: string, rules: MemoryRule[]): string {
  if (rules.length === 0) return text;
  const parsed = parseMemory(text);
  const bullets = rules.map(renderRule);
  const lines = splitLines(text);
  if (!parsed.section) {
    const body = text.length === 0 || text.endsWith('\n') ? text : `${text}${parsed.eol}`;
    const gap = body.length === 0 ? '' : parsed.eol;
    return `${body}${gap}${DERIVED_HEADING}${parsed.eol}${parsed.eol}${bullets.join(parsed.eol)}${parsed.eol}`;
  }
  let insertAt = parsed.section.end;
  while (insertAt > parsed.section.heading + 1 && lines[insertAt - 1]!.trim() === '') insertAt -= 1;
  const before = lines.slice(0, insertAt);
  const after = lines.slice(insertAt);
  const needsGap = insertAt === parsed.section.heading + 1;
  const joined = [...before, ...(needsGap ? [''] : []), ...bullets, ...after];
  const trailing = text.endsWith('\n') || after.length > 0 ? '' : parsed.eol;
  return joinLines(joined, parsed.eol, text) + trailing;
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

/** Splits on LF, dropping the CR of CRLF; a final newline does not produce an extra empty line. */
function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function joinLines(lines: string[], eol: string, original: string): string {
  return lines.join(eol) + (original.endsWith('\n') ? eol : '');
}
