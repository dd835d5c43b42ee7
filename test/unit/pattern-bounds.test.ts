import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../pipeline/settings/resolve.js';
import { backtrackRisk } from '../../pipeline/telemetry/pattern-bounds.js';

describe('error_categories patterns that could backtrack without bound are refused', () => {
  it.each([
    '^(a+)+$', '(x+x+)+y', '(a|aa)*', '(?:\\w+\\s?)*$', '(\\d+)\\1', '(?<w>a)\\k<w>', '.*a.*b', '(a{1,50})+', '((ab)*c)+', '([a-z]+,?)+$', 'a+b*', '(?:a|b){2,}',
  ])('%s', (pattern) => {
    expect(backtrackRisk(pattern)).not.toBeNull();
  });

  it.each([
    'npm ERR! 503', 'timed? ?out', 'error: .*not found', '\\b(?:ENOTFOUND|ECONNREFUSED)\\b', '[a-z]+_error', '(?:foo|bar)? baz', 'x{2,5}', '(?:ab){3}', '[(+*]{0,3}\\)', 'a\\+b\\*c', '(a|b)?c+', '[\\]+*]+x',
  ])('accepts %s', (pattern) => {
    expect(backtrackRisk(pattern)).toBeNull();
  });

  it('a settings file with one is refused with the reason, naming the item', () => {
    const fileText = "error_categories:\n  - category: flaky\n    pattern: 'npm ERR! 503'\n  - category: slow\n    pattern: '^(a+)+$'\n";
    expect(() => resolveSettings({ fileText, filePath: 'config/sleep-cycle.yaml', env: {}, flags: {} })).toThrow(/item 2's pattern may backtrack without bound: a repeated group/);
  });
});
