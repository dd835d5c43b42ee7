import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, sc } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Paths in a hostile repository: links leaving it, devices and FIFOs get a clear E_IO error and nothing
 * is written outside; a link inside it is written through (the link stays, its target is updated).
 */

const TELEMETRY = 'logs/telemetry.jsonl';

function repo(files: Record<string, string> = {}): string {
  return makeDir({ [TELEMETRY]: lines(...failures(3, {})), ...files }, { git: true });
}

/** A folder outside the repository with a file in it, and a way to tell whether anything there changed. */
function outsideDir(): { dir: string; snapshot: () => Record<string, string> } {
  const dir = tempDir('sleep-cycle-outside-');
  writeFileSync(join(dir, 'victim.md'), '# not yours\n');
  mkdirSync(join(dir, 'folder'));
  const snapshot = () => {
    const out: Record<string, string> = {};
    const walk = (path: string) => {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        const full = join(path, entry.name);
        if (entry.isDirectory()) walk(full);
        else out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
      }
    };
    walk(dir);
    return out;
  };
  return { dir, snapshot };
}

/** Runs with a time limit: a read of /dev/zero or a FIFO must end in an error, not a hang. */
async function runWithin(dir: string, args: string[], ms = 20_000) {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms)));
  try {
    return await Promise.race([cli(dir, args), limit]);
  } finally {
    clearTimeout(timer);
  }
}

describe('hostile repository: links, devices and FIFOs', () => {
  it('MEMORY.md -> docs/AGENT_NOTES.md: written through, the link stays a link, in the working tree and in the commit', async () => {
    const dir = repo({ 'docs/AGENT_NOTES.md': '# Agent notes\n\nHuman text.\n' });
    symlinkSync('docs/AGENT_NOTES.md', join(dir, 'MEMORY.md'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'notes behind a link');
    const run = await cli(dir, ['run']);
    expect(run.code, JSON.stringify(run.json.error)).toBe(0);
    const id = run.json.data.proposals[0].id;
    expect(lstatSync(join(dir, 'MEMORY.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'MEMORY.md'))).toBe('docs/AGENT_NOTES.md');
    const notes = read(dir, 'docs/AGENT_NOTES.md');
    expect(notes.startsWith('# Agent notes\n\nHuman text.\n')).toBe(true);
    expect(notes).toContain(`<!-- rule:${id} -->`);
    // The commit keeps the link and updates its target; the working tree is clean.
    expect(git(dir, 'ls-tree', 'HEAD', 'MEMORY.md')).toMatch(/^120000 /);
    expect(git(dir, 'show', 'HEAD:docs/AGENT_NOTES.md')).toBe(notes);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  const leaving: [string, (dir: string, outside: string) => void][] = [
    ['MEMORY.md -> a file outside', (dir, outside) => symlinkSync(join(outside, 'victim.md'), join(dir, 'MEMORY.md'))],
    ['MEMORY.md -> ../ (relative) outside', (dir, outside) => symlinkSync(relative(dir, join(outside, 'victim.md')), join(dir, 'MEMORY.md'))],
    ['MEMORY.md -> a missing file outside (dangling)', (dir, outside) => symlinkSync(join(outside, 'new.md'), join(dir, 'MEMORY.md'))],
    ['.sleep-cycle -> a folder outside', (dir, outside) => symlinkSync(join(outside, 'folder'), join(dir, '.sleep-cycle'))],
    ['memory/ (the archive folder) -> a folder outside', (dir, outside) => symlinkSync(join(outside, 'folder'), join(dir, 'memory'))],
    ['the report -> a file outside', (dir, outside) => symlinkSync(join(outside, 'victim.md'), join(dir, 'proposed_memory_updates.md'))],
    ['the log -> a file outside', (dir, outside) => {
      writeFileSync(join(outside, 'folder', 'log.jsonl'), lines(...failures(3, {})));
      execFileSync('rm', [join(dir, TELEMETRY)]);
      symlinkSync(join(outside, 'folder', 'log.jsonl'), join(dir, TELEMETRY));
    }],
    ['logs/ -> a folder outside', (dir, outside) => {
      writeFileSync(join(outside, 'folder', 'telemetry.jsonl'), lines(...failures(3, {})));
      execFileSync('rm', ['-r', join(dir, 'logs')]);
      symlinkSync(join(outside, 'folder'), join(dir, 'logs'));
    }],
    ['config/sleep-cycle.yaml -> a file outside', (dir, outside) => {
      writeFileSync(join(outside, 'folder', 'settings.yaml'), 'min_repeats: 3\n');
      mkdirSync(join(dir, 'config'), { recursive: true });
      symlinkSync(join(outside, 'folder', 'settings.yaml'), join(dir, 'config', 'sleep-cycle.yaml'));
    }],
    ['report_file set to a path outside', (dir, outside) => {
      mkdirSync(join(dir, 'config'), { recursive: true });
      writeFileSync(join(dir, 'config', 'sleep-cycle.yaml'), `report_file: ${relative(dir, join(outside, 'folder', 'report.md'))}\n`);
    }],
    ['memory_file set to an absolute path outside', (dir, outside) => {
      mkdirSync(join(dir, 'config'), { recursive: true });
      writeFileSync(join(dir, 'config', 'sleep-cycle.yaml'), `memory_file: ${join(outside, 'victim.md')}\n`);
    }],
  ];

  it.each(leaving)('%s: E_IO naming the path and where it points; nothing outside changes', async (_, setup) => {
    const dir = repo();
    const outside = outsideDir();
    setup(dir, outside.dir);
    const before = outside.snapshot();
    const headBefore = git(dir, 'rev-parse', 'HEAD');
    const run = await runWithin(dir, ['run']);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('E_IO');
    expect(run.json.error.message).toMatch(/outside the repository/);
    expect(run.json.error.message).toContain(outside.dir);
    expect(outside.snapshot()).toEqual(before);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(headBefore);
  });

  it('a rotated copy that is a link leaving the repository: E_IO once the night looks for rotated copies; nothing outside changes', async () => {
    const dir = repo();
    const outside = outsideDir();
    expect((await cli(dir, ['run'])).code).toBe(0);
    // Rotation: the log moves to .1, which an attacker replaces with a link out; a new log starts.
    writeFileSync(join(outside.dir, 'folder', 'other.jsonl'), lines(...failures(3, {})));
    symlinkSync(join(outside.dir, 'folder', 'other.jsonl'), join(dir, `${TELEMETRY}.1`));
    writeFileSync(join(dir, TELEMETRY), lines(...failures(3, { timestamp: '2026-11-21T10:00:00.000Z', error_message: 'fatal: later' })));
    const before = outside.snapshot();
    const run = await runWithin(dir, ['run', '--now', '2026-11-22T03:00:00Z']);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('E_IO');
    expect(run.json.error.message).toContain(`${TELEMETRY}.1 resolves (through a link) to ${join(outside.dir, 'folder', 'other.jsonl')}`);
    expect(outside.snapshot()).toEqual(before);
  });

  it('the log is a link to /dev/zero: an error at once, not a hang', async () => {
    const dir = repo();
    execFileSync('rm', [join(dir, TELEMETRY)]);
    symlinkSync('/dev/zero', join(dir, TELEMETRY));
    const started = Date.now();
    const run = await runWithin(dir, ['run']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(1);
    expect(run.json.error).toMatchObject({ code: 'E_IO' });
    expect(run.json.error.message).toContain('/dev/zero');
  });

  it('the log is a FIFO or a link to one inside the repository: an error naming what it is, not a hang', async () => {
    for (const how of ['fifo', 'link'] as const) {
      const dir = repo();
      execFileSync('rm', [join(dir, TELEMETRY)]);
      if (how === 'fifo') execFileSync('mkfifo', [join(dir, TELEMETRY)]);
      else {
        execFileSync('mkfifo', [join(dir, 'logs', 'pipe')]);
        symlinkSync('pipe', join(dir, TELEMETRY));
      }
      const run = await runWithin(dir, ['run']);
      expect(run.code, how).toBe(1);
      expect(run.json.error.code).toBe('E_IO');
      expect(run.json.error.message).toContain('a FIFO (named pipe)');
      expect(run.json.error.message).toContain(TELEMETRY);
    }
  });

  it('the day hook refuses a log or a state folder that leaves the project: nothing is appended outside, and the agent is not blocked', async () => {
    const payload = JSON.stringify({
      session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash',
      tool_input: { command: 'npm test' }, tool_use_id: 'toolu_1', error: 'Exit code 1\nnpm ERR! missing script: test',
    });
    for (const what of ['log', 'state'] as const) {
      const dir = makeDir({ 'logs/.keep': '' });
      const outside = outsideDir();
      if (what === 'log') symlinkSync(join(outside.dir, 'victim.md'), join(dir, TELEMETRY));
      else symlinkSync(join(outside.dir, 'folder'), join(dir, '.sleep-cycle'));
      const before = outside.snapshot();
      const run = await sc(dir, ['hook', 'claude-code'], { stdin: payload });
      expect(run.code, what).toBe(0);
      expect(outside.snapshot(), what).toEqual(before);
    }
  });

  it('read-only commands refuse a state folder that leaves the repository too', async () => {
    const dir = repo();
    const outside = outsideDir();
    writeFileSync(join(outside.dir, 'folder', 'state.json'), '{"version": 1}\n');
    symlinkSync(join(outside.dir, 'folder'), join(dir, '.sleep-cycle'));
    for (const command of ['status', 'list']) {
      const run = await cli(dir, [command]);
      expect(run.code, command).toBe(1);
      expect(run.json.error.message, command).toMatch(/\.sleep-cycle\/state\.json .*outside the repository/);
    }
  });
});
