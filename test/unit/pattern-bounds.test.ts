import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../pipeline/settings/resolve.js';
import { backtrackRisk } from '../../pipeline/telemetry/pattern-bounds.js';
import { categoryPatternNotices, classifyError, compileCategoryPatterns } from '../../pipeline/telemetry/classify.js';

describe('error_categories patterns that could backtrack without bound are never run', () => {
  it.each([
    '^(a+)+$', '(x+x+)+y', '(a|aa)*', '(?:\\w+\\s?)*$', '(\\d+)\\1', '(?<w>a)\\k<w>', '.*a.*b', '(a{1,50})+', '((ab)*c)+', '([a-z]+,?)+$', 'a+b*', '(?:a|b){2,}',
    '\\w{0,30000}\\d{0,30000}!', 'a{0,101}b*', 'x{200}.*', '((a{0,10}){0,10}){0,10}y+', '(?:ab{0,60}c){0,5}\\d+',
  ])('%s', (pattern) => {
    expect(backtrackRisk(pattern)).not.toBeNull();
  });

  it.each([
    'npm ERR! 503', 'timed? ?out', 'error: .*not found', '\\b(?:ENOTFOUND|ECONNREFUSED)\\b', '[a-z]+_error', '(?:foo|bar)? baz', 'x{2,5}', '(?:ab){3}', '[(+*]{0,3}\\)', 'a\\+b\\*c', '(a|b)?c+', '[\\]+*]+x',
    'a{0,100}b*', '\\w{0,80}\\d{0,80}!', '(?:a{0,10}){0,10}b+',
  ])('accepts %s', (pattern) => {
    expect(backtrackRisk(pattern)).toBeNull();
  });

  it('a settings file with one still loads; the pattern is left out of the classifier, with a notice naming it', () => {
    const fileText = "error_categories:\n  - category: flaky\n    pattern: 'npm ERR! 503'\n  - category: slow\n    pattern: '^(a+)+$'\n";
    const { settings } = resolveSettings({ fileText, filePath: 'config/sleep-cycle.yaml', env: {}, flags: {} });
    expect(compileCategoryPatterns(settings.error_categories).map((p) => p.category)).toEqual(['flaky']);
    expect(categoryPatternNotices(settings.error_categories)).toEqual([expect.stringMatching(/^error_categories item 2 \(slow\): the pattern "\^\(a\+\)\+\$" may backtrack without bound \(a repeated group.*not used/)]);
  });

  it('two large bounded quantifiers are left out like two unbounded ones, and the night classifies 30,000 digits at once', () => {
    const specs = [{ category: 'kxredos', pattern: '\\w{0,30000}\\d{0,30000}!' }];
    expect(categoryPatternNotices(specs)).toEqual([expect.stringContaining('"\\\\w{0,30000}\\\\d{0,30000}!" may backtrack without bound (it has more than one unbounded or large quantifier')]);
    const start = performance.now();
    expect(classifyError({ toolName: 'Bash', exitCode: 1, message: `error: ${'1'.repeat(30_000)} failed` }, compileCategoryPatterns(specs))).not.toBe('kxredos');
    expect(performance.now() - start).toBeLessThan(500);
  });
});
