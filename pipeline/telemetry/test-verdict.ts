/**
 * A test runner's verdict: the summary line it ends with, reduced to the count that says what failed.
 *
 * A runner decides how a failed run reads (`=== 1 failed, 4 passed in 0.12s ===`), and the exceptions
 * inside the failing tests are its details. But the rest of the summary is a tally that changes with
 * every run: which counts appear (passed, skipped, deselected, warnings, errors), and the time it took.
 * Two runs of the same suite failing must give the same line, so the verdict keeps the summary's words
 * and its first failing count, and drops the rest: `1 failed`, `FAILED (failures=3)`, `Tests: 2 failed`.
 */

/**
 * Summary lines of common runners: pytest's closing banner (and runners that copy it, such as sympy's
 * `tests finished: … 1 exceptions`), unittest's `FAILED (failures=1)`, jest/vitest's `Tests:` and
 * `Test Files`, mocha's `N failing`.
 */
export const RUNNER_SUMMARY =
  /^=+ .{0,200}\b\d+ (?:failed|errors?|exceptions?)\b|^FAILED \((?:failures|errors)=\d+|^\s*Tests?:?\s+\d+ failed\b|^\s*Test Files\s+\d+ failed\b|^\s*\d+ failing$/;

/** A tally item: a count and its noun (`3 failed`) or a noun and its count (`failures=3`). */
const ITEM = /\b(\d+) ([A-Za-z]+)\b|\b([A-Za-z]+)=(\d+)\b/g;
const FAILING = /^(?:failed|failing|failures?|errors?|exceptions?)$/i;
/** A rule drawn to the terminal's width around the summary (three or more of these): decoration, not words. */
const RULE_CHARS = '=_*#~-';

/**
 * The verdict of a summary line (RUNNER_SUMMARY): the words before its tally, then the tally's first
 * non-zero failing count (`tests finished: 2 passed, 1 exceptions, in 0.57 seconds` → `tests finished:
 * 1 exceptions`). A line without one is returned without its rules.
 */
export function testVerdict(line: string): string {
  const text = withoutRules(line.trim());
  let tally = -1;
  for (const m of text.matchAll(ITEM)) {
    if (tally < 0) tally = m.index;
    const [noun, count] = m[1] === undefined ? [m[3]!, m[4]!] : [m[2]!, m[1]];
    if (FAILING.test(noun) && Number(count) > 0) return closeBrackets(text.slice(0, tally) + m[0]);
  }
  return text;
}

/** The line without a rule at either end; two linear scans (a regex anchored at the end would rescan). */
function withoutRules(text: string): string {
  let start = 0;
  while (start < text.length && RULE_CHARS.includes(text[start]!)) start++;
  if (start < 3) start = 0;
  let end = text.length;
  while (end > start && RULE_CHARS.includes(text[end - 1]!)) end--;
  if (text.length - end < 3) end = text.length;
  return text.slice(start, end).trim();
}

/** `FAILED (failures=3` → `FAILED (failures=3)`: a bracket the cut left open is closed. */
function closeBrackets(text: string): string {
  let closing = '';
  for (const c of text) {
    if (c === '(') closing = `)${closing}`;
    else if (c === '[') closing = `]${closing}`;
    else if ((c === ')' || c === ']') && closing[0] === c) closing = closing.slice(1);
  }
  return text + closing;
}
