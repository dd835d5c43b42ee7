import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../pipeline/cli/context-from-options.js';
import { runCli } from '../../pipeline/cli/program.js';
import { fixedClock } from '../../pipeline/io/clock.js';
import { nodeFs, type FsPort } from '../../pipeline/io/fs.js';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const MEMORY = '# M\n\n## Derived Rules\n';
// Blocks the git_push rule (it names index.lock), so the repository has a quarantined draft to review.
const BLOCK_INDEX_LOCK = 'version: 1\nrules:\n  - id: no-index-lock-talk\n    severity: block\n    reason: test policy\n    when:\n      any:\n        - { fact: text, operator: matchesRegex, value: "index\\\\.lock" }\n';
const EDIT_FAILURES = (timestamp: string) =>
  failures(3, { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet.', timestamp });

/** A repository after one run: a rule in memory (Edit) and a quarantined draft (git_push). */
async function reviewedRepo() {
  const dir = makeDir({
    'MEMORY.md': MEMORY,
    'config/safety-rules.yaml': BLOCK_INDEX_LOCK,
    'logs/telemetry.jsonl': lines(...failures(3, {}), ...EDIT_FAILURES('2026-11-20T11:00:00.000Z')),
  }, { git: true });
  const run = await cli(dir, ['run']);
  expect(run.code).toBe(0);
  const byStatus = (status: string) => run.json.data.proposals.find((p: { status: string }) => p.status === status).id as string;
  return { dir, rule: byStatus('applied'), draft: byStatus('quarantined') };
}

describe('one lock for every command that writes', () => {
  it('while another process holds the lock, every writing command exits 3 with E_LOCKED and writes nothing', async () => {
    const { dir, rule, draft } = await reviewedRepo();
    const source = tempDir('sleep-cycle-transcripts-');
    const holder = `${JSON.stringify({ pid: process.pid, host: hostname(), started: '2026-11-21T02:59:00.000Z', run_id: 'run-other' })}\n`;
    writeFileSync(join(dir, '.sleep-cycle', 'lock'), holder);
    const snapshot = () => git(dir, 'status', '--porcelain') + read(dir, '.sleep-cycle/state.json') + read(dir, 'MEMORY.md') + read(dir, '.sleep-cycle/lock');
    const before = snapshot();
    const writers = [
      ['run'], ['run', '--dry-run'], ['decay'], ['review', draft, '--reject'], ['review', draft, '--accept', '--force'],
      ['touch', rule], ['pin', rule], ['unpin', rule], ['restore', rule], ['import', 'claude-code', source], ['init'],
    ];
    for (const args of writers) {
      const result = await cli(dir, args);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.json.error).toMatchObject({ code: 'E_LOCKED', details: { run_id: 'run-other' } });
    }
    expect(snapshot()).toBe(before);
    expect(existsSync(join(dir, 'config', 'sleep-cycle.yaml'))).toBe(false);
  });

  it('review takes the lock before it loads: a run that finishes just before it is not overwritten', async () => {
    const { dir, draft } = await reviewedRepo();
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...failures(3, { tool_name: 'Read', error_category: 'not_found', error_message: 'File does not exist.', timestamp: '2026-11-21T03:30:00.000Z' })));
    let otherRule: string | undefined;
    // The moment review asks for the lock, another run gets there first and writes a new rule.
    const fs: FsPort = {
      ...nodeFs,
      async createExclusive(path, content) {
        if (otherRule === undefined && path.endsWith(join('.sleep-cycle', 'lock'))) {
          const other = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
          otherRule = other.json.data.proposals[0].id;
        }
        return nodeFs.createExclusive(path, content);
      },
    };
    const out: string[] = [];
    const deps = { ...defaultDeps(), fs, cwd: dir, clock: fixedClock('2026-11-21T05:00:00Z'), env: {}, isTTY: false, stdout: (t: string) => void out.push(t), stderr: () => {} };
    const code = await runCli(['review', draft, '--reject', '--json'], deps);
    expect(code, out.join('')).toBe(0);
    expect(otherRule).toMatch(/^r-[0-9a-f]{16}$/);
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    expect(Object.keys(state.rules)).toContain(otherRule);
    expect(state.quarantine[draft]).toBeUndefined();
    expect(read(dir, 'MEMORY.md')).toContain(`<!-- rule:${otherRule} -->`);
  });
});
