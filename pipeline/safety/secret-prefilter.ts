/**
 * The secret prefilter: a detector is run on a text only when the text holds what the detector needs
 * to find anything in it. Most log text holds none of the words and prefixes credentials come with,
 * and ingest redacts every distinct string, so skipping a detector that cannot match is most of what a
 * redaction costs on an ordinary night.
 *
 * The contract every detector signs (redact.ts's shapes, the rule set's rules in rule-set-needs.ts):
 * - `needs` is a list of clauses, ALL of which a text must satisfy before the detector can change it;
 *   a clause is satisfied when the text contains ANY of its literals (compared as the detector's own
 *   pattern compares them: `ignoreCase` only when the pattern has the `i` flag without `u`, whose
 *   case folding maps no non-ASCII character to an ASCII letter).
 * - A clause may only name characters every match (or every replacement a `render` accepts) contains,
 *   read off the pattern: a vendor prefix, a key word, the `=` or `:` of an assignment.
 * - A detector whose pattern has no such literal, or whose author does not want to prove one, declares
 *   `BYPASS` and runs on every text, as before the prefilter.
 * So skipping never changes a result: a text is only spared a detector that could not have found
 * anything in it. test/unit/secret-prefilter.property.test.ts holds every declaration to its detector
 * on strings generated from the detector's own pattern, with noise around them.
 */

/** Some literal of `anyOf` must occur in the text. */
export interface Clause {
  readonly anyOf: readonly string[];
  /** Compare ASCII letters without case (the detector's pattern has the `i` flag, without `u`). */
  readonly ignoreCase?: boolean;
}

/** What a text needs before a detector can find anything in it; BYPASS: nothing is proven, always run. */
export type Needs = readonly Clause[] | typeof BYPASS;

export const BYPASS = 'bypass' as const;

/** A clause as its literals, compared exactly. */
export const any = (...anyOf: string[]): Clause => ({ anyOf });
/** A clause as its literals, ASCII letters compared without case. */
export const anyIgnoringCase = (...anyOf: string[]): Clause => ({ anyOf, ignoreCase: true });

/** The assignment of `key=value` and `key: value` shapes: no `=` or `:`, no pair. */
export const ASSIGNS = any('=', ':');

/** A compiled `Needs`: whether a text may hold something for the detector. */
export type Admits = (text: string) => boolean;

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * Calls a test answers by looking for its literals with `includes` before it compiles them into a regex.
 * A process that redacts a handful of texts (the hook, on every tool call of an agent) never compiles
 * one: V8 compiles a regex on its first use, and the ~25 clauses a text meets cost the hook more than all
 * its lookups (~1.7 M instructions for two of the larger patterns in a fresh process). A night, which
 * tests thousands of texts, moves to the regex after these calls (the engine finds literals faster than
 * a loop of `includes` once it is compiled).
 */
export const LITERAL_CALLS = 32;

/**
 * A clause's test: `includes` of each literal for the first LITERAL_CALLS calls, then the regex of them.
 * Ignoring case, the text is lower-cased first: `toLowerCase` also maps a few non-ASCII characters to
 * ASCII letters (the Kelvin sign to `k`), which the `i` flag without `u` does not, so that test admits
 * a few more texts than the regex, never fewer: a skip is still only of a detector that could not match.
 */
function clauseTest(clause: Clause): (text: string, lower: () => string) => boolean {
  const literals = clause.ignoreCase ? clause.anyOf.map((literal) => literal.toLowerCase()) : clause.anyOf;
  let calls = 0;
  let regex: RegExp | undefined;
  return (text, lower) => {
    if (regex !== undefined) return regex.test(text);
    if ((calls += 1) > LITERAL_CALLS) {
      regex = new RegExp(clause.anyOf.map(escape).join('|'), clause.ignoreCase ? 'i' : '');
      return regex.test(text);
    }
    const haystack = clause.ignoreCase ? lower() : text;
    for (const literal of literals) if (haystack.includes(literal)) return true;
    return false;
  };
}

/** The text lower-cased at most once, whichever clauses ask for it. */
function lowerOnce(text: string): () => string {
  let lower: string | undefined;
  return () => (lower ??= text.toLowerCase());
}

/** Compiles `needs` into one test per clause (see clauseTest), all of which must pass. */
export function compileNeeds(needs: Needs): Admits {
  if (needs === BYPASS) return () => true;
  if (needs.some((clause) => clause.anyOf.length === 0 || clause.anyOf.includes(''))) {
    throw new Error('internal: a clause of a detector\'s needs must list non-empty literals');
  }
  const tests = needs.map(clauseTest);
  if (tests.length === 1) {
    const only = tests[0]!;
    return (text) => only(text, lowerOnce(text));
  }
  return (text) => {
    const lower = lowerOnce(text);
    return tests.every((test) => test(text, lower));
  };
}

/**
 * One test for a group of detectors: whether the text may hold something for ANY of them (the union
 * of their first clauses, which each of them needs). A group with a BYPASS member always passes.
 */
export function compileAnyOf(group: readonly Needs[]): Admits {
  if (group.some((needs) => needs === BYPASS || needs.length === 0)) return () => true;
  const firsts = (group as readonly (readonly Clause[])[]).map((needs) => needs[0]!);
  const exact = firsts.filter((clause) => !clause.ignoreCase).flatMap((clause) => clause.anyOf);
  const folded = firsts.filter((clause) => clause.ignoreCase).flatMap((clause) => clause.anyOf);
  const tests = [...(exact.length > 0 ? [clauseTest({ anyOf: exact })] : []), ...(folded.length > 0 ? [clauseTest({ anyOf: folded, ignoreCase: true })] : [])];
  return (text) => {
    const lower = lowerOnce(text);
    return tests.some((test) => test(text, lower));
  };
}
