import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, PACKAGE_ROOT, read } from '../helpers/repo.js';

describe('init', () => {
  it('prepares a fresh repository, and a second init changes nothing', async () => {
    const dir = makeDir({ 'README.md': '# app\n' }, { git: true });
    const first = await cli(dir, ['init']);
    expect(first.code).toBe(0);
    expect(first.json.data.files).toEqual([
      { path: 'config/safety-rules.yaml', action: 'created' },
      { path: 'config/sleep-cycle.yaml', action: 'created' },
      { path: 'MEMORY.md', action: 'created' },
      { path: '.sleep-cycle/.gitignore', action: 'created' },
    ]);
    expect(read(dir, 'config/safety-rules.yaml')).toBe(readFileSync(join(PACKAGE_ROOT, 'config/safety-rules.yaml'), 'utf8'));
    expect(JSON.parse(first.json.data.hook_snippet).hooks.PostToolUse[0].hooks[0].command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/sleep-cycle hook claude-code');
    const config = await cli(dir, ['config', '--print']);
    expect(config.code).toBe(0);
    expect(config.json.data.settings.min_repeats).toMatchObject({ value: 3, source: 'file' });

    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'init');
    const second = await cli(dir, ['init']);
    expect(second.json.data.files.every((f: any) => f.action === 'kept')).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("never overwrites a user's files; adds the Derived Rules section to an existing MEMORY.md", async () => {
    const dir = makeDir({ 'MEMORY.md': '# Mine\n\nkeep me', 'config/sleep-cycle.yaml': 'min_repeats: 5\n' }, { git: true });
    const run = await cli(dir, ['init', '--logs', 'ignore']);
    expect(run.json.data.files).toContainEqual({ path: 'MEMORY.md', action: 'updated' });
    expect(run.json.data.files).toContainEqual({ path: 'config/sleep-cycle.yaml', action: 'kept' });
    expect(read(dir, 'MEMORY.md')).toBe('# Mine\n\nkeep me\n\n## Derived Rules\n');
    expect(read(dir, 'config/sleep-cycle.yaml')).toBe('min_repeats: 5\n');
    expect(read(dir, 'logs/.gitignore')).toContain('*');
  });

  it('after init, a run writes into the new section', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    await cli(dir, ['init']);
    const run = await cli(dir, ['run', '--no-commit']);
    expect(run.json.data.notices.join(' ')).not.toContain('bundled default policy');
    expect(read(dir, 'MEMORY.md')).toMatch(/^# Project memory\n\n## Derived Rules\n\n- `git_push` fails with `fatal: Unable to create /);
  });

  it("brings an older version's state ignore file up to date, keeping the user's own lines", async () => {
    const old = '# Written by sleep-cycle while it runs; never committed.\nlock\n*.tmp\nhook-pending.json\nmy-notes.txt\n';
    const dir = makeDir({ '.sleep-cycle/.gitignore': old }, { git: true });
    const run = await cli(dir, ['init']);
    expect(run.json.data.files).toContainEqual({ path: '.sleep-cycle/.gitignore', action: 'updated' });
    const now = read(dir, '.sleep-cycle/.gitignore');
    expect(now.startsWith(old)).toBe(true);
    expect(now.split('\n')).toEqual(expect.arrayContaining(['hook-reminded.json', 'hook-index.json', 'llm-answers.json', 'models/']));
    expect(now.split('\n').filter((line) => line === 'lock')).toHaveLength(1);
    const again = await cli(dir, ['init']);
    expect(again.json.data.files).toContainEqual({ path: '.sleep-cycle/.gitignore', action: 'kept' });

    const mine = makeDir({ '.sleep-cycle/.gitignore': '*\n' }, { git: true });
    await cli(mine, ['init']);
    expect(read(mine, '.sleep-cycle/.gitignore')).toBe('*\n');
  });

  it('--logs takes commit or ignore only', async () => {
    const bad = await cli(makeDir({}), ['init', '--logs', 'sometimes']);
    expect(bad.code).toBe(2);
  });
});
