import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';

const MEMORY = '# M\n\n## Derived Rules\n';

/** Every command that takes --root, with the arguments it needs to get as far as reading the root. */
const COMMANDS: string[][] = [
  ['status'], ['init'], ['run', '--dry-run'], ['run'], ['decay'], ['list'], ['stats'], ['review'], ['review', 'r-000000', '--reject'],
  ['explain', 'r-000000'], ['config'], ['touch', 'r-000000'], ['pin', 'r-000000'], ['unpin', 'r-000000'], ['restore', 'r-000000'],
  ['log', '--tool', 'Bash', '--exit-code', '1', '--duration-ms', '5'], ['import', 'claude-code', '.'],
];

describe('--root and the repository a command works on', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args]))('%s --root <missing folder>: E_USAGE, exit 2, nothing created', async (_name, args) => {
    const dir = makeDir({ 'MEMORY.md': MEMORY }, { git: true });
    const typo = join(dir, 'typo');
    const result = await cli(dir, [...(args as string[]), '--root', typo]);
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('--root expects an existing directory') });
    expect(result.json.error.message).toContain('no such directory');
    expect(existsSync(typo)).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a file given as --root is E_USAGE and left as it was', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY }, { git: true });
    for (const args of [['init'], ['run'], ['status']]) {
      const result = await cli(dir, [...args, '--root', 'MEMORY.md']);
      expect(result.code).toBe(2);
      expect(result.json.error.message).toContain('a file, not a directory');
    }
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('from a subfolder of the repository, commands work on its top level, as the hook does', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const run = await cli(sub, ['run']);
    expect(run.code).toBe(0);
    expect(run.json.data.proposals).toHaveLength(1);
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${run.json.data.proposals[0].id} -->`);
    expect(readdirSync(sub)).toEqual([]);

    const status = await cli(sub, ['status']);
    expect(status.json.data.last_sleep).toBe('2026-11-21T03:00:00.000Z');
    expect((await cli(sub, ['list'])).json.data.rules.map((r: { id: string }) => r.id)).toEqual([run.json.data.proposals[0].id]);
  });

  it('an explicit --root inside a repository must be its top level: the error names the top level', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    mkdirSync(join(dir, 'packages', 'app'), { recursive: true });
    const refused = await cli(dir, ['run', '--root', 'packages/app']);
    expect(refused.code).toBe(2);
    expect(refused.json.error.message).toContain(`a folder inside the repository at ${dir}`);
    expect(refused.json.error.message).toContain(`Use --root ${dir}`);
    expect(readdirSync(join(dir, 'packages', 'app'))).toEqual([]);
    expect((await cli(join(dir, 'packages'), ['status', '--root', '..'])).code).toBe(0);
  });

  it('outside a git repository, the current folder is the root, as before', async () => {
    const dir = makeDir({});
    const sub = join(dir, 'project');
    mkdirSync(sub);
    const init = await cli(sub, ['init']);
    expect(init.code).toBe(0);
    expect(existsSync(join(sub, 'MEMORY.md'))).toBe(true);
    expect(existsSync(join(dir, 'MEMORY.md'))).toBe(false);
  });
});
