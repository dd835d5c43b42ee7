import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../helpers/repo.js';

/** `npm run demo` (the built script) on the shipped sample; each numbered step's output by its number. */
function runDemo(): { code: number; steps: Record<string, string> } {
  const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'dist/scripts/demo.js')], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  const left = /The demo repository is left at (\S+) /.exec(run.stdout)?.[1];
  if (left) rmSync(left, { recursive: true, force: true });
  const steps: Record<string, string> = {};
  for (const part of run.stdout.split(/\n=== /).slice(1)) {
    const number = /^(\d+)\./.exec(part)?.[1];
    if (number) steps[number] = part;
  }
  return { code: run.status ?? -1, steps };
}

describe('npm run demo', () => {
  it('ends with a decay preview that archives some rules and leaves the others decaying', () => {
    const { code, steps } = runDemo();
    expect(code).toBe(0);
    const preview = steps['5']!;
    expect(preview).toMatch(/preview: what \d+ quiet days would archive/);
    expect(preview).toMatch(/active → archived: not reinforced for \d+ days/);
    expect(preview).toMatch(/active → decaying/);
    // The report is shown as a terminal shows text: no HTML escapes (`<*>` in templates stays `<*>`).
    expect(steps['1']).toContain('<*>');
    expect(Object.values(steps).join('\n')).not.toContain('&lt;');
    // The dry run after the real one read nothing: no notice about "the newest" event.
    expect(steps['3']).toContain('lines: 0 read');
    expect(steps['3']).not.toContain('newest');
    // The too-large rule names its template: the numbers are masked, not cut ("25000" never becomes "250…").
    expect(steps['2']).toContain('exceeds maximum allowed tokens (<*>)');
    expect(steps['4']).not.toMatch(/\d…/);
  });
});
