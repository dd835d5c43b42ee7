import type { CommandCandidate } from './command-check.js';
import type { CommandPolicy } from './command-policy.js';
import { isErrorQuote } from './error-quote.js';

/**
 * Every command a rule's text contains, for the command policy: each code span (backticks), and in the
 * prose around them each clause that starts with a program name the policy knows or that is dangerous
 * on its own. Tool-name spellings are read as the command they name (`git_push`, `git-commit` → `git
 * push`, `git commit`), so a name cannot hide a command from the parser.
 */
export function extractCommands(text: string, policy: CommandPolicy, quotable: Quotable = {}): CommandCandidate[] {
  const folded = withPlaceholders(spellOutToolNames(foldForCommands(text), policy));
  const names = knownPrograms(policy);
  // A span that quotes the cluster's own error text: the advice grammar reads it as prose (codeSpans), the
  // command policy has nothing to parse in it. Every other span of words is a command.
  const candidates = codeSpansOf(folded, names, quotable)
    .filter((span) => span.kind !== 'quote')
    .map((span) => ({ text: span.text, code: span.kind === 'command' }));
  const prose = folded.replace(CODE_SPAN, ' . ');
  return [...candidates, ...proseCommands(prose, names, new Set(Object.keys(policy.programs)))];
}

export interface CodeSpan {
  text: string;
  /**
   * `command`: starts with a program name (listed, a launcher or wrapper, or dangerous on its own) or uses
   * shell syntax or a flag: checked by the command policy, every part of it. `name`: one token (`Edit`,
   * `node_modules`, `.git/index.lock`): its place is checked, it is not a command. `quote`: words of the
   * cluster's own error text (`File does not exist.`, error-quote.ts): no command, so the advice grammar
   * reads it as prose. Words that are no error text of the cluster are a `command` (`run0 <tool>`).
   */
  kind: 'command' | 'name' | 'quote';
}

/** What a rule may quote or name in code formatting without it being a command: its cluster's error texts and tool. */
export interface Quotable {
  errorTexts?: readonly string[];
  toolName?: string;
}

/** Every code span of a rule's text (already folded), classified. */
export function codeSpans(text: string, policy: CommandPolicy, quotable: Quotable = {}): CodeSpan[] {
  return codeSpansOf(withPlaceholders(spellOutToolNames(foldForCommands(text), policy)), knownPrograms(policy), quotable);
}

/** One lowercase word, as a program is named (`gosu`, `run0`, `sphinx-build`); `Read`, `node_modules`, `app.py` are names. */
const PROGRAM_LIKE = /^[a-z][a-z0-9+-]*$/;

function codeSpansOf(folded: string, names: Set<string>, { errorTexts = [], toolName }: Quotable): CodeSpan[] {
  return [...folded.matchAll(CODE_SPAN)]
    .map((m) => (m[2] ?? '').trim())
    .filter((span) => span !== '')
    .map((text) => {
      const kind = spanKind(text, names);
      if (kind === 'quote' && !isErrorQuote(text, errorTexts)) return { text, kind: 'command' };
      // A lone word that could be a program (`gosu`) is one unless it is the tool or a word of its error.
      if (kind === 'name' && PROGRAM_LIKE.test(text) && text !== toolName && !isErrorQuote(text, errorTexts, 1)) return { text, kind: 'command' };
      return { text, kind };
    });
}

/** What a span looks like: a command, a name, or words (a quote only once error-quote.ts finds them in the error text). */
function spanKind(span: string, names: Set<string>): CodeSpan['kind'] {
  const plain = span.replaceAll('<*>', 'ANY_VALUE');
  const words = plain.split(/\s+/);
  const first = words[0]!.replace(/^["'(]+/, '').replace(/^\\/, '').replace(/^.*\//, '');
  // `command not found`, `file exists`: an error text that starts with a wrapper's name, not the wrapper run.
  const english = WRAPPER_NOUNS.has(first) && words.length > 1 && !names.has(words[1]!) && !ARGUMENT.test(words[1]!);
  if ((names.has(first) && !english) || /^[A-Za-z_]\w*=/.test(words[0]!)) return 'command';
  // Shell syntax or a flag anywhere: the span is written as a command, whatever its first word (`->` is an arrow).
  if (/[|&;$`]|(?:^|\s)<|(?<!-)>(?:\s|$)|(?:^|\s)-{1,2}[A-Za-z]/.test(plain)) return 'command';
  return words.length === 1 ? 'name' : 'quote';
}

/**
 * `<*>` (a value the log held) and `<file>`-style placeholders (a value the rule leaves to the agent) are
 * read as one word standing for any value, not as `<` and `>`: `rm -rf <*>` deletes anything, `ls <dir>`
 * lists a directory. A `<*>` that starts a span stays as it is (no program).
 */
function withPlaceholders(text: string): string {
  return text.replace(/(?<=\S\s+)<\*>/g, 'ANY_VALUE').replace(/<[A-Za-z][\w.:-]*>/g, 'ANY_VALUE');
}

function knownPrograms(policy: CommandPolicy): Set<string> {
  return new Set([...Object.keys(policy.programs), ...policy.launchers, ...policy.wrappers, ...DANGEROUS]);
}

const CODE_SPAN = /(`+)([^`]*?)\1/g;

/**
 * NFKC, then every dash a keyboard or a font can make to an ASCII one (an em dash to `--`, as an
 * autocorrected `--force` is), typographic quotes to ASCII quotes, invisible characters out.
 */
export function foldForCommands(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, '')
    .replace(/[\u2014\u2015\u2e3a\u2e3b]/g, '--')
    .replace(/[\u2010-\u2013\u2212\u2043\ufe58\ufe63\uff0d\u02d7\u2796\u1680]/g, '-')
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, '"');
}

/** Programs that are a danger on their own, looked for in prose even when the policy does not list them. */
const DANGEROUS = ['rm', 'curl', 'wget', 'chmod', 'chown', 'sudo', 'doas', 'printenv', 'env', 'dd', 'mkfs', 'kill', 'pkill', 'killall', 'shred', 'ssh', 'scp', 'nc', 'netcat', 'eval', 'exec', 'bash', 'sh', 'zsh', 'export', 'find', 'truncate', 'unlink', 'rsync', 'gh', 'docker', 'kubectl', 'terraform', 'helm', 'aws', 'gcloud', 'az', 'heroku', 'vercel', 'flyctl', 'set', 'alias'];

function spellOutToolNames(text: string, policy: CommandPolicy): string {
  return text.replace(/\b([a-z][\w]*)[_-]([a-z][\w-]*)\b/g, (whole, program: string, rest: string) => {
    const subs = policy.programs[program];
    const sub = rest.split(/[_-]/)[0]!;
    if (Array.isArray(subs) && (subs.includes(rest.replace(/_/g, '-')) || subs.includes(sub))) return `${program} ${rest.replace(/_/g, ' ')}`;
    return whole;
  });
}

/** Program names that are everyday English words: in prose they need an argument to be a command. */
const ENGLISH_PROGRAMS = new Set(['command', 'builtin', 'time', 'nice', 'timeout', 'set', 'find', 'export', 'file', 'sort', 'head', 'tail', 'touch', 'which', 'kill', 'exec', 'alias', 'stat', 'diff', 'sleep', 'make', 'cat', 'env']);
/** Wrappers named like nouns: in a code span too, they run something only when a program or argument follows. */
const WRAPPER_NOUNS = new Set(['command', 'builtin', 'time', 'nice', 'timeout', 'file']);
/** What follows a program name when it is run: a flag, a path, an assignment, a variable, a placeholder. */
const ARGUMENT = /^(?:-|\.|~|\$|ANY_VALUE)|[/=]/;

/** Clause boundaries in prose: a command in prose runs to the end of its clause at most. */
const CLAUSE = /[.;:!?](?:\s|$)|,\s|\s(?:and then|then|before|after|when|if|unless|so that|instead of)\s/i;

/**
 * In prose, a command starts at the first program name of a clause (or at the word before a shell
 * operator, or at the assignments before the name) and runs to the end of the clause. It counts as code
 * (every part must pass) when it uses shell syntax or names a program the policy does not list: prose has
 * no other reason to contain those. A clause the parser cannot read is cut from the end until it can.
 */
function proseCommands(prose: string, names: Set<string>, listed: Set<string>): CommandCandidate[] {
  const candidates: CommandCandidate[] = [];
  for (const clause of prose.split(CLAUSE)) {
    const words = clause.split(/\s+/).filter(Boolean);
    const bare = words.map((word) => word.replace(/^["'(]+|["')]+$/g, '').replace(/^\\/, '').replace(/^.*\//, ''));
    // A word that is also plain English ("a command", "set up", "find the file", "export the data") names a
    // program only when an argument or another program follows it; a program used as a noun is not a command.
    const named = bare.findIndex((word, i) => names.has(word) && (!ENGLISH_PROGRAMS.has(word) || names.has(bare[i + 1] ?? '') || ARGUMENT.test(words[i + 1] ?? '')));
    const operator = words.findIndex((word) => /\$\(|<\(|^\||&&|^;|^>|\|$/.test(word));
    let at = [named, operator < 0 ? -1 : Math.max(0, operator - 1)].filter((i) => i >= 0).reduce((a, b) => Math.min(a, b), Infinity);
    if (!Number.isFinite(at)) continue;
    while (at > 0 && /^[A-Za-z_]\w*=/.test(words[at - 1]!)) at -= 1;
    const text = words.slice(at).join(' ');
    const code = operator >= 0 || (named >= 0 && !listed.has(bare[named]!));
    candidates.push(...prefixes(text).map((prefix) => ({ text: prefix, code, prose: true })));
  }
  return candidates;
}

/** The clause, then shorter and shorter prefixes of it: the checker uses the longest one that parses. */
function prefixes(text: string): string[] {
  const words = text.split(' ');
  return [text, ...Array.from({ length: Math.min(words.length - 1, 6) }, (_, i) => words.slice(0, words.length - 1 - i).join(' '))];
}
