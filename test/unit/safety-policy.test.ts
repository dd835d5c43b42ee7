import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SleepCycleError } from '../../pipeline/model/errors.js';
import { compilePolicy, parseSafetyPolicy, safetyPolicyOf } from '../../pipeline/safety/policy.js';

const POLICY_PATH = fileURLToPath(new URL('../../config/safety-rules.yaml', import.meta.url));
const FILE = 'config/safety-rules.yaml';

function catchError(text: string): SleepCycleError {
  try {
    parseSafetyPolicy(text, FILE);
  } catch (error) {
    if (error instanceof SleepCycleError) return error;
    throw error;
  }
  throw new Error('expected parseSafetyPolicy to throw');
}

const rule = (body: string): string => `version: 1\nrules:\n${body}`;
const LEAF = '{ fact: text, operator: matchesRegex, value: x }';

describe('parseSafetyPolicy: the shipped policy', () => {
  it('parses config/safety-rules.yaml with every required rule', () => {
    const policy = parseSafetyPolicy(readFileSync(POLICY_PATH, 'utf8'), FILE);
    expect(policy.version).toBe(1);
    expect(policy.file).toBe(FILE);
    expect(policy.rules.map((r) => r.id)).toEqual([
      'no-force-push',
      'no-hook-bypass',
      'no-broad-rm',
      'no-tls-bypass',
      'no-test-disable',
      'no-safety-check-disable',
      'no-pipe-to-shell',
      'no-world-writable',
      'no-secret-commit',
      'no-secret-exfiltration',
      'no-instruction-override',
      'no-sudo',
      'no-destructive-git',
      'no-more-destructive-git',
      'no-review-bypass',
      'no-credential-files',
      'no-system-destruction',
      'no-copy-off-machine',
      'warn-long-rule',
      'warn-multi-line',
      'warn-url',
      'warn-force-flag',
    ]);
    for (const r of policy.rules) {
      expect(r.reason.length, r.id).toBeGreaterThan(20);
      expect(r.severity, r.id).toBe(r.id.startsWith('warn-') ? 'warn' : 'block');
    }
  });
});

// [case, policy text, rule named in the message, fragment of what was expected]
const BROKEN: Array<[string, string, string, string]> = [
  ['bad YAML syntax', rule('  - id: a\n    when: { any: [\n'), '(file)', 'valid YAML at line'],
  ['duplicate YAML key', rule('  - id: a\n    id: b\n'), '(file)', 'valid YAML at line 4'],
  ['empty file', '', '(file)', 'a mapping with "version: 1"'],
  ['wrong version', 'version: 2\nrules: []\n', '(file)', 'version: 1'],
  ['unknown top-level key', `version: 1\nrule:\n  - id: a\nrules:\n  - { id: a, severity: block, reason: r, when: { any: [${LEAF}] } }\n`, '(file)', 'only the top-level keys'],
  ['empty rule list', 'version: 1\nrules: []\n', '(file)', '"rules" to be a non-empty list'],
  ['rule is not a mapping', rule('  - just-a-string\n'), 'rules[0]', 'rules[0] to be a mapping'],
  ['missing id', rule(`  - severity: block\n    reason: r\n    when: { any: [${LEAF}] }\n`), 'rules[0]', 'rules[0].id in kebab-case'],
  ['id not kebab-case', rule(`  - id: No Force\n    severity: block\n    reason: r\n    when: { any: [${LEAF}] }\n`), 'No Force', 'kebab-case'],
  [
    'duplicate id',
    rule(`  - { id: dup, severity: block, reason: r, when: { any: [${LEAF}] } }\n  - { id: dup, severity: warn, reason: r, when: { any: [${LEAF}] } }\n`),
    'dup',
    'a unique id (already used by rules[0])',
  ],
  ['bad severity', rule(`  - { id: sev, severity: error, reason: r, when: { any: [${LEAF}] } }\n`), 'sev', 'severity to be block or warn'],
  ['missing reason', rule(`  - { id: why, severity: block, when: { any: [${LEAF}] } }\n`), 'why', 'a non-empty reason'],
  ['blank reason', rule(`  - { id: why, severity: block, reason: '  ', when: { any: [${LEAF}] } }\n`), 'why', 'a non-empty reason'],
  ['conditions instead of when', rule(`  - { id: key, severity: block, reason: r, conditions: { any: [${LEAF}] } }\n`), 'key', 'conditions are written as "when"'],
  ['missing when', rule('  - { id: nowhen, severity: block, reason: r }\n'), 'nowhen', 'when to be a condition mapping'],
  ['top level is a leaf', rule(`  - { id: top, severity: block, reason: r, when: ${LEAF} }\n`), 'top', 'when to start with all, any or not'],
  ['condition reference', rule('  - { id: ref, severity: block, reason: r, when: { condition: shared } }\n'), 'ref', 'when to start with all, any or not'],
  ['two booleans in one node', rule(`  - { id: both, severity: block, reason: r, when: { all: [${LEAF}], any: [${LEAF}] } }\n`), 'both', 'when to hold exactly one of all, any, not'],
  ['empty any', rule('  - { id: empty, severity: block, reason: r, when: { any: [] } }\n'), 'empty', 'when.any to be a non-empty list'],
  ['not with a list', rule(`  - { id: nots, severity: block, reason: r, when: { not: [${LEAF}] } }\n`), 'nots', 'when.not to be a single condition'],
  ['nested bad boolean', rule(`  - { id: deep, severity: block, reason: r, when: { all: [{ any: { fact: text } }] } }\n`), 'deep', 'when.all[0].any to be a non-empty list'],
  [
    'unknown fact',
    rule('  - { id: fact, severity: block, reason: r, when: { any: [{ fact: txt, operator: matchesRegex, value: x }] } }\n'),
    'fact',
    'when.any[0].fact to be one of text, text_lower, tool_name, error_category, kind, commands, flags, paths, urls, length, line_count',
  ],
  [
    'unknown operator',
    rule('  - { id: op, severity: block, reason: r, when: { any: [{ fact: text, operator: matchesRegx, value: x }] } }\n'),
    'op',
    'when.any[0].operator to be one of matchesRegex, anyMatchesRegex, containsAnyOf',
  ],
  [
    'regex that does not compile',
    rule(`  - { id: re, severity: block, reason: r, when: { any: [{ fact: text, operator: matchesRegex, value: '(unclosed' }] } }\n`),
    're',
    'when.any[0].value to be a valid regular expression (Invalid regular expression',
  ],
  [
    'regex value is not a string',
    rule('  - { id: re2, severity: block, reason: r, when: { any: [{ fact: text, operator: matchesRegex, value: [a] }] } }\n'),
    're2',
    'when.any[0].value to be a regular expression string',
  ],
  [
    'length limit is a string',
    rule(`  - { id: len, severity: warn, reason: r, when: { all: [{ fact: text, operator: greaterThanLength, value: '300' }] } }\n`),
    'len',
    'when.all[0].value to be a number for operator greaterThanLength',
  ],
  [
    'containsAnyOf without a list',
    rule('  - { id: list, severity: block, reason: r, when: { any: [{ fact: text, operator: containsAnyOf, value: sudo }] } }\n'),
    'list',
    'a non-empty list of strings',
  ],
  [
    'operator used on the wrong fact type',
    rule('  - { id: kind, severity: block, reason: r, when: { any: [{ fact: flags, operator: matchesRegex, value: x }] } }\n'),
    'kind',
    'when.any[0].fact to be a string fact for operator matchesRegex',
  ],
  [
    'missing value',
    rule('  - { id: noval, severity: block, reason: r, when: { any: [{ fact: length, operator: greaterThan }] } }\n'),
    'noval',
    'when.any[0].value to be a number',
  ],
  [
    'extra key on a leaf',
    rule(`  - { id: extra, severity: block, reason: r, when: { any: [{ fact: text, operator: matchesRegex, value: x, path: '$.a' }] } }\n`),
    'extra',
    'when.any[0] to have only fact, operator, value',
  ],
];

describe('parseSafetyPolicy: broken policies throw E_SAFETY_RULES naming file and rule', () => {
  it.each(BROKEN)('%s', (_name, text, ruleName, expected) => {
    const error = catchError(text);
    expect(error.code).toBe('E_SAFETY_RULES');
    expect(error.message).toContain(`${FILE}: safety rule "${ruleName}"`);
    expect(error.message).toContain(expected);
    expect(error.details['file']).toBe(FILE);
  });

  it('collects every problem instead of stopping at the first', () => {
    const text = rule(
      '  - { id: one, severity: loud, reason: r, when: { any: [{ fact: nope, operator: matchesRegex, value: x }] } }\n' +
        '  - { id: two, severity: block, reason: r, when: { any: [{ fact: text, operator: bogus, value: x }] } }\n',
    );
    const error = catchError(text);
    expect(error.message).toContain('safety rule "one": expected severity to be block or warn');
    expect(error.message).toContain('2 more problem(s)');
    expect(error.message).toContain('rule "two": expected when.any[0].operator to be one of');
    expect(error.details['problems']).toHaveLength(3);
  });

  it('accepts nested all/any/not with every operator kind', () => {
    const text = rule(
      [
        '  - id: nested',
        '    severity: warn',
        '    reason: exercises the grammar',
        '    when:',
        '      all:',
        '        - not: { fact: kind, operator: equal, value: slow }',
        '        - any:',
        '            - { fact: flags, operator: includesAnyOf, value: [--force] }',
        '            - { fact: paths, operator: anyMatchesRegex, value: "^/" }',
        '            - { fact: text, operator: containsAnyOf, value: [sudo, doas] }',
        '            - { fact: tool_name, operator: in, value: [Bash, git_push] }',
        '            - { fact: line_count, operator: greaterThanInclusive, value: 3 }',
        '',
      ].join('\n'),
    );
    const policy = parseSafetyPolicy(text, FILE);
    expect(policy.rules).toHaveLength(1);
    expect(policy.rules[0]?.conditions).toHaveProperty('all');
  });
});

describe('safetyPolicyOf: the compiled default policy', () => {
  const text = readFileSync(POLICY_PATH, 'utf8');
  const compiled = JSON.stringify(compilePolicy(text, 'bundled default policy'));

  it('gives exactly the rules a YAML parse gives, under the name of the file it was read from', () => {
    expect(safetyPolicyOf(text, FILE, compiled)).toEqual(parseSafetyPolicy(text, FILE));
  });

  it('is ignored for any other text: an edited policy is parsed and checked, so its errors still stop the run', () => {
    const edited = text.replace('severity: warn', 'severity: warm');
    expect(() => safetyPolicyOf(edited, FILE, compiled)).toThrow(SleepCycleError);
    const oneRule = rule('  - id: no-rm\n    severity: block\n    reason: r\n    when: { all: [{ fact: text, operator: matchesRegex, value: "rm -rf" }] }\n');
    expect(safetyPolicyOf(oneRule, FILE, compiled).rules.map((r) => r.id)).toEqual(['no-rm']);
  });

  it('a missing or damaged compiled copy falls back to parsing', () => {
    expect(safetyPolicyOf(text, FILE, undefined)).toEqual(parseSafetyPolicy(text, FILE));
    expect(safetyPolicyOf(text, FILE, '{"sha256": "nope"')).toEqual(parseSafetyPolicy(text, FILE));
  });
});

