import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandName } from '../../pipeline/cli/program.js';
import { failures, lines, makeDir, PACKAGE_ROOT } from '../helpers/repo.js';
import { sc } from '../helpers/in-process.js';

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const MEMORY = '# M\n\n## Derived Rules\n';

describe('sleep-cycle arguments', () => {
  it('--version and -V print the version of package.json and exit 0', async () => {
    const dir = makeDir({});
    for (const flag of ['--version', '-V']) {
      expect(await sc(dir, [flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--root and --json are accepted before the command as well as after it', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY }, { git: true });
    const elsewhere = makeDir({});
    const before = await sc(elsewhere, ['--root', dir, '--json', 'init']);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).data.files).toContainEqual({ path: 'config/sleep-cycle.yaml', action: 'created' });
    const after = await sc(elsewhere, ['status', '--root', dir, '--json']);
    const mixed = await sc(elsewhere, ['--json', 'status', `--root=${dir}`]);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(mixed.stdout));
    expect(JSON.parse(after.stdout).data.last_sleep).toBeNull();
  });

  it('the command is found after global options, not taken from their values', () => {
    expect(commandName(['--root', 'run', 'status'])).toBe('status');
    expect(commandName(['--json', '--root=x', 'init', '--logs', 'ignore'])).toBe('init');
    expect(commandName(['--json'])).toBeUndefined();
  });

  it('a mistyped option prints one line with a did-you-mean and where the help is; --json prints one envelope', async () => {
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    const text = await sc(dir, ['run', '--dry-rn']);
    expect(text.code).toBe(2);
    expect(text.stdout).toBe('');
    expect(text.stderr).toBe("sleep-cycle: E_USAGE: unknown option '--dry-rn': did you mean --dry-run? See `sleep-cycle run --help`.\n");

    const json = await sc(dir, ['run', '--dry-rn', '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, data: null, error: { code: 'E_USAGE', message: expect.stringContaining('did you mean --dry-run?') } });
  });

  it('an unknown command and a missing argument are one line each, pointing at the right help', async () => {
    const dir = makeDir({});
    const unknown = await sc(dir, ['rn']);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: "sleep-cycle: E_USAGE: unknown command 'rn': did you mean run? See `sleep-cycle --help`.\n" });
    const missing = await sc(dir, ['explain']);
    expect(missing).toEqual({ code: 2, stdout: '', stderr: "sleep-cycle: E_USAGE: missing required argument 'id'. See `sleep-cycle explain --help`.\n" });
    const nothing = await sc(dir, ['--json']);
    expect(nothing.code).toBe(2);
    expect(JSON.parse(nothing.stdout).error.message).toContain('no command given');
  });

  it('--now is described with --dry-run only where the command has --dry-run', async () => {
    const dir = makeDir({});
    for (const command of ['list', 'stats', 'touch', 'pin', 'unpin', 'restore']) {
      const help = await sc(dir, [command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--now <iso>');
      expect(help.stdout, command).not.toContain('dry-run');
    }
    for (const command of ['run', 'decay']) {
      const help = (await sc(dir, [command, '--help'])).stdout;
      expect(help).toContain('--dry-run');
      expect(help.replace(/\s+/g, ' ')).toContain('with --dry-run nothing is written');
    }
  });

  it('every command help lists --json and --root, and says what an explicit --root must be', async () => {
    const help = (await sc(makeDir({}), ['status', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--json');
    expect(help).toContain('--root <dir>');
    expect(help).toContain('default: the top level of the git repository around the current directory');
    expect(help).toContain('inside a git repository, its top level');
  });

  it('config alone prints the settings, as config --print does', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'min_repeats: 5\n' });
    const alone = await sc(dir, ['config']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('min_repeats: 5  (file)');
    expect(alone).toEqual(await sc(dir, ['config', '--print']));
    const json = JSON.parse((await sc(dir, ['config', '--json'])).stdout);
    expect(json.data.settings.min_repeats).toMatchObject({ value: 5, source: 'file' });
  });
});
