import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertDistinctRunPaths } from '../../pipeline/io/output-paths.js';
import { hookPathsProblem } from '../../pipeline/cli/hook-paths.js';
import { defaultSettings, type Settings } from '../../pipeline/settings/schema.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'output-paths-other-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.sleep-cycle'));
  writeFileSync(join(dir, 'MEMORY.md'), '# M\n');
  return dir;
}
const settings = (over: Partial<Settings> = {}): Settings => ({ ...defaultSettings(), ...over });
const codeOf = (fn: () => void): string | null => {
  try {
    fn();
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? 'thrown';
  }
};

describe("a command's own files against the run's", () => {
  it.each([
    ['an output named as MEMORY.md', { outputs: [{ setting: '--html', path: 'MEMORY.md' }] }, 'E_CONFIG'],
    ['an output named as the state', { outputs: [{ setting: '--html', path: '.sleep-cycle/state.json' }] }, 'E_CONFIG'],
    ['an input named as the report', { inputs: [{ setting: '--log', path: 'proposed_memory_updates.md' }] }, 'E_CONFIG'],
    ['an output that is the settings file', { outputs: [{ setting: 'state_dir (imported.json)', path: 'config/sleep-cycle.yaml' }] }, 'E_CONFIG'],
    ['a file of its own', { outputs: [{ setting: '--html', path: 'trends.html' }], inputs: [{ setting: '--log', path: 'logs/other.jsonl' }] }, null],
  ])('%s', (_name, other, code) => {
    const dir = root();
    const absolute = (list?: { setting: string; path: string }[]) => list?.map((p) => ({ ...p, path: join(dir, p.path) }));
    expect(codeOf(() => assertDistinctRunPaths(dir, settings(), [], 'config/sleep-cycle.yaml', { outputs: absolute(other.outputs), inputs: absolute(other.inputs) } as never))).toBe(code);
  });
  it('an output that is MEMORY.md through a symbolic or a hard link is E_IO', () => {
    const dir = root();
    symlinkSync('MEMORY.md', join(dir, 'page.html'));
    linkSync(join(dir, 'MEMORY.md'), join(dir, 'hard.html'));
    for (const name of ['page.html', 'hard.html']) {
      expect(codeOf(() => assertDistinctRunPaths(dir, settings(), [], 'config/sleep-cycle.yaml', { outputs: [{ setting: '--html', path: join(dir, name) }] }))).toBe('E_IO');
    }
  });
});

describe('the hook writes no file the night writes', () => {
  it.each([
    ['logs: [MEMORY.md]', { logs: ['MEMORY.md'] }, /logs and memory_file both name MEMORY\.md/],
    ['logs: [the report]', { logs: ['proposed_memory_updates.md'] }, /logs and report_file both name/],
    ['memory_file in the state folder as the pending table', { memory_file: '.sleep-cycle/hook-pending.json' }, /hook-pending\.json\) and memory_file both name/],
    ['memory_file as the pending lock', { memory_file: '.sleep-cycle/hook-pending.json.lock' }, /both name/],
    ['report_file as the rejects file', { report_file: '.sleep-cycle/hook-rejects.jsonl' }, /both name/],
  ])('%s is refused', (_name, over, message) => {
    expect(hookPathsProblem(root(), settings(over as Partial<Settings>))).toMatch(message);
  });
  it('a log that is a link to MEMORY.md is refused', () => {
    const dir = root();
    mkdirSync(join(dir, 'logs'));
    symlinkSync('../MEMORY.md', join(dir, 'logs/telemetry.jsonl'));
    expect(hookPathsProblem(dir, settings())).toContain('is the same file as MEMORY.md');
  });
  it('the default layout passes', () => {
    expect(hookPathsProblem(root(), settings())).toBeNull();
  });
});
