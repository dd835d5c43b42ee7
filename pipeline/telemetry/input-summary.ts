import { readsAsRandomName } from '../safety/identifier.js';
import { redact } from '../safety/redact.js';

/**
 * The event's `input_summary`: the call itself, short enough to read in a report and to tell which
 * program a shell call ran (tool-family.ts reads it). A Bash command as written, a path relative to the
 * project, an MCP tool's argument names; never an argument's value where the value could be data
 * (file contents, a prompt, a record). Redacted, home folders as `~`, whitespace collapsed, at most
 * 200 characters.
 */
export const MAX_SUMMARY_CHARS = 200;

export interface SummaryOptions {
  /** The project folder: paths and commands under it are shown relative to it. */
  cwd?: string;
}

/** Inputs whose one string field is the call (first match wins). */
const MAIN_FIELDS = ['command', 'cmd', 'file_path', 'notebook_path', 'path', 'url', 'query'] as const;
const PATH_FIELDS = new Set(['file_path', 'notebook_path', 'path']);

/** The summary of a tool's input, or undefined when there is nothing to say about it. */
export function summarizeInput(tool: string, input: unknown, options: SummaryOptions = {}): string | undefined {
  if (typeof input === 'string') return capSummary(relativeTo(input, options.cwd));
  if (!isRecord(input)) return undefined;
  // An MCP tool's arguments are its caller's data (records, messages): only their names are kept.
  if (tool.startsWith('mcp__')) return argumentNames(input);
  if (typeof input.pattern === 'string') {
    const where = typeof input.path === 'string' ? ` in ${relativeTo(input.path, options.cwd)}` : '';
    return capSummary(`${input.pattern}${where}`);
  }
  for (const field of MAIN_FIELDS) {
    const value = input[field];
    if (typeof value !== 'string' || value.trim() === '') continue;
    return capSummary(PATH_FIELDS.has(field) || field === 'command' || field === 'cmd' ? relativeTo(value, options.cwd) : value);
  }
  // A subagent's task: its short description, never its prompt.
  if (typeof input.description === 'string') return capSummary(input.description);
  return argumentNames(input);
}

/**
 * A summary as written to an event: redacted first (a cut could hide part of a secret from the
 * redactor), one line, at most 200 characters; undefined when empty.
 */
export function capSummary(text: string): string | undefined {
  const bounded = text.length > 8 * MAX_SUMMARY_CHARS ? text.slice(0, 8 * MAX_SUMMARY_CHARS) : text;
  const redacted = redact(oneLine(bounded));
  const clean = mayNameHome(redacted) ? redacted.replace(HOME_PATH, '~') : redacted;
  if (clean === '') return undefined;
  if (clean.length <= MAX_SUMMARY_CHARS) return clean;
  const cut = isHighSurrogate(clean, MAX_SUMMARY_CHARS - 2) ? MAX_SUMMARY_CHARS - 2 : MAX_SUMMARY_CHARS - 1;
  return `${clean.slice(0, cut)}…`;
}

/** A home folder names a person: `/home/alice/x` is written `~/x` (as templates/signature.ts does for messages). */
const HOME_PATH = /(?:\/(?:Users|home)\/|[A-Za-z]:\\Users\\)[^/\\\s'"`]+/g;
/** Every match of HOME_PATH holds one of these (the hook summarises a call on each tool call: no regex compiled for the others). */
function mayNameHome(text: string): boolean {
  return text.includes('/Users/') || text.includes('/home/') || text.includes(':\\Users\\');
}

/**
 * Line continuations joined, other line breaks shown as `; ` (what they mean between shell commands),
 * runs of blanks as one space. Heredoc bodies (a file's content, not the call) and comment lines go.
 */
export function oneLine(text: string): string {
  // One line of words with single blanks (most commands): oneLineFull changes nothing but its ends, and
  // its patterns are not compiled for it (the hook summarises a call on each tool call).
  if (!['\n', '#', '<<', ';', '  ', '\t', '\f', '\v'].some((mark) => text.includes(mark))) return text.trim();
  return oneLineFull(text);
}

/** oneLine without its shortcut (exported for the test that holds the shortcut to it). */
export function oneLineFull(text: string): string {
  return withoutHeredocBodies(text)
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map(withoutComment)
    .join('\n')
    // After `&&`, `|`, `then`, `do`… a line break only continues the command; elsewhere it ends one.
    .replace(/(&&|\|\||\||\bthen|\bdo|\belse|\{|\()?[ \t]*\r?\n\s*/g, (_, op: string | undefined) => (op ? `${op} ` : '; '))
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/^(?:; )+|(?:;\s*)+$/g, '')
    .trim();
}

/** A line without its shell comment (a `#` that starts a word outside quotes). */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i += 1;
    } else if (c === '\\') i += 1;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** `cat <<'EOF' > a.py` then the file's lines then `EOF`: the opening line and what follows the body. */
function withoutHeredocBodies(text: string): string {
  if (!text.includes('<<')) return text;
  const out: string[] = [];
  let delimiter: RegExp | null = null;
  for (const line of text.split('\n')) {
    if (delimiter !== null) {
      if (delimiter.test(line)) delimiter = null;
      continue;
    }
    out.push(line);
    const opened = /<<-?[ \t]*(['"]?)([\w.-]+)\1/.exec(line.replace(/<<</g, ''));
    if (opened) delimiter = new RegExp(`^[ \\t]*${opened[2]!.replace(/[.-]/g, '\\$&')}[ \\t]*\\r?$`);
  }
  return out.join('\n');
}

/** `/home/me/project/src/a.ts` → `src/a.ts` when the project is `/home/me/project`. */
function relativeTo(text: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd.length < 2) return text;
  const root = cwd.replace(/\/+$/, '');
  return text.split(`${root}/`).join('').split(root).join('.');
}

/** The argument names, sorted; a name that reads as a piece of a token (not as words) stands as `<*>`. */
function argumentNames(input: Record<string, unknown>): string | undefined {
  const names = Object.keys(input).filter((name) => /^[\w.-]{1,40}$/.test(name)).map((name) => (readsAsRandomName(name) ? '<*>' : name)).sort();
  return names.length === 0 ? undefined : capSummary(`{${names.join(', ')}}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}
