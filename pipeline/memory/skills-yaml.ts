import { isDeepStrictEqual } from 'node:util';
import type { Document, Pair, YAMLSeq } from 'yaml';
import { yamlLib } from '../io/yaml-lib.js';
import { errors, truncate } from '../model/errors.js';
import { sanitizeRuleText, type MemoryRule } from './memory-md.js';

/**
 * skills/<name>.yaml: humans own every key but `derived_rules`. New rules are spliced into the original
 * text at the derived_rules value (found through the yaml parser's node ranges), so every other byte —
 * spacing, flow sequences, folded scalars, comments, line endings — survives. The spliced text is
 * re-parsed and checked; if the check fails, the file is rewritten through the yaml Document API
 * instead (correct, but it reformats human-owned parts).
 */
export interface SkillRule extends MemoryRule {
  cluster: string;
}

export function parseSkillRules(text: string, file: string): MemoryRule[] {
  const doc = parseSkill(text, file);
  const seq = doc.get('derived_rules');
  if (seq === undefined || seq === null) return [];
  if (!yamlLib().isSeq(seq)) throw errors.config(file, 'derived_rules', 'a list of rules', String(seq));
  return seq.items.flatMap((item) => {
    if (!yamlLib().isMap(item)) return [];
    const id = item.get('id');
    const rule = item.get('rule');
    return typeof id === 'string' && typeof rule === 'string' ? [{ id, text: rule }] : [];
  });
}

/**
 * Why the run must leave a skill file alone, or null when its derived rules can be read. A derived_rules
 * item without a string id and rule text makes the whole file unreadable rather than being skipped:
 * read without it, the rule would look deleted by a human and its pattern would be burned.
 */
export function skillFileProblem(text: string): string | null {
  const doc = yamlLib().parseDocument(text);
  // The parser's first line says what and where; the lines after it quote the file.
  if (doc.errors.length > 0) return `is not valid YAML (${truncate(doc.errors[0]!.message.split('\n')[0]!.replace(/:\s*$/, ''), 120)})`;
  if (doc.contents !== null && !yamlLib().isMap(doc.contents)) return 'is not a YAML map';
  const seq = doc.get('derived_rules');
  if (seq === undefined || seq === null) return null;
  if (!yamlLib().isSeq(seq)) return 'has a derived_rules that is not a list';
  const bad = seq.items.findIndex((item) => !yamlLib().isMap(item) || typeof item.get('id') !== 'string' || typeof item.get('rule') !== 'string');
  return bad === -1 ? null : `has a derived_rules item (the ${ordinal(bad + 1)}) without an id and a rule text`;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

export function addSkillRules(text: string | undefined, skill: string, file: string, rules: SkillRule[]): string {
  const source = text ?? `# Skill file created by sleep-cycle for ${skill} tools.\nname: ${skill}\nderived_rules: []\n`;
  const doc = parseSkill(source, file);
  if (rules.length === 0) return source;
  const items = rules.map((rule) => ({ id: rule.id, rule: sanitizeRuleText(rule.text), cluster: rule.cluster }));
  const spliced = spliceRules(source, doc, items);
  if (spliced !== null && verifySplice(source, spliced, items)) return spliced;
  return rewriteDocument(doc, items, lineEnding(source));
}

/**
 * Removes the derived_rules items with these ids (archived rules), cutting their lines out of the
 * original text; when the splice cannot be verified, the Document API removes them instead.
 */
export function removeSkillRules(text: string, file: string, ids: ReadonlySet<string>): string {
  const doc = parseSkill(text, file);
  const seq = doc.get('derived_rules');
  if (ids.size === 0 || !yamlLib().isSeq(seq)) return text;
  const doomed = seq.items.filter((item) => yamlLib().isMap(item) && ids.has(String(item.get('id'))));
  if (doomed.length === 0) return text;
  const expected = (((doc.toJS() ?? {}) as Record<string, unknown>).derived_rules as { id?: unknown }[]).filter((item) => !ids.has(String(item?.id)));
  if (!seq.flow) {
    let out = '';
    let at = 0;
    for (const item of doomed as { range?: [number, number, number] | null }[]) {
      if (!item.range) break;
      const start = text.lastIndexOf('\n', item.range[0] - 1) + 1;
      out += text.slice(at, start);
      at = lineBoundaryAtOrAfter(text, item.range[1]);
    }
    out += text.slice(at);
    if (doomed.length === seq.items.length) out = emptyListAfterKey(out);
    try {
      const after = yamlLib().parseDocument(out);
      const old = (doc.toJS() ?? {}) as Record<string, unknown>;
      if (after.errors.length === 0 && isDeepStrictEqual(after.toJS(), { ...old, derived_rules: expected })) return out;
    } catch {
      // fall back below
    }
  }
  const kept = new (yamlLib().YAMLSeq)();
  kept.flow = seq.items.length === doomed.length;
  kept.items = seq.items.filter((item) => !doomed.includes(item));
  doc.set('derived_rules', kept);
  const out = doc.toString({ lineWidth: 0 });
  return lineEnding(text) === '\r\n' ? out.replace(/\r?\n/g, '\r\n') : out;
}

/** `derived_rules:` left with no items: give it an explicit empty list on its own line, nothing else touched. */
function emptyListAfterKey(text: string): string {
  const match = /^([ \t]*)derived_rules:[ \t]*(?=\r?\n|$)/m.exec(text);
  if (!match) return text;
  const end = match.index + match[0].length;
  return `${text.slice(0, end).replace(/[ \t]*$/, '')} []${text.slice(end)}`;
}

interface NewItem {
  id: string;
  rule: string;
  cluster: string;
}

/** The text with the new items spliced into the derived_rules value, or null for a layout it does not handle. */
function spliceRules(source: string, doc: Document, items: NewItem[]): string | null {
  const root = doc.contents;
  if (root !== null && (!yamlLib().isMap(root) || root.flow)) return null;
  const eol = lineEnding(source);
  const pair = root === null ? undefined : (root.items as Pair[]).find((p) => yamlLib().isScalar(p.key) && p.key.value === 'derived_rules');
  if (!pair) {
    // Absent: a new top-level key at the end, at the root map's indentation.
    const first = root?.items[0] as Pair | undefined;
    const keyStart = first && yamlLib().isScalar(first.key) ? first.key.range?.[0] : undefined;
    const indent = keyStart === undefined ? 0 : column(source, keyStart);
    const lead = source.length === 0 || source.endsWith('\n') ? '' : eol;
    return `${source}${lead}${' '.repeat(indent)}derived_rules:${eol}${renderItems(items, indent + 2, eol)}`;
  }
  const key = pair.key as { range?: [number, number, number] | null };
  const value = pair.value as { range?: [number, number, number] | null } | null;
  if (!key.range || !value?.range) return null;
  const [valueStart, valueEnd] = value.range;
  if (yamlLib().isSeq(value) && !value.flow && value.items.length > 0) {
    // A block sequence: new items after the last one, at the existing items' indentation.
    if (source[valueStart] !== '-') return null;
    const last = value.items[value.items.length - 1] as { range?: [number, number, number] | null };
    if (!last.range) return null;
    const at = lineBoundaryAtOrAfter(source, last.range[1]);
    const lead = at === source.length && !source.endsWith('\n') ? eol : '';
    return `${source.slice(0, at)}${lead}${renderItems(items, column(source, valueStart), eol)}${source.slice(at)}`;
  }
  const emptyFlow = yamlLib().isSeq(value) && value.flow && value.items.length === 0;
  const nullScalar = yamlLib().isScalar(value) && value.value === null;
  if (!emptyFlow && !nullScalar) return null;
  // `[]`, `null`, `~` or nothing: drop the value text (and the blanks around it when nothing else
  // follows on the line), then put a block sequence on the following lines.
  let cutStart = valueStart;
  let cutEnd = valueEnd;
  if (cutEnd > cutStart) {
    while (cutStart > 0 && (source[cutStart - 1] === ' ' || source[cutStart - 1] === '\t')) cutStart -= 1;
    let probe = cutEnd;
    while (probe < source.length && (source[probe] === ' ' || source[probe] === '\t')) probe += 1;
    if (probe === source.length || source[probe] === '\n' || source[probe] === '\r') cutEnd = probe;
    else cutStart = valueStart; // a comment follows: keep the blanks that separate it
  }
  const anchor = valueEnd > valueStart ? valueEnd - 1 : key.range[1];
  const lf = source.indexOf('\n', anchor);
  const at = lf === -1 ? source.length : lf + 1;
  const lead = lf === -1 ? eol : '';
  const indent = column(source, key.range[0]) + 2;
  return `${source.slice(0, cutStart)}${source.slice(cutEnd, at)}${lead}${renderItems(items, indent, eol)}${source.slice(at)}`;
}

/** The spliced text parses, and means exactly the old document with the new items appended to derived_rules. */
function verifySplice(source: string, spliced: string, items: NewItem[]): boolean {
  try {
    const before = yamlLib().parseDocument(source);
    const after = yamlLib().parseDocument(spliced);
    if (after.errors.length > 0 || (after.contents !== null && !yamlLib().isMap(after.contents))) return false;
    const old = (before.toJS() ?? {}) as Record<string, unknown>;
    const oldRules = old.derived_rules ?? [];
    if (!Array.isArray(oldRules)) return false;
    const expected = { ...old, derived_rules: [...oldRules, ...items] };
    return isDeepStrictEqual(after.toJS(), expected);
  } catch {
    return false;
  }
}

/** Fallback: the Document API keeps comments and key order but reformats the rest of the file. */
function rewriteDocument(doc: Document, items: NewItem[], eol: '\n' | '\r\n'): string {
  let seq = doc.get('derived_rules');
  if (!yamlLib().isSeq(seq)) {
    seq = new (yamlLib().YAMLSeq)();
    doc.set('derived_rules', seq);
  }
  const list = seq as YAMLSeq;
  list.flow = false;
  for (const rule of items) {
    const item = new (yamlLib().YAMLMap)();
    item.set('id', rule.id);
    item.set('rule', rule.rule);
    item.set('cluster', rule.cluster);
    list.items.push(item);
  }
  const out = doc.toString({ lineWidth: 0 });
  return eol === '\r\n' ? out.replace(/\r?\n/g, '\r\n') : out;
}

function renderItems(items: NewItem[], indent: number, eol: string): string {
  const pad = ' '.repeat(indent);
  return items
    .map((item) => `${pad}- id: ${scalar(item.id)}${eol}${pad}  rule: ${quoteDouble(item.rule)}${eol}${pad}  cluster: ${scalar(item.cluster)}${eol}`)
    .join('');
}

/** A plain scalar when it reads back as the same string (ids like r-1a2b3c), double-quoted otherwise. */
function scalar(value: string): string {
  if (/^[A-Za-z][\w.-]*$/.test(value)) {
    try {
      if (yamlLib().parse(value) === value) return value;
    } catch {
      // fall through to quoting
    }
  }
  return quoteDouble(value);
}

/**
 * A YAML double-quoted scalar. JSON string syntax is valid YAML; characters YAML does not allow
 * unescaped (C1 controls, BOM, non-characters) or that YAML 1.1 reads as line breaks are escaped too.
 */
function quoteDouble(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The line ending of the first line break; LF when there is none. */
function lineEnding(text: string): '\n' | '\r\n' {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/** The column of `offset` (a byte-order mark at the start of the file takes no column). */
function column(text: string, offset: number): number {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return offset - lineStart - (lineStart === 0 && text.startsWith('\ufeff') ? 1 : 0);
}

/** `offset` when it starts a line (or is the end of the text), else the start of the next line. */
function lineBoundaryAtOrAfter(text: string, offset: number): number {
  if (offset === 0 || offset >= text.length || text[offset - 1] === '\n') return Math.min(offset, text.length);
  const lf = text.indexOf('\n', offset);
  return lf === -1 ? text.length : lf + 1;
}

function parseSkill(text: string, file: string) {
  const doc = yamlLib().parseDocument(text);
  if (doc.errors.length > 0) {
    throw errors.config(file, '(file)', 'valid YAML', doc.errors[0]!.message);
  }
  if (doc.contents !== null && !yamlLib().isMap(doc.contents)) {
    throw errors.config(file, '(file)', 'a YAML map with a derived_rules list', 'another kind of document');
  }
  return doc;
}
