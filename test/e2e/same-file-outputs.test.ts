import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, sc } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';

/** Two files a run writes (or one it writes and one it reads) that are one file: refused before anything is written. */

const MEMORY = '# Team notes\n\nHuman text that must never be lost.\n\n## Derived Rules\n';

function repo(files: Record<string, string> = {}): string {
  return makeDir({ 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': lines(...failures(3, {})), ...files }, { git: true });
}

describe('outputs of a run that are one file', () => {
  it.each([['run'], ['run', '--dry-run']])('report_file: MEMORY.md is E_CONFIG naming both settings (%s); MEMORY.md is untouched', async (...args) => {
    const dir = repo({ 'config/sleep-cycle.yaml': 'report_file: MEMORY.md\n' });
    const night = await cli(dir, args);
    expect(night.code).toBe(2);
    expect(night.json.error.code).toBe('E_CONFIG');
    expect(night.json.error.message).toMatch(/^report_file and memory_file both name MEMORY\.md: .*Nothing was written/);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it.each([['run'], ['run', '--dry-run']])('a report that is a link to MEMORY.md is E_IO (%s); MEMORY.md keeps its human notes', async (...args) => {
    const dir = repo();
    symlinkSync('MEMORY.md', join(dir, 'proposed_memory_updates.md'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'report link');
    const night = await cli(dir, args);
    expect(night.code).toBe(1);
    expect(night.json.error.code).toBe('E_IO');
    expect(night.json.error.message).toMatch(/^proposed_memory_updates\.md \(report_file\) is the same file as MEMORY\.md \(memory_file\), through a link/);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it('a lock file that is a link to MEMORY.md is refused before the lock is taken (a stale lock would be moved away)', async () => {
    const dir = repo();
    mkdirSync(join(dir, '.sleep-cycle'));
    symlinkSync('../MEMORY.md', join(dir, '.sleep-cycle/lock'));
    const night = await cli(dir, ['run']);
    expect(night.json.error?.code).toBe('E_IO');
    expect(night.json.error.message).toContain('(state_dir (lock)) is the same file as MEMORY.md (memory_file)');
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it('memory_file naming the safety policy (a file the run reads) is E_CONFIG', async () => {
    const dir = repo({ 'config/sleep-cycle.yaml': 'memory_file: config/safety-rules.yaml\n' });
    const night = await cli(dir, ['run']);
    expect(night.json.error?.code).toBe('E_CONFIG');
    expect(night.json.error.message).toMatch(/^safety_rules and memory_file both name config\/safety-rules\.yaml/);
  });

  it('a skill routed to the memory file is E_CONFIG', async () => {
    const dir = repo({ 'config/sleep-cycle.yaml': 'memory_file: skills/git.yaml\nrouting:\n  git_push: git\n' });
    const night = await cli(dir, ['run']);
    expect(night.json.error?.code).toBe('E_CONFIG');
    expect(night.json.error.message).toMatch(/^skills_dir \(git\.yaml\) and memory_file both name skills\/git\.yaml/);
  });

  it('distinct files, one of them a link inside the repository, still run', async () => {
    const dir = repo({ 'docs/report.md': '' });
    symlinkSync('docs/report.md', join(dir, 'proposed_memory_updates.md'));
    const night = await cli(dir, ['run', '--dry-run']);
    expect(night.code, JSON.stringify(night.json.error)).toBe(0);
    expect(read(dir, 'docs/report.md')).toContain('# Proposed memory updates');
  });
});

describe('outputs of a run inside git\'s own directory', () => {
  const config = (dir: string): string => readFileSync(join(dir, '.git/config'), 'utf8');

  it.each([
    ['report_file: .git/config'],
    ['memory_file: .git/hooks/post-commit'],
    ['archive_file: .git/info/exclude'],
    ['state_dir: .git/sleep'],
    ['skills_dir: .git/hooks\nrouting:\n  git_push: pre-push'],
    ['report_file: docs/../.git/config'],
    ['report_file: .GIT/config'],
    ['logs: [.git/hooks/post-checkout]'],
  ])('%s is E_CONFIG before anything is written (run and dry run); git\'s config is untouched', async (setting) => {
    for (const args of [['run'], ['run', '--dry-run']]) {
      const dir = repo({ 'config/sleep-cycle.yaml': `${setting}\n` });
      const before = config(dir);
      const night = await cli(dir, args);
      expect(night.json.error?.code, `${setting} ${args.join(' ')}`).toBe('E_CONFIG');
      expect(night.json.error.message).toContain("a file of git's own directory");
      expect(config(dir)).toBe(before);
      expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    }
  });

  it('a report reaching git\'s directory through a link is E_IO', async () => {
    const dir = repo({ 'config/sleep-cycle.yaml': 'report_file: docs/meta/config\n' });
    mkdirSync(join(dir, 'docs'));
    symlinkSync('../.git', join(dir, 'docs/meta'));
    const before = config(dir);
    const night = await cli(dir, ['run']);
    expect(night.json.error?.code).toBe('E_IO');
    expect(night.json.error.message).toContain("resolves inside git's own directory");
    expect(config(dir)).toBe(before);
  });
});

/** A night that wrote one rule, then the state folder's lock made a link to MEMORY.md (as a hostile repository commits it). */
async function lockLinkedToMemory(): Promise<{ dir: string; rule: string }> {
  const dir = repo();
  const night = await cli(dir, ['run']);
  expect(night.code).toBe(0);
  const rule = night.json.data.proposals[0].id as string;
  symlinkSync('../MEMORY.md', join(dir, '.sleep-cycle/lock'));
  return { dir, rule };
}

describe('the other commands that write check their files the same way', () => {
  it.each([['pin'], ['unpin'], ['touch'], ['restore']])('%s <id> with a lock that is a link to MEMORY.md is E_IO, and MEMORY.md and the state stay as they were', async (action) => {
    const { dir, rule } = await lockLinkedToMemory();
    const before = read(dir, 'MEMORY.md') + read(dir, '.sleep-cycle/state.json');
    const result = await cli(dir, [action!, rule]);
    expect(result.code).toBe(1);
    expect(result.json.error.code).toBe('E_IO');
    expect(result.json.error.message).toContain('(state_dir (lock)) is the same file as MEMORY.md (memory_file)');
    expect(read(dir, 'MEMORY.md') + read(dir, '.sleep-cycle/state.json')).toBe(before);
  });

  it('review --accept and init refuse the same lock before taking it', async () => {
    const { dir } = await lockLinkedToMemory();
    const before = read(dir, 'MEMORY.md');
    for (const args of [['review', 'r-0000000000000000', '--accept'], ['init']]) {
      const result = await cli(dir, args);
      expect(result.json.error?.code, args.join(' ')).toBe('E_IO');
    }
    expect(read(dir, 'MEMORY.md')).toBe(before);
  });

  it('pin with report_file: MEMORY.md is E_CONFIG, as the run is', async () => {
    const dir = repo();
    const rule = (await cli(dir, ['run'])).json.data.proposals[0].id as string;
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'night');
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config/sleep-cycle.yaml'), 'report_file: MEMORY.md\n');
    const before = read(dir, 'MEMORY.md');
    const result = await cli(dir, ['pin', rule]);
    expect(result.code).toBe(2);
    expect(result.json.error.message).toMatch(/^report_file and memory_file both name MEMORY\.md/);
    expect(read(dir, 'MEMORY.md')).toBe(before);
  });

  it('log and import to --log MEMORY.md, and report --html MEMORY.md, are E_CONFIG and leave it as it is', async () => {
    const dir = repo();
    const source = join(dir, 'transcripts');
    mkdirSync(source);
    for (const args of [['log', '--tool', 'Bash', '--exit-code', '1', '--duration-ms', '5', '--log', 'MEMORY.md'], ['import', 'claude-code', source, '--log', 'MEMORY.md'], ['report', '--html', 'MEMORY.md'], ['report', '--html', '.sleep-cycle/state.json']]) {
      const result = await cli(dir, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.json.error.code).toBe('E_CONFIG');
      expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
    }
    expect((await cli(dir, ['report', '--html', 'trends.html'])).code).toBe(0);
  });

  it('the hook with logs: [MEMORY.md] records nothing and says why; MEMORY.md gets no JSON line', async () => {
    const dir = repo({ 'config/sleep-cycle.yaml': 'logs: [MEMORY.md]\n' });
    const payload = { session_id: 's1', transcript_path: '/dev/null', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '' } };
    const result = await sc(dir, ['hook', 'claude-code', '--json'], { stdin: JSON.stringify(payload) });
    expect(result.code).toBe(0);
    const data = JSON.parse(result.stdout).data;
    expect(data).toMatchObject({ outcome: 'rejected' });
    expect(data.reason).toMatch(/^nothing was recorded: logs and memory_file both name MEMORY\.md/);
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });
});
