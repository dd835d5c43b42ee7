/**
 * errorLine as it was before it was made faster (commit 3164926), kept as the oracle of
 * test/unit/error-line-equivalence.test.ts: the faster one must pick the same line for every message.
 */
import { HTTP_STATUS } from '../../pipeline/telemetry/error-line.js';
import { RUNNER_SUMMARY, testVerdict } from '../../pipeline/telemetry/test-verdict.js';

/**
 * The line of a failed call's output that states its error: what the category is read from and what the
 * template miner masks. A whole output says too much (a passing test named "port offset too large", a
 * log line that mentions "not found"); one line says what broke.
 *
 * Candidates, best first (within a rank, the first line, except exceptions: the last one raised wins):
 * 1. a test runner's verdict (test-verdict.ts): `=== 2 failed, 3 passed in 1.2s ===` gives `2 failed`.
 *    The runner decides how a failed run reads; the exceptions inside its failing tests are details, and
 *    a run's tally of passed and skipped tests changes every time.
 * 2. pytest's short summary with a reason: `FAILED tests/x.py::test_y - AssertionError: …`
 * 3. the exception that ended the last Python traceback, whatever its name (`StopIteration`,
 *    `KeyboardInterrupt`, `django.core.exceptions.ImproperlyConfigured: …`)
 * 4. a shell that could not run a program: `bash: line 1: foo: command not found`
 * 5. a linter's diagnostic, the reason a tool refused an edit: `- E999 IndentationError: …` (the list
 *    marker dropped), `src/a.py:3:1: F821 undefined name 'x'`
 * 6. an exception-shaped line anywhere: `TypeError: …`, `E   AssertionError: …`, `java.io.IOException: …`;
 *    else pytest's first report line (`E       fixture 'db' not found`)
 * 7. a program's or compiler's own error: `fatal: …`, `Error: …`, `npm ERR! …`, `cat: x: No such file…`,
 *    `src/a.ts:3:7 - error TS2322: …`
 * 8. a test report line: `FAILED tests/x.py::test_y`, `--- FAIL: TestX`
 * 9. a line with an error word (failed, cannot, denied, not found, timed out, …)
 * 10. the first line.
 * Bounded: only the first and last 200 lines are read, each up to 1,000 characters.
 */
export function referenceErrorLine(message: string): string {
  // Claude Code wraps a tool's refusal in <tool_use_error> tags: the wrapper is not part of the error.
  const lines = candidateLines(message.includes('tool_use_error>') ? message.replace(TOOL_USE_ERROR, '') : message);
  if (lines.length === 0) return '';
  const summary = lines.find((line) => RUNNER_SUMMARY.test(line));
  if (summary !== undefined) return testVerdict(summary);
  const chosen =
    lines.find((line) => PYTEST_REASON.test(line)) ??
    tracebackException(lines) ??
    lines.find((line) => MISSING_PROGRAM.test(line)) ??
    lintDiagnostic(lines) ??
    findLast(lines, (line) => EXCEPTION.test(line)) ??
    lines.find((line) => PYTEST_E.test(line)) ??
    lines.find((line) => PROGRAM_ERROR.test(line)) ??
    lines.find((line) => TEST_REPORT_LINE.test(line)) ??
    lines.find((line) => ERROR_WORDS.test(line)) ??
    lines[0]!;
  // pytest marks the lines of a failure's report with `E   `: the marker is not part of the error.
  return serverReason(chosen.trim().replace(/^E {3,}/, ''));
}

/** An API client's line is cut to the HTTP status phrase and the server's reason (as error-line.ts does). */
const HTTP_REASON = new RegExp(`: ${HTTP_STATUS}: \\S`);

function serverReason(line: string): string {
  const match = HTTP_REASON.exec(line);
  return match === null ? line : line.slice(match.index + 2);
}

const MAX_LINES = 200;
const MAX_LINE_CHARS = 1000;

/** A linter's code and message, as a list item (SWE-agent's edit linter) or after `path:line:col:` (flake8, ruff). */
const LINT = /^(?:- |\S{1,200}?:\d+:\d+: )[A-Z]{1,3}\d{2,4} \S/;

function lintDiagnostic(lines: readonly string[]): string | undefined {
  const line = lines.find((l) => LINT.test(l.trim()));
  return line?.trim().replace(/^- /, '');
}

/** pytest's `-r` summary line with its reason after ` - `. */
const PYTEST_REASON = /^(?:FAILED|ERROR) \S+ - \S/;
const MISSING_PROGRAM = /^(?:\S*\/)?[\w.+-]+: (?:line \d+: )?[^\s:]+: command not found|^(?:\S*\/)?zsh: command not found: |^(?:\S*\/)?(?:ba|da|k)?sh: \d+: [^\s:]+: not found$/;
/**
 * `Name: message` or a bare `Name` at the start of a line (after pytest's `E` marker): a name ending like an
 * exception's, or a dotted path to a capitalised name, or one of Python's exceptions named otherwise.
 */
const EXCEPTION = /^(?:E\s+)?(?:(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)|(?:[a-z_]\w*\.)+[A-Z]\w*|StopIteration|StopAsyncIteration|KeyboardInterrupt|SystemExit|GeneratorExit)(?::(?:\s.*)?)?$/;
const PROGRAM_ERROR = new RegExp(
  [
    // `ERROR tests/x.py::t` is pytest's summary (a test report line, below), not a program's error.
    String.raw`^(?:fatal|error|FATAL|ERROR|panic|Exception)[:!]|^Error\b|^npm (?:ERR!|error)|^E\d{4}\b|^error\[E\d+\]`,
    // gcc/mypy `a.c:1:2: error: …`, tsc `a.ts:1:2 - error TS…`, `a.ts(1,2): error TS…`
    String.raw`^\S{1,200}?(?::\d+(?::\d+)?:?|\(\d+,\d+\):) (?:- )?(?:error|fatal)\b`,
    // `cat: x: No such file or directory`, `python: can't open file …`, `git: 'x' is not a git command`
    String.raw`^[\w.+-]{1,60}: (?:.*\b)?(?:cannot|can't|could not|couldn't|unable to|No such file|not found|[Pp]ermission denied|invalid|unrecognized|unknown (?:option|command)|is not a|does not exist|missing|refused|timed out|failed)\b`,
  ].join('|'),
);
/** pytest's report of a failure, `E       fixture 'x' not found` (not its `E    +  where …` continuations). */
const PYTEST_E = /^E {3,}(?![+-] |\s)\S/;
/** A report of one failed test (a summary line, RUNNER_SUMMARY, ranks first). */
const TEST_REPORT_LINE = /^(?:FAILED|ERROR) \S+::|^--- FAIL: /;
const ERROR_WORDS = /\b(?:[A-Za-z]*(?:Error|Exception)|error|errors|fail(?:s|ed|ure)?|cannot|can't|could not|unable to|denied|refused|not found|does not exist|no such|invalid|timed? ?out|exceed(?:s|ed)?|too (?:large|long|many)|missing|unknown|conflict|rejected|abort(?:ed)?|panic|killed|segmentation fault|core dumped)\b/i;

/** The first and last lines, trimmed and cut, without blank lines or Claude Code's `Exit code N` line. */
const TOOL_USE_ERROR = /<\/?tool_use_error>/g;

function candidateLines(message: string): string[] {
  const head = message.slice(0, MAX_LINES * MAX_LINE_CHARS);
  let lines = head.split('\n');
  if (lines.length > 2 * MAX_LINES || message.length > head.length) {
    const tail = message.slice(-MAX_LINES * MAX_LINE_CHARS).split('\n').slice(1);
    lines = [...lines.slice(0, MAX_LINES), ...tail.slice(-MAX_LINES)];
  }
  return lines.map((line) => line.trimEnd().slice(0, MAX_LINE_CHARS)).filter((line) => line.trim() !== '' && !/^Exit code -?\d+$/.test(line));
}

/** What a traceback's last line starts with: a (dotted) name, then a colon or nothing. */
const RAISED = /^[A-Za-z_][\w.]*(?::|$)/;

/**
 * The line that ends the last Python traceback: after `Traceback (most recent call last):`, the first
 * line that is not indented (frames and source lines are) and starts with a name (an elision marker
 * such as `[… 9000 characters elided …]` does not). The name may be anything.
 */
function tracebackException(lines: readonly string[]): string | undefined {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^Traceback \(most recent call last\):$/.test(lines[i]!.trim())) {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const indent = /^\s*/.exec(lines[start]!)![0].length;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*/.exec(line)![0].length <= indent && RAISED.test(line.trim())) return line;
  }
  return undefined;
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i];
  return undefined;
}
