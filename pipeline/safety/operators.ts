import type { Engine } from 'json-rules-engine';

/** What kind of fact an operator reads; the policy parser matches it against `FACT_TYPES`. */
export type OperandFact = 'string' | 'string[]' | 'number' | 'string-or-array' | 'scalar';
/** What a condition's `value` must be for the operator. */
export type OperandValue = 'regex' | 'string[]' | 'number' | 'scalar' | 'scalar[]';

export interface OperatorSpec {
  fact: OperandFact;
  value: OperandValue;
}

/**
 * Every operator a policy may use. json-rules-engine's built-ins are listed too so the parser can reject
 * a misspelt name at load time instead of the engine failing mid-run on the first draft.
 */
export const OPERATOR_SPECS: Readonly<Record<string, OperatorSpec>> = {
  matchesRegex: { fact: 'string', value: 'regex' },
  anyMatchesRegex: { fact: 'string[]', value: 'regex' },
  containsAnyOf: { fact: 'string', value: 'string[]' },
  includesAnyOf: { fact: 'string[]', value: 'string[]' },
  greaterThanLength: { fact: 'string-or-array', value: 'number' },
  equal: { fact: 'scalar', value: 'scalar' },
  notEqual: { fact: 'scalar', value: 'scalar' },
  in: { fact: 'scalar', value: 'scalar[]' },
  notIn: { fact: 'scalar', value: 'scalar[]' },
  contains: { fact: 'string[]', value: 'scalar' },
  doesNotContain: { fact: 'string[]', value: 'scalar' },
  lessThan: { fact: 'number', value: 'number' },
  lessThanInclusive: { fact: 'number', value: 'number' },
  greaterThan: { fact: 'number', value: 'number' },
  greaterThanInclusive: { fact: 'number', value: 'number' },
};

export const KNOWN_OPERATORS: readonly string[] = Object.keys(OPERATOR_SPECS);

const regexCache = new Map<string, RegExp>();

/**
 * Compiles a policy pattern once; drafts are many, patterns few. Case-insensitive because rule texts
 * start sentences with capitals ("Force-push…"). No `g` flag: a global RegExp keeps `lastIndex` between
 * `test` calls and would silently skip matches. Throws SyntaxError for a pattern that does not compile.
 */
export function compileRegex(source: string): RegExp {
  let regex = regexCache.get(source);
  if (!regex) {
    regex = new RegExp(source, 'i');
    regexCache.set(source, regex);
  }
  return regex;
}

function matchesRegex(fact: unknown, pattern: unknown): boolean {
  return typeof fact === 'string' && typeof pattern === 'string' && compileRegex(pattern).test(fact);
}

function anyMatchesRegex(fact: unknown, pattern: unknown): boolean {
  return Array.isArray(fact) && fact.some((item) => matchesRegex(item, pattern));
}

function lowerStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase()) : [];
}

function containsAnyOf(fact: unknown, needles: unknown): boolean {
  if (typeof fact !== 'string') return false;
  const haystack = fact.toLowerCase();
  return lowerStrings(needles).some((needle) => haystack.includes(needle));
}

function includesAnyOf(fact: unknown, wanted: unknown): boolean {
  const items = new Set(lowerStrings(fact));
  return lowerStrings(wanted).some((w) => items.has(w));
}

function greaterThanLength(fact: unknown, limit: unknown): boolean {
  const sized = typeof fact === 'string' || Array.isArray(fact);
  return sized && typeof limit === 'number' && fact.length > limit;
}

/** Registers the custom operators; the built-ins in `OPERATOR_SPECS` come with every Engine. */
export function registerOperators(engine: Engine): void {
  engine.addOperator('matchesRegex', matchesRegex);
  engine.addOperator('anyMatchesRegex', anyMatchesRegex);
  engine.addOperator('containsAnyOf', containsAnyOf);
  engine.addOperator('includesAnyOf', includesAnyOf);
  engine.addOperator('greaterThanLength', greaterThanLength);
}
