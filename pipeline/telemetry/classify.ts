import { errorLine, HTTP_STATUS } from './error-line.js';
import { backtrackRisk } from './pattern-bounds.js';

/** The line a category and a template are read from (the miner imports it from here or error-line.ts). */
export { errorLine };

/**
 * Error text → category: a deterministic, ordered list of patterns (first match wins) tried on the
 * error line (error-line.ts), extensible from settings. `benign` marks non-zero exits that are not
 * failures (a grep that found nothing); the filter never clusters them.
 */
export interface CategoryPattern {
  category: string;
  /** Matched against the error text, case-insensitive. */
  pattern: RegExp;
}

export interface ClassifyInput {
  toolName: string;
  exitCode: number;
  /** The error text (for Bash: the output after "Exit code N"). */
  message: string;
}

/** pytest `=== 1 failed … ===` / `FAILED a.py::t` / `ERROR a.py::t`, jest/vitest `Tests: 1 failed`, go `--- FAIL:`, mocha `2 failing`. */
const TEST_SUMMARY = /^=+ [^\n]{0,200}\b\d+ (?:failed|errors?)\b|^(?:FAILED|ERROR) \S+::|^\s*Tests?:?\s+\d+ failed\b|^\s*Test Files\s+\d+ failed\b|^--- FAIL: |^\s*\d+ failing$/m;

/**
 * Harness markers: Claude Code's own words about a call, wherever they stand in its result. Everything
 * else is read from the error line only.
 */
const HARNESS_CATEGORIES: readonly CategoryPattern[] = [
  // A parallel call Claude Code cancelled because a sibling failed: not an independent failure.
  { category: 'cancelled', pattern: /sibling tool call errored/i },
  { category: 'interrupted', pattern: /\[Request interrupted by user|interrupted by (?:the )?user/i },
];

export const DEFAULT_CATEGORIES: readonly CategoryPattern[] = [
  ...HARNESS_CATEGORIES,
  { category: 'not_read_first', pattern: /has not been read yet|read it first before writing/i },
  { category: 'edit_mismatch', pattern: /string to replace not found|old_string[^\n]{0,200}not (?:found|unique)|found \d+ matches of the string to replace/i },
  { category: 'hook_denied', pattern: /hook (?:error|denied|blocked)|blocked by (?:a |the )?hook|PreToolUse:\w+ hook/i },
  { category: 'permission_denied', pattern: /permission denied|\bEACCES\b|\bEPERM\b|operation not permitted|not allowed to|requires approval|tool use was rejected|doesn't want to proceed with this tool use/i },
  // A test runner's own summary outranks whatever the failing tests printed (timeouts, missing modules).
  { category: 'test_failure', pattern: TEST_SUMMARY },
  // A fixture the test asks for is not defined (a test setup error, not a missing package).
  { category: 'test_failure', pattern: /\bfixture '[^'\n]{1,100}' not found/ },
  { category: 'too_large', pattern: /exceeds maximum allowed tokens|too large|too long|maximum (?:context|size)|file content \(\d+ tokens\)/i },
  { category: 'timeout', pattern: /timed? ?out|ETIMEDOUT|deadline exceeded|took too long/i },
  // Case-sensitive: /ENOTFOUND/i would match "ModuleNotFoundError".
  { category: 'network_error', pattern: /\b(?:ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|ENETUNREACH)\b|getaddrinfo|[Nn]etwork (?:error|is unreachable)|[Ff]etch failed|[Cc]ould not resolve host/ },
  {
    category: 'dependency_missing',
    // A program or package that is not there, or a message that asks for one to be installed. Not any
    // "not found": a record, a fixture or a file that is missing is something else.
    pattern: /command not found|^(?:\S*\/)?(?:ba|da|k)?sh: (?:line )?\d+: \S+: not found|No module named|Cannot find (?:module|package)|ModuleNotFoundError|ERR_MODULE_NOT_FOUND|No matching distribution found|Could not find a version that satisfies|\b(?:pip3?|npm|yarn|pnpm|conda|apt(?:-get)?|brew|gem|cargo) (?:install|add)\b|\bplease install\b|\bis not installed\b|\b(?:package|module|library) is required\b/im,
  },
  { category: 'syntax_error', pattern: /SyntaxError|syntax error|unexpected token|IndentationError|parse error/i },
  { category: 'test_failure', pattern: /\bFAIL(?:ED)?\b|AssertionError|[Aa]ssert(?:ion)? failed|\d+ failed|tests? failed/ },
  { category: 'git_error', pattern: /^fatal:|^error: (?:failed to push|pathspec|src refspec|Your local changes)|index\.lock|non-fast-forward|\[rejected\]|merge conflict|not a git repository/im },
  { category: 'validation_error', pattern: /InputValidationError|validation (?:error|failed)|invalid (?:input|parameter|argument|value)|is required|must be/i },
  { category: 'not_found', pattern: /does not exist|no such file|\bENOENT\b|not found|\bno [\w-]+ found\b|404\b|EISDIR/i },
  { category: 'api_error', pattern: /\b(?:4\d\d|5\d\d)\b[^\n]{0,200}(?:error|status)|API error|Error executing tool|rate limit|internal server error/i },
  // A server's answer that the error line starts with (error-line.ts cuts a client's wording off it).
  { category: 'api_error', pattern: new RegExp(`^${HTTP_STATUS}: `) },
  // An uncaught exception (Python traceback, `TypeError: …`) that no more specific pattern explained.
  { category: 'runtime_error', pattern: /^Traceback \(most recent call last\)|^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?::|$)|^StopIteration\b|^(?:[a-z_]\w*\.)+[A-Z]\w*(?::|$)/m },
];

const SEARCH_TOOLS = /^(?:grep|rg|egrep|fgrep|zgrep|ag|ack|find|diff|cmp|test|\[)$/;

/** A Bash command's first word (after env assignments and `sudo`), for the benign-exit check. */
export function commandName(command: string): string {
  const words = command.trim().split(/\s+/);
  let i = 0;
  while (i < words.length && (/^\w+=/.test(words[i]!) || words[i] === 'sudo' || words[i] === 'env')) i += 1;
  return (words[i] ?? '').replace(/^.*\//, '');
}

/**
 * The simple commands of a shell line, split at unquoted `|`, `||`, `&&`, `;`, `&` and newlines.
 * Quote-aware so `grep "a|b" f` stays one command, and `2>&1` is a redirection, not a separator. Not a
 * shell parser (no subshells, no heredocs): it only has to find the search commands in a line.
 */
export function commandSegments(command: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const ch = command[i]!;
    if (quote === null && ch === '\\') {
      current += ch + (command[i + 1] ?? '');
      i += 1;
    } else if (quote !== null) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if ((ch === '|' || ch === '&' || ch === ';' || ch === '\n') && !isRedirection(command, i)) {
      segments.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  segments.push(current);
  return segments.map((segment) => segment.trim()).filter((segment) => segment !== '');
}

/** `2>&1`, `&>file`, `>|file`: redirections, not command separators. */
function isRedirection(command: string, i: number): boolean {
  const ch = command[i];
  return (ch === '&' && (command[i - 1] === '>' || command[i + 1] === '>')) || (ch === '|' && command[i - 1] === '>');
}

/** `git grep` misses exit 1 like grep does. */
function isSearch(segment: string): boolean {
  const name = commandName(segment);
  if (SEARCH_TOOLS.test(name)) return true;
  return name === 'git' && /^\S+\s+grep\b/.test(segment.trim().replace(/^(?:\w+=\S*\s+|sudo\s+|env\s+)*/, ''));
}

/**
 * Exit 1 with no output from a command line that runs a search (`grep`, `find … | grep`,
 * `pip list | grep x`, `[ -f x ]`): the search found nothing, which is an answer, not a failure.
 */
export function isBenignExit(exitCode: number, output: string, command: string | undefined): boolean {
  return exitCode === 1 && command !== undefined && output.trim() === '' && commandSegments(command).some(isSearch);
}

/**
 * The category of a failed call. `command` (for shell tools) lets a search that found nothing — exit 1
 * with no output — count as `benign` instead of a failure. `extra` (from settings) is tried first, on
 * the whole text as its authors wrote it, so a repository can name its own failures; the defaults read
 * the harness's markers anywhere and everything else on the error line only (a line they cannot name,
 * inside a test runner's report, is a test failure).
 */
export function classifyError(input: ClassifyInput, extra: readonly CategoryPattern[] = [], command?: string): string {
  if (input.exitCode === 0) return 'none';
  if (isBenignExit(input.exitCode, input.message, command)) return 'benign';
  const text = clipForClassifying(input.message);
  for (const { category, pattern } of [...extra, ...HARNESS_CATEGORIES]) {
    if (pattern.test(text)) return category;
  }
  const line = errorLine(text);
  for (const { category, pattern } of DEFAULT_CATEGORIES) {
    if (pattern.test(line)) return category;
  }
  // A line no pattern names, in a test runner's report (`E   recursive dependency involving fixture…`).
  return TEST_SUMMARY.test(text) ? 'test_failure' : 'uncategorized';
}

/**
 * Patterns run on the head and tail of long output only: errors are stated at the start or the end, and
 * a backtracking pattern on a megabyte of output would stall a hook past its timeout.
 */
const CLIP = 4096;
function clipForClassifying(message: string): string {
  if (message.length <= 2 * CLIP) return message;
  return `${message.slice(0, CLIP)}\n${message.slice(-CLIP)}`;
}

/**
 * The category of a failure written without one (the Claude Code hook leaves it to the night), from what
 * its line holds: the redacted message and, for a shell, the command in its input summary. Ingest and the
 * hook's reminder both use this, so they agree.
 */
export function classifyStored(event: { tool_name: string; exit_code: number; error_message?: string; input_summary?: string }, extra: readonly CategoryPattern[] = []): string {
  return classifyError({ toolName: event.tool_name, exitCode: event.exit_code, message: splitExitCode(event.error_message ?? '').rest }, extra, event.input_summary);
}

/** "Exit code 127\n…" (Claude Code's Bash errors): the exit code and the text after that line. */
export function splitExitCode(error: string): { exitCode: number | null; rest: string } {
  const match = /^Exit code (\d+)\s*\n?/.exec(error);
  return match ? { exitCode: Number(match[1]), rest: error.slice(match[0].length) } : { exitCode: null, rest: error };
}

/** A category as settings and events spell it: an identifier, never prose (see `failureCategory`). */
export const CATEGORY_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** How settings' `error_categories` patterns are compiled: case-insensitive, `^`/`$` at line ends. */
export const CATEGORY_PATTERN_FLAGS = 'im';

export interface CategoryPatternSpec {
  category: string;
  /** A JavaScript regular expression source, without slashes or flags. */
  pattern: string;
}

/**
 * Compiles settings' `error_categories`; throws a SyntaxError for a bad pattern (settings check it at load).
 * A pattern that may backtrack without bound (pattern-bounds.ts) is left out here, the one place a spec
 * becomes a RegExp: a repository's settings cannot hold a night, and the night still writes its rules
 * (`categoryPatternNotices` says which pattern was left out and why).
 */
export function compileCategoryPatterns(specs: readonly CategoryPatternSpec[]): CategoryPattern[] {
  return specs.filter(({ pattern }) => backtrackRisk(pattern) === null).map(({ category, pattern }) => ({ category, pattern: new RegExp(pattern, CATEGORY_PATTERN_FLAGS) }));
}

/** One notice per `error_categories` pattern compileCategoryPatterns leaves out, naming it and the reason. */
export function categoryPatternNotices(specs: readonly CategoryPatternSpec[]): string[] {
  return specs.flatMap(({ category, pattern }, i) => {
    const risk = backtrackRisk(pattern);
    return risk === null ? [] : [`error_categories item ${i + 1} (${category}): the pattern ${JSON.stringify(pattern)} may backtrack without bound (${risk}), so it was not used; failures it would match got the built-in categories. Rewrite it with one unbounded or large quantifier at most.`];
  });
}
