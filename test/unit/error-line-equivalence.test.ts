import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorLine } from '../../pipeline/telemetry/error-line.js';
import { referenceErrorLine } from '../helpers/error-line-reference.js';
import { TelemetryGenerator } from '../../bench/generate.mjs';

/**
 * errorLine runs once per distinct failure message of a night, so it was made cheaper (one pass over
 * the lines, substring checks before the patterns that need them). It must pick exactly the line the
 * earlier version picked: on generated outputs built from the lines each rank looks for, on the
 * benchmark's messages, and on windows of the real outputs in ../shared/data when present.
 */
const FRAGMENTS = [
  '', '   ', 'Exit code 1', 'Exit code -2', 'Exit code 1 extra', 'Traceback (most recent call last):', '  Traceback (most recent call last):',
  '  File "/repo/x.py", line 3, in <module>', '    main()', 'ValueError: bad 3', 'StopIteration', 'django.core.exceptions.ImproperlyConfigured: x',
  '[… 9000 characters elided …]', 'bash: line 1: pytest: command not found', 'sh: 1: tsc: not found', 'zsh: command not found: foo',
  'bash: ./run.sh: Permission denied', 'something not found here', '- E999 IndentationError: unexpected indent', 'src/a.py:3:1: F821 undefined name',
  'x - y', 'a: b', 'E       fixture \'db\' not found', 'E    +  where x', 'E   AssertionError: boom', 'fatal: Unable to create lock', 'npm ERR! code 1',
  'Error: payment method not found', 'src/a.ts:3:7 - error TS2322: bad', "cat: x: No such file or directory", 'FAILED tests/t.py::test_x - AssertionError: no',
  'FAILED tests/t.py::test_x', 'ERROR tests/t.py::test_y', '--- FAIL: TestX', '=== 1 failed, 2 passed in 0.1s ===', 'FAILED (failures=0, errors=2)',
  ' Test Files  1 failed (1)', 'Tests:  2 failed, 1 passed', '  3 failing', 'it timed out', 'permission denied', 'plain words only',
  '<tool_use_error>String to replace not found in file.', '</tool_use_error>', '\tindented\t', 'trailing spaces   ', '\r', 'E', 'x'.repeat(1200),
];

const message = fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 0, maxLength: 14 }).map((lines) => lines.join('\n'));

describe('errorLine picks what it picked before it was made faster', () => {
  it('on generated outputs', () => {
    fc.assert(fc.property(message, (text) => {
      expect(errorLine(text)).toBe(referenceErrorLine(text));
    }), { numRuns: 3000, seed: 5 });
  });

  it('on the benchmark\'s messages', () => {
    const generator = new TelemetryGenerator(42);
    for (let i = 0; i < 20_000; i++) {
      const event = JSON.parse(generator.next()) as { error_message?: string };
      if (event.error_message !== undefined) expect(errorLine(event.error_message)).toBe(referenceErrorLine(event.error_message));
    }
  });

  const DATA = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');
  it.skipIf(!existsSync(DATA))('on windows of the real outputs in ../shared/data', () => {
    let compared = 0;
    for (const file of filesUnder(DATA)) {
      const lines = readFileSync(file, 'utf8').slice(0, 150_000).split(/\\n|\n/);
      for (let i = 0; i < lines.length; i += 11) {
        const text = lines.slice(i, i + 1 + (i % 23)).join('\n');
        expect(errorLine(text), file).toBe(referenceErrorLine(text));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
