/**
 * Error text → category: a deterministic, ordered list of patterns (first match wins), extensible
 * from settings. `benign` marks non-zero exits that are not failures (a grep that found nothing); the
 * filter never clusters them.
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

export const DEFAULT_CATEGORIES: readonly CategoryPattern[] = [
  { category: 'not_read_first', pattern: /has not been read yet|read it first before writing/i },
  { category: 'edit_mismatch', pattern: /string to replace not found|old_string.*not (?:found|unique)|found \d+ matches of the string to replace/i },
  { category: 'hook_denied', pattern: /hook (?:error|denied|blocked)|blocked by (?:a |the )?hook|PreToolUse:\w+ hook/i },
  { category: 'permission_denied', pattern: /permission denied|EACCES|EPERM|operation not permitted|not allowed to|requires approval/i },
  { category: 'too_large', pattern: /exceeds maximum allowed tokens|too large|too long|maximum (?:context|size)|file content \(\d+ tokens\)/i },
  { category: 'timeout', pattern: /timed? ?out|ETIMEDOUT|deadline exceeded|took too long/i },
  { category: 'network_error', pattern: /ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|getaddrinfo|network (?:error|is unreachable)|fetch failed|could not resolve host/i },
  { category: 'dependency_missing', pattern: /command not found|: not found$|not found(?:\n|$)|No module named|Cannot find module|ModuleNotFoundError|ERR_MODULE_NOT_FOUND/im },
  { category: 'syntax_error', pattern: /SyntaxError|syntax error|unexpected token|IndentationError|parse error/i },
  { category: 'test_failure', pattern: /\bFAIL(?:ED)?\b|AssertionError|assert(?:ion)? failed|\d+ failed|tests? failed/ },
  { category: 'git_error', pattern: /^fatal:|^error: (?:failed to push|pathspec|src refspec|Your local changes)|index\.lock|non-fast-forward|\[rejected\]|merge conflict|not a git repository/im },
  { category: 'validation_error', pattern: /InputValidationError|validation (?:error|failed)|invalid (?:input|parameter|argument|value)|is required|must be/i },
  { category: 'not_found', pattern: /does not exist|no such file|ENOENT|not found|404\b|EISDIR/i },
  { category: 'api_error', pattern: /\b(?:4\d\d|5\d\d)\b.*(?:error|status)|API error|Error executing tool|rate limit|internal server error/i },
];

const SEARCH_TOOLS = /^(?:grep|rg|egrep|fgrep|ag|find|diff|cmp|test|\[)$/;

/** A Bash command's first word (after env assignments and `sudo`), for the benign-exit check. */
export function commandName(command: string): string {
  const words = command.trim().split(/\s+/);
  let i = 0;
  while (i < words.length && (/^\w+=/.test(words[i]!) || words[i] === 'sudo' || words[i] === 'env')) i += 1;
  return (words[i] ?? '').replace(/^.*\//, '');
}

/**
 * The category of a failed call. `command` (for shell tools) lets a search that found nothing — exit 1
 * with no output — count as `benign` instead of a failure.
 */
export function classifyError(input: ClassifyInput, extra: readonly CategoryPattern[] = [], command?: string): string {
  if (input.exitCode === 0) return 'none';
  if (input.exitCode === 1 && command && SEARCH_TOOLS.test(commandName(command)) && input.message.trim() === '') return 'benign';
  for (const { category, pattern } of [...extra, ...DEFAULT_CATEGORIES]) {
    if (pattern.test(input.message)) return category;
  }
  return 'uncategorized';
}

/** "Exit code 127\n…" (Claude Code's Bash errors): the exit code and the text after that line. */
export function splitExitCode(error: string): { exitCode: number | null; rest: string } {
  const match = /^Exit code (\d+)\s*\n?/.exec(error);
  return match ? { exitCode: Number(match[1]), rest: error.slice(match[0].length) } : { exitCode: null, rest: error };
}
