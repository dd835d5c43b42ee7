import { Engine } from 'json-rules-engine';
import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../pipeline/safety/facts.js';
import { compileRegex, registerOperators } from '../../pipeline/safety/operators.js';
import type { DraftRule } from '../../pipeline/model/draft.js';

function draft(text: string, overrides: Partial<DraftRule> = {}): DraftRule {
  return {
    id: 'r-000000',
    clusterId: 'c-000000',
    kind: 'failure',
    toolName: 'Bash',
    errorCategory: 'git_error',
    text,
    target: { kind: 'memory' },
    synthesizer: 'offline',
    notes: [],
    ...overrides,
  };
}

describe('extractFacts', () => {
  it('extracts commands, flags, paths and urls from a rule', () => {
    const facts = extractFacts(
      draft('Before git push, run `rm -f .git/index.lock` and see https://git-scm.com/docs/git-push. Then npm ci --prefer-offline.'),
    );
    expect(facts.commands).toEqual(['rm -f .git/index.lock', 'git push', 'rm', 'npm ci']);
    expect(facts.flags).toEqual(['-f', '--prefer-offline']);
    expect(facts.paths).toEqual(['.git/index.lock']);
    expect(facts.urls).toEqual(['https://git-scm.com/docs/git-push']);
    expect(facts.tool_name).toBe('Bash');
    expect(facts.error_category).toBe('git_error');
    expect(facts.kind).toBe('failure');
  });

  it('does not mistake hyphenated words or apostrophes for flags and quotes', () => {
    const facts = extractFacts(draft("Don't re-run a non-zero exit; check others' logs first."));
    expect(facts.flags).toEqual([]);
    expect(facts.commands).toEqual([]);
  });

  it('treats broad targets and dotfiles as paths', () => {
    const facts = extractFacts(draft('Never rm -rf ~ or / or .. ; keep .env and ~/.ssh/config and src/index.ts.'));
    expect(facts.paths).toEqual(['~', '/', '..', '.env', '~/.ssh/config', 'src/index.ts']);
  });

  it('uses an empty error category for slow clusters and counts length and lines', () => {
    const facts = extractFacts(draft('Line one.\nLine two.\n', { kind: 'slow', errorCategory: null }));
    expect(facts.error_category).toBe('');
    expect(facts.kind).toBe('slow');
    expect(facts.line_count).toBe(2);
    expect(facts.length).toBe(20);
    expect(extractFacts(draft('One line.')).line_count).toBe(1);
  });

  it('normalises text the way a reader sees it: invisible characters and typographic dashes', () => {
    const facts = extractFacts(draft('Use git push \u2014for\u200Bce and \u201Cquoted\u201D.'));
    expect(facts.text).toBe('Use git push --force and "quoted".');
    expect(facts.text_lower).toBe('use git push --force and "quoted".');
    expect(facts.flags).toEqual(['--force']);
    expect(facts.commands).toContain('quoted');
  });

  it('is deterministic', () => {
    const d = draft('Run `npm ci` before `npm test`; see http://x.example/a, then sudo rm -rf /tmp/x.');
    expect(extractFacts(d)).toEqual(extractFacts(d));
  });
});

async function fires(fact: unknown, operator: string, value: unknown): Promise<boolean> {
  const engine = new Engine();
  registerOperators(engine);
  engine.addRule({ name: 'r', conditions: { all: [{ fact: 'f', operator, value }] }, event: { type: 'hit' } });
  const { results } = await engine.run({ f: fact });
  return results.length === 1;
}

describe('custom operators', () => {
  it.each([
    ['matchesRegex', 'Git PUSH --Force', '--force\\b', true],
    ['matchesRegex', 'git push', '--force', false],
    ['matchesRegex', ['not', 'a string'], 'a', false],
    ['anyMatchesRegex', ['-f', '--FORCE'], '^--force$', true],
    ['anyMatchesRegex', ['-f'], '^--force$', false],
    ['anyMatchesRegex', 'not-an-array', '.', false],
    ['containsAnyOf', 'Use SUDO here', ['doas', 'sudo'], true],
    ['containsAnyOf', 'plain text', ['sudo'], false],
    ['includesAnyOf', ['git push', 'Curl'], ['curl'], true],
    ['includesAnyOf', ['git push'], ['curl'], false],
    ['greaterThanLength', 'abcd', 3, true],
    ['greaterThanLength', 'abc', 3, false],
    ['greaterThanLength', ['https://x'], 0, true],
    ['greaterThanLength', [], 0, false],
  ])('%s(%j, %j) is %s', async (operator, fact, value, expected) => {
    expect(await fires(fact, operator, value)).toBe(expected);
  });

  it('compiles each pattern once, case-insensitively and without the stateful g flag', () => {
    const regex = compileRegex('force[- ]push');
    expect(compileRegex('force[- ]push')).toBe(regex);
    expect(regex.flags).toBe('i');
    expect(regex.test('Force-Push') && regex.test('force push')).toBe(true);
  });

  it('throws SyntaxError for a pattern that does not compile', () => {
    expect(() => compileRegex('(')).toThrow(SyntaxError);
  });
});
