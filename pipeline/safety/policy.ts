import { createHash } from 'node:crypto';
import type { TopLevelCondition } from 'json-rules-engine';
import { errors, truncate } from '../model/errors.js';
import { yamlLib } from '../io/yaml-lib.js';
import type { SleepCycleError } from '../model/errors.js';
import { FACT_TYPES } from './facts.js';
import type { FactType } from './facts.js';
import { KNOWN_OPERATORS, OPERATOR_SPECS, compileRegex } from './operators.js';
import type { OperandFact, OperandValue } from './operators.js';
import { parseCommandPolicy, type CommandPolicy } from './command-policy.js';

export type Severity = 'block' | 'warn';

export interface PolicyRule {
  id: string;
  severity: Severity;
  reason: string;
  /** json-rules-engine conditions, written as `when:` in the YAML. */
  conditions: TopLevelCondition;
}

export interface SafetyPolicy {
  version: 1;
  file: string;
  rules: PolicyRule[];
  /** The command policy model-written rules are checked against; absent in older policy files. */
  commands?: CommandPolicy;
}

interface Problem {
  rule: string;
  expected: string;
  found: unknown;
}

type Mapping = Record<string, unknown>;

const FILE_LEVEL = '(file)';
const RULE_KEYS = ['id', 'severity', 'reason', 'when'];
const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
const BOOLEAN_KEYS = ['all', 'any', 'not'];
const LEAF_KEYS = ['fact', 'operator', 'value'];
const FACT_NAMES = Object.keys(FACT_TYPES);

/**
 * Parses and strictly validates a safety policy. A policy that cannot be trusted must stop the run: a
 * typo that silently disables a rule would let unsafe drafts into memory. All problems are collected;
 * the thrown E_SAFETY_RULES names the first and lists the rest (also as data in `details.problems`).
 */
export function parseSafetyPolicy(text: string, file: string): SafetyPolicy {
  const problems: Problem[] = [];
  const data = parseYaml(text, problems);
  const rules = problems.length === 0 ? validatePolicy(data, problems) : [];
  const raw = isMapping(data) ? data['commands'] : undefined;
  const commands = raw === undefined ? undefined : parseCommandPolicy(raw, problems);
  const first = problems[0];
  if (first) throw toError(file, first, problems);
  return { version: 1, file, rules, ...(commands ? { commands } : {}) };
}

/** A policy compiled at build time (the shipped default), valid only for the exact text it came from. */
export interface CompiledPolicy {
  sha256: string;
  rules: PolicyRule[];
  commands?: CommandPolicy;
}

export function compilePolicy(text: string, file: string): CompiledPolicy {
  const { rules, commands } = parseSafetyPolicy(text, file);
  return { sha256: policyDigest(text), rules, ...(commands ? { commands } : {}) };
}

/**
 * The policy of `text` from a compiled copy when that copy was made from this very text (the default
 * policy, as `init` copies it): no YAML parse, no yaml import. Otherwise, or when the copy is missing or
 * unreadable, the text is parsed and checked as usual.
 */
export function safetyPolicyOf(text: string, file: string, compiledJson: string | undefined): SafetyPolicy {
  if (compiledJson !== undefined) {
    try {
      const compiled = JSON.parse(compiledJson) as Partial<CompiledPolicy>;
      if (compiled.sha256 === policyDigest(text) && Array.isArray(compiled.rules)) {
        return { version: 1, file, rules: compiled.rules, ...(compiled.commands ? { commands: withPrototypeFreePrograms(compiled.commands) } : {}) };
      }
    } catch {
      // A damaged compiled copy is only a missed shortcut.
    }
  }
  return parseSafetyPolicy(text, file);
}

/** Program names are looked up by key: `constructor` must not find Object's. */
function withPrototypeFreePrograms(commands: CommandPolicy): CommandPolicy {
  return { ...commands, programs: Object.assign(Object.create(null) as CommandPolicy['programs'], commands.programs) };
}

function policyDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parseYaml(text: string, problems: Problem[]): unknown {
  const { LineCounter, parseDocument } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  for (const error of doc.errors) {
    const at = lines.linePos(error.pos[0]);
    problems.push({ rule: FILE_LEVEL, expected: `valid YAML at line ${at.line}, column ${at.col}`, found: error.message });
  }
  if (problems.length > 0) return undefined;
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    problems.push({ rule: FILE_LEVEL, expected: 'valid YAML', found: cause instanceof Error ? cause.message : cause });
    return undefined;
  }
}

function validatePolicy(data: unknown, problems: Problem[]): PolicyRule[] {
  if (!isMapping(data)) {
    problems.push({ rule: FILE_LEVEL, expected: 'a mapping with "version: 1" and "rules"', found: data });
    return [];
  }
  for (const key of Object.keys(data).filter((k) => k !== 'version' && k !== 'rules' && k !== 'commands')) {
    problems.push({ rule: FILE_LEVEL, expected: 'only the top-level keys version, rules, commands', found: key });
  }
  if (data['version'] !== 1) problems.push({ rule: FILE_LEVEL, expected: 'version: 1', found: data['version'] });
  const entries = data['rules'];
  if (!Array.isArray(entries) || entries.length === 0) {
    problems.push({ rule: FILE_LEVEL, expected: '"rules" to be a non-empty list', found: entries });
    return [];
  }
  const seen = new Map<string, number>();
  return entries.flatMap((entry: unknown, index) => validateRule(entry, index, seen, problems) ?? []);
}

function validateRule(entry: unknown, index: number, seen: Map<string, number>, problems: Problem[]): PolicyRule | undefined {
  const at = `rules[${index}]`;
  if (!isMapping(entry)) {
    problems.push({ rule: at, expected: `${at} to be a mapping with id, severity, reason, when`, found: entry });
    return undefined;
  }
  const { id, severity, reason, when } = entry;
  const label = typeof id === 'string' && id !== '' ? id : at;
  const before = problems.length;
  const report = (expected: string, found: unknown): void => void problems.push({ rule: label, expected, found });
  for (const key of Object.keys(entry).filter((k) => !RULE_KEYS.includes(k))) {
    report(`only the keys ${RULE_KEYS.join(', ')}${key === 'conditions' ? ' (conditions are written as "when")' : ''}`, key);
  }
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) report(`${at}.id in kebab-case, e.g. no-force-push`, id);
  else if (seen.has(id)) report(`a unique id (already used by rules[${seen.get(id)}])`, id);
  else seen.set(id, index);
  if (severity !== 'block' && severity !== 'warn') report('severity to be block or warn', severity);
  if (typeof reason !== 'string' || reason.trim() === '') report('a non-empty reason telling reviewers why', reason);
  validateCondition(when, 'when', true, report);
  if (problems.length > before) return undefined;
  return { id: id as string, severity: severity as Severity, reason: (reason as string).trim(), conditions: when as TopLevelCondition };
}

type Report = (expected: string, found: unknown) => void;

function validateCondition(node: unknown, path: string, topLevel: boolean, report: Report): void {
  if (!isMapping(node)) {
    report(`${path} to be a condition mapping (all, any, not, or fact/operator/value)`, node);
    return;
  }
  const keys = Object.keys(node);
  const booleans = keys.filter((k) => BOOLEAN_KEYS.includes(k));
  if (booleans.length === 0) {
    if (topLevel) report(`${path} to start with all, any or not`, keys.join(', ') || node);
    else validateLeaf(node, path, report);
    return;
  }
  if (keys.length !== 1) {
    report(`${path} to hold exactly one of all, any, not`, keys.join(', '));
    return;
  }
  const [key] = booleans as [string];
  const child = node[key];
  if (key === 'not') {
    if (Array.isArray(child)) report(`${path}.not to be a single condition, not a list`, child);
    else validateCondition(child, `${path}.not`, false, report);
    return;
  }
  if (!Array.isArray(child) || child.length === 0) {
    report(`${path}.${key} to be a non-empty list of conditions`, child);
    return;
  }
  child.forEach((item: unknown, i) => validateCondition(item, `${path}.${key}[${i}]`, false, report));
}

function validateLeaf(node: Mapping, path: string, report: Report): void {
  for (const key of Object.keys(node).filter((k) => !LEAF_KEYS.includes(k))) {
    report(`${path} to have only fact, operator, value (or one of all, any, not)`, key);
  }
  const { fact, operator, value } = node;
  const factType = typeof fact === 'string' ? (FACT_TYPES as Record<string, FactType>)[fact] : undefined;
  if (!factType) report(`${path}.fact to be one of ${FACT_NAMES.join(', ')}`, fact);
  const spec = typeof operator === 'string' ? OPERATOR_SPECS[operator] : undefined;
  if (!spec) {
    report(`${path}.operator to be one of ${KNOWN_OPERATORS.join(', ')}`, operator);
    return;
  }
  if (factType && !factFits(spec.fact, factType)) {
    report(`${path}.fact to be a ${spec.fact} fact for operator ${String(operator)}`, `${String(fact)} (${factType})`);
  }
  const problem = valueProblem(spec.value, value);
  if (problem) report(`${path}.value to be ${problem} for operator ${String(operator)}`, value);
}

function factFits(wanted: OperandFact, actual: FactType): boolean {
  if (wanted === 'string-or-array') return actual === 'string' || actual === 'string[]';
  if (wanted === 'scalar') return actual === 'string' || actual === 'number';
  return wanted === actual;
}

const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Returns what the value should have been, or undefined when it is fine. */
function valueProblem(wanted: OperandValue, value: unknown): string | undefined {
  switch (wanted) {
    case 'regex':
      return typeof value === 'string' && value !== '' ? regexProblem(value) : 'a regular expression string';
    case 'string[]':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '')
        ? undefined
        : 'a non-empty list of strings';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'a number';
    case 'scalar':
      return isScalar(value) ? undefined : 'a string, number or boolean';
    case 'scalar[]':
      return Array.isArray(value) && value.every(isScalar) ? undefined : 'a list of strings or numbers';
  }
}

function regexProblem(source: string): string | undefined {
  try {
    compileRegex(source);
    return undefined;
  } catch (cause) {
    return `a valid regular expression (${cause instanceof Error ? cause.message : String(cause)})`;
  }
}

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toError(file: string, first: Problem, problems: Problem[]): SleepCycleError {
  const error = errors.safetyRules(file, first.rule, first.expected, first.found);
  const rest = problems.slice(1);
  if (rest.length > 0) {
    const shown = rest.slice(0, 5).map((p) => `rule "${p.rule}": expected ${p.expected}, found ${truncate(p.found)}`);
    error.message += ` ${rest.length} more problem(s): ${shown.join('; ')}${rest.length > 5 ? '; …' : ''}`;
  }
  error.details['problems'] = problems.map((p) => ({ rule: p.rule, expected: p.expected, found: truncate(p.found) }));
  return error;
}
