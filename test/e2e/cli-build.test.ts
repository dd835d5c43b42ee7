import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, PACKAGE_ROOT } from '../helpers/repo.js';

// Needs `npm run build`, as every test of the built CLI does.
describe('the built CLI', () => {
  it('is executable and starts with its shebang, so it runs without `node` in front of it', () => {
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(join(PACKAGE_ROOT, pkg.bin['sleep-cycle']!)).toBe(CLI);
    const direct = spawnSync(CLI, ['--version'], { encoding: 'utf8' });
    expect(direct.error).toBeUndefined();
    expect({ status: direct.status, stdout: direct.stdout }).toEqual({ status: 0, stdout: `${pkg.version}\n` });
  });
});
