import { readsAsInstruction } from '../safety/identifier.js';
import { ERROR_MARKERS, ERROR_VOCABULARY, FAILED_ACTIONS, FAILURE_LEAD, IDENTIFIER_DENY } from './error-vocabulary.js';

/**
 * The one part of an error template the offline writer may quote: its error clause. The grammar:
 *
 *   clause := head* body            (cut at the first clause boundary: `;`, `!`, `?`, a sentence end, ` - `)
 *   head   := (Name | `<*>` | `line N` | N) `:`        at most three, e.g. `bash: line <*>: <*>:`
 *   body   := token+                (at most 14 words and 100 characters, else no quote at all)
 *   token  := `<*>` | number | code identifier | error word | quoted identifier, with `:` `,` `(` `)` between
 *
 * "error word" is an allowlist (error-vocabulary.ts): a word outside it (another language, an adjective
 * that judges the rest of memory, an imperative, a modal, a condition) makes the clause unquotable. So
 * do flags, hosts, URLs, paths outside the repository, shell syntax, and a `<*>` where a negation may
 * have been masked. What follows the clause is dropped only when it does not start with a condition
 * ("…, except release builds"): a cut never turns a conditional claim into an unconditional one.
 */
export type ClauseResult = { kind: 'quote'; text: string } | { kind: 'withheld'; reason: string };

const MAX_WORDS = 14;
const MAX_CHARS = 100;

export function errorClause(template: string): ClauseResult {
  const line = firstLine(fold(template));
  if (line === '') return withheld('the error line is empty');
  if (!/^[\x20-\x7e]+$/.test(line)) return withheld('it is not plain ASCII (other scripts or look-alike letters)');
  if (/[`|&$<>{}\\]/.test(line.replaceAll('<*>', ''))) return withheld('it carries shell or markup syntax');
  const { head, body, rest } = cutAtBoundary(line.replace(/^-\s+/, ''));
  if (body === '') return withheld('no error clause before the first boundary');
  if (CONDITION_START.test(rest)) return withheld('the text after the clause is a condition the quote would drop');
  const clause = `${head}${body}`;
  const words = clause.split(' ');
  if (words.length > MAX_WORDS || clause.length > MAX_CHARS) return withheld(`the error clause is longer than ${MAX_WORDS} words or ${MAX_CHARS} characters`);
  const headWords = head === '' ? 0 : head.trim().split(' ').length;
  const problem = headProblem(head) ?? tokenProblem(words, headWords);
  if (problem !== null) return withheld(problem);
  if (!hasErrorMarker(clause, words)) return withheld('the clause does not state an error');
  return { kind: 'quote', text: clause };
}

function withheld(reason: string): ClauseResult {
  return { kind: 'withheld', reason };
}

/** NFKC (full-width letters become ASCII and are judged as such), invisible and control characters out. */
export function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ' ');
}

function firstLine(text: string): string {
  const line = text.split(/\r\n|\r|\n|\u2028|\u2029/).find((l) => l.trim() !== '') ?? '';
  return line.replace(/\s+/g, ' ').trim();
}

/** Error heads: `error:`, `TypeError:`, `bash: line <*>: <*>:`, `fetch failed:`, `npm error`; at most three. */
const HEAD_SEGMENT = String.raw`(?:[A-Za-z_][\w.-]{0,60}(?: (?:failed|error|ERR!?))?|<\*>|line (?:\d+|<\*>)|\d+)`;
const HEAD = new RegExp(`^(?:${HEAD_SEGMENT}: ){1,3}`);
/** Hard clause boundaries. A colon or comma inside the body is structure ("no such table: <*>"), not a new clause. */
const BOUNDARY = /[;!?]|\.(?=\s|$)|\s--?\s/;
const CONDITION_START = /^\W*(?:except|unless|only|but|if|when|whenever|until|provided|as long as|otherwise|however|yet|although|though|without)\b/i;

function cutAtBoundary(line: string): { head: string; body: string; rest: string } {
  const head = HEAD.exec(line)?.[0] ?? '';
  const tail = line.slice(head.length);
  const at = BOUNDARY.exec(tail);
  const body = (at ? tail.slice(0, at.index) : tail).trim();
  // A sentence period belongs to the clause: it reads as a complete error.
  const period = at?.[0] === '.' && body !== '' ? '.' : '';
  return { head, body: `${body}${period}`, rest: at ? tail.slice(at.index + at[0].length).trim() : '' };
}

/** A head names a program or an error class: a code name that spells no instruction. */
function headProblem(head: string): string | null {
  for (const segment of head.split(': ').filter(Boolean)) {
    const name = segment.split(' ')[0]!;
    if (name === '<*>' || name === 'line' || /^\d+$/.test(name)) continue;
    const problem = identifierProblem(name);
    if (problem !== null) return problem;
  }
  return null;
}

/** Words after which a masked `<*>` may stand for "not" / "no": the mask could have merged a negation. */
const AUXILIARY = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'can', 'could', 'do', 'does', 'did', 'will', 'would', 'shall', 'should', 'may', 'might', 'must', 'has', 'have', 'had']);
const NEGATABLE = new Set(['allowed', 'permitted', 'required', 'optional', 'needed', 'necessary', 'supported', 'recommended', 'enabled', 'disabled', 'safe', 'valid', 'possible']);

/** Every word after the head; the head's words still count as context ("fetch failed: connect …"). */
function tokenProblem(words: string[], from: number): string | null {
  for (const [i, raw] of words.entries()) {
    if (i < from) continue;
    // The redactor's placeholder is ours, like `<*>`.
    if (/^\(?\[REDACTED:[\w-]+\][),:.]*$/.test(raw)) continue;
    const word = raw.replace(/^[("'[]+/, '').replace(/[)"'\],:.]+$/, '');
    if (word === '') continue;
    if (word === '<*>') {
      const before = words[i - 1]?.toLowerCase().replace(/\W+$/, '');
      const after = words[i + 1]?.toLowerCase().replace(/\W+$/, '');
      // `is <*> allowed`: the mask may hold the "not" of the real error. `to be <*> Object.is` is a value.
      const prose = after !== undefined && /^[a-z]+$/.test(after);
      if ((before && AUXILIARY.has(before) && prose) || (after && NEGATABLE.has(after))) return 'a masked word stands where a negation may have been';
      continue;
    }
    const context = { before: bare(words[i - 1]), before2: bare(words[i - 2]), after: bare(words[i + 1]) };
    const placed = contextProblem(word.toLowerCase(), context, word);
    const problem = placed === undefined ? wordProblem(word) : placed;
    if (problem !== null) return problem;
  }
  return null;
}

function bare(raw: string | undefined): string {
  return (raw ?? '').toLowerCase().replace(/^[("'[]+/, '').replace(/[)"'\],:.]+$/, '');
}

const PERMISSION = new Set(['allowed', 'permitted', 'supported', 'accepted']);
const NEGATION = /^(?:not|no|never|cannot|\w+n't)$/;
const TEMPORAL = new Set(['after', 'before', 'within']);
/** "maximum allowed tokens": a limit, not a permission. */
const LIMIT = new Set(['maximum', 'max', 'minimum', 'min']);
const NAMED_BY_NEXT = new Set(['failed', 'fails', 'crashed', 'errored', 'aborted', 'exited', 'rejected', 'refused', 'denied', 'blocked', 'timed']);
/** "denied to bot", "refused for ci": who or what was refused. */
const REFUSALS = new Set(['denied', 'refused', 'rejected', 'forbidden']);
// Nouns an error names a thing after ("Cannot find module jest", "missing script: test", "no such table
// users"): the next plain lowercase word is that thing's name, judged as a name (IDENTIFIER_DENY) not a word.
const NAMED_BY_PREVIOUS = new Set(['fail', 'failed', 'target', 'test', 'task', 'job', 'step', 'stage', 'tool', 'package', 'branch',
  'module', 'modules', 'script', 'command', 'program', 'library', 'plugin', 'fixture', 'table', 'column', 'attribute', 'field',
  'option', 'function', 'method', 'class', 'variable', 'property', 'parameter', 'argument', 'setting', 'component', 'service',
  'resource', 'model', 'extension', 'dependency', 'executable', 'binary', 'crate', 'gem', 'region', 'database', 'schema']);
/** "String to replace not found": the noun names what the action was for. */
const NOUN_TO = new Set(['string', 'text']);
const QUANTITY = /^(?:<\*>|\d[\w.]*)$/;

/**
 * Words allowed only in one position: an action right after a failure ("failed to remove", not
 * "remove"), a permission word right after a negation ("not allowed", not "is allowed"), and
 * after/before/within only before a quantity ("timed out after <*> ms", not "works after deleting").
 * Returns null when the word is fine here, or a problem; undefined to judge the word on its own.
 */
function contextProblem(word: string, at: { before: string; before2: string; after: string }, original: string): string | null | undefined {
  if (FAILED_ACTIONS.has(word) && !ERROR_VOCABULARY.has(word)) {
    const leads = [at.before, at.before2];
    const failed = leads.some((lead) => FAILURE_LEAD.has(lead) || NEGATION.test(lead)) || (at.before === 'to' && NOUN_TO.has(at.before2));
    return failed ? null : 'it carries an action that is not stated as what failed';
  }
  // "address already in use": the one place "use" is a noun.
  if (word === 'use') return at.before === 'in' ? null : 'it carries an action that is not stated as what failed';
  if (PERMISSION.has(word)) return NEGATION.test(at.before) || LIMIT.has(at.before) ? null : 'it states a permission without a negation';
  if (TEMPORAL.has(word)) return QUANTITY.test(at.after) ? null : 'it carries a condition (after, before, within)';
  // The name of what failed ("FAIL lint", "boom failed", "target check failed"): judged as a name, not a word.
  if (!ERROR_VOCABULARY.has(word) && /^[a-z][a-z0-9-]*$/.test(original) && (NAMED_BY_NEXT.has(at.after) || NAMED_BY_PREVIOUS.has(at.before) || (['to', 'for'].includes(at.before) && REFUSALS.has(at.before2)))) {
    return IDENTIFIER_DENY.has(word) || FAILED_ACTIONS.has(word) ? 'a name in it spells an instruction' : null;
  }
  return undefined;
}

const TLD = /\.(?:com|net|org|io|dev|app|xyz|ru|cn|co|me|info|biz|example|site|online|cloud|ai|gg|tk|sh|us|uk|de|fr|eu|ly|to|cc|ws|pw|top|link|click|zip|mov|internal|local|localhost|test|invalid|onion)$/i;

function wordProblem(word: string): string | null {
  if (/^-{1,2}[A-Za-z]/.test(word) || /^\+\w/.test(word)) return 'it carries a flag';
  if (/:\/\/|^www\./i.test(word)) return 'it carries a URL';
  if (/^localhost$/i.test(word) || /^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$/.test(word) || (/^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/.test(word) && TLD.test(word))) return 'it names a host';
  if (/^(?:\/|~|\.\.)|\/\.\.(?:\/|$)/.test(word)) return 'it names a path outside the repository';
  if (/^\d+(?:[.,]\d+)*[a-z%]{0,3}$/i.test(word)) return null;
  if (word.includes('=')) return /^[\w.-]+=(?:<\*>|\d+)$/.test(word) ? null : 'it sets a value (key=value)';
  if (isCodeIdentifier(word)) return identifierProblem(word);
  return plainWordProblem(word);
}

/** snake_case, dotted.names, paths, CamelCase, ERRNO-style codes, names with digits: not prose. */
function isCodeIdentifier(word: string): boolean {
  // All-capital words are prose shouted ("IGNORE", "VERGISS") unless they are errno codes or short acronyms.
  if (/^[A-Z]+$/.test(word)) return /^E[A-Z]{3,}$/.test(word);
  return /[_./()]|\d/.test(word) || /[a-z][A-Z]/.test(word);
}

function identifierProblem(word: string): string | null {
  if (!/^[\w.@/+<>*()-]+$/.test(word)) return 'it carries a token that is neither a word nor a name';
  const parts = word
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  // Digits standing for letters (`5ud0`, `u53`) are read as the letters they stand for, too.
  const leet = word.toLowerCase().replace(/[0134578@$]/g, (c) => LEET[c] ?? c).split(/[^a-z]+/).filter(Boolean);
  const denied = [...parts, ...leet].find((part) => IDENTIFIER_DENY.has(part));
  if (denied !== undefined || readsAsInstruction(word)) return 'a name in it spells an instruction';
  return null;
}

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', $: 's' };

function plainWordProblem(word: string): string | null {
  if (!/^[A-Za-z]+(?:['-][A-Za-z]+)*$/.test(word)) return 'it carries a token that is neither a word nor a name';
  if (word.length === 1) return null;
  const parts = word.toLowerCase().split('-');
  return parts.every((part) => ERROR_VOCABULARY.has(part)) ? null : 'it uses a word outside the error vocabulary';
}

function hasErrorMarker(clause: string, words: string[]): boolean {
  // An error head: `error:`, `fatal:`, `TypeError:`, `django.db.utils.OperationalError:`.
  if (/^[\w.]*(?:error|exception|fatal|failure|warning)\w*:/i.test(clause)) return true;
  return words.some((raw) => {
    const word = raw.toLowerCase().replace(/[^a-z'-]/g, '');
    return ERROR_MARKERS.has(word) || /error|exception|fail/.test(word);
  });
}
