import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../pipeline/memory/memory-md.js';
import { cli } from '../helpers/in-process.js';
import { failures, git, lines, makeDir, read, runCliProcess } from '../helpers/repo.js';

const STATE = '.sleep-cycle/state.json';
const TELEMETRY = 'logs/telemetry.jsonl';

/** A git repo whose telemetry holds one repeated failure (three git_push index.lock errors). */
function repo(files: Record<string, string> = {}): string {
  return makeDir({ [TELEMETRY]: lines(...failures(3, {})), ...files }, { git: true });
}

/** Every file outside .git, with a hash of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(full);
      } else out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

function head(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD').trim();
}

/** MEMORY.md and state.json after a run: both must parse, and agree on which rules are in memory. */
function parsedFiles(dir: string): { memory: string; ids: string[]; state: any } {
  const memory = read(dir, 'MEMORY.md');
  const ids = parseMemory(memory).rules.map((rule) => rule.id);
  const state = JSON.parse(read(dir, STATE));
  const active = Object.values(state.rules as Record<string, { id: string; state: string; target: string }>)
    .filter((rule) => rule.state === 'active' && rule.target === 'memory')
    .map((rule) => rule.id);
  expect([...new Set(ids)].sort()).toEqual(active.sort());
  return { memory, ids, state };
}

/** No LF without its CR before it. */
function hasBareLf(text: string): boolean {
  return /(^|[^\r])\n/.test(text);
}

describe('hostile repo state: MEMORY.md', () => {
  it('missing: created with the section and the rule, committed', async () => {
    const dir = repo();
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    const [proposal] = json.data.proposals;
    expect(proposal).toMatchObject({ status: 'applied', target: 'memory' });
    const { memory, ids } = parsedFiles(dir);
    expect(memory.startsWith('## Derived Rules\n')).toBe(true);
    expect(ids).toEqual([proposal.id]);
    expect(json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'show', 'HEAD:MEMORY.md')).toBe(memory);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('empty: the section is the whole file', async () => {
    const dir = repo({ 'MEMORY.md': '' });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    const id = json.data.proposals[0].id;
    const { memory, ids } = parsedFiles(dir);
    expect(ids).toEqual([id]);
    expect(memory).toMatch(new RegExp(`^## Derived Rules\\n\\n- [^\\n]+ <!-- rule:${id} -->\\n$`));
    expect(git(dir, 'show', 'HEAD:MEMORY.md')).toBe(memory);
  });

  it('CRLF without the section: the human text is kept byte for byte and the file stays CRLF', async () => {
    const original = '# Memory\r\n\r\nRead files before editing them.\r\n';
    const dir = repo({ 'MEMORY.md': original });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    const { memory, ids } = parsedFiles(dir);
    expect(ids).toEqual([json.data.proposals[0].id]);
    expect(memory.startsWith(original)).toBe(true);
    expect(memory).toContain('\r\n## Derived Rules\r\n');
    expect(hasBareLf(memory)).toBe(false);
    expect(hasBareLf(git(dir, 'show', 'HEAD:MEMORY.md'))).toBe(false);
  });

  it('CRLF with the section and a rule: the new rule goes after it, CRLF, the rest untouched', async () => {
    const top = '# Memory\r\n\r\n## Derived Rules\r\n\r\n- Run the linter before committing. <!-- rule:r-00aa01 -->\r\n';
    const rest = '\r\n## Notes\r\n\r\nKeep this.\r\n';
    const dir = repo({ 'MEMORY.md': top + rest });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    const memory = read(dir, 'MEMORY.md');
    const id = json.data.proposals[0].id;
    expect(parseMemory(memory).rules.map((r) => r.id)).toEqual(['r-00aa01', id]);
    expect(memory.startsWith(top)).toBe(true);
    expect(memory.endsWith(rest)).toBe(true);
    expect(hasBareLf(memory)).toBe(false);
    expect(JSON.parse(read(dir, STATE)).rules[id].state).toBe('active');
  });

  it('two "## Derived Rules" headings: a notice, and only the first section is used', async () => {
    const first = '# Memory\n\n## Derived Rules\n\n- Run the linter before committing. <!-- rule:r-00aa01 -->\n';
    const second = '\n## Notes\n\nKeep this.\n\n## Derived Rules\n\n- Old copy. <!-- rule:r-00bb02 -->\n';
    const dir = repo({ 'MEMORY.md': first + second });
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    expect(json.data.notices.join('\n')).toMatch(/2 "## Derived Rules" headings: only the first is managed/);
    const id = json.data.proposals[0].id;
    const memory = read(dir, 'MEMORY.md');
    expect(memory.startsWith(first)).toBe(true);
    expect(memory.endsWith(second)).toBe(true);
    expect(memory.slice(first.length, memory.length - second.length)).toMatch(new RegExp(`^- [^\\n]+ <!-- rule:${id} -->\\n$`));
    expect(parseMemory(memory).rules.map((r) => r.id)).toEqual(['r-00aa01', id]);
    expect(read(dir, 'proposed_memory_updates.md')).toMatch(/Derived Rules.{0,5} headings/);
  });

  it('a rule line duplicated by hand: kept as is, not added a third time, the rule stays active', async () => {
    const dir = repo();
    const first = await cli(dir, ['run']);
    const id = first.json.data.proposals[0].id;
    const line = read(dir, 'MEMORY.md').split('\n').find((l) => l.includes(`rule:${id}`))!;
    appendFileSync(join(dir, 'MEMORY.md'), `${line}\n`);
    git(dir, 'commit', '--quiet', '-am', 'human: duplicated a rule');
    appendFileSync(join(dir, TELEMETRY), lines(...failures(3, { timestamp: '2026-11-20T12:00:00.000Z' })));
    const { code, json } = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
    expect(code).toBe(0);
    expect(json.data.proposals.filter((p: { status: string }) => p.status === 'applied')).toEqual([]);
    const { memory, state } = parsedFiles(dir);
    expect(memory.split(`rule:${id}`).length - 1).toBe(2);
    expect(state.rules[id].state).toBe('active');
    expect(state.burned[state.rules[id].cluster_id]).toBeUndefined();
  });

  it('the same id on two lines with different text: no crash, the ledger keeps one of the two texts', async () => {
    const dir = repo();
    const first = await cli(dir, ['run']);
    const id = first.json.data.proposals[0].id;
    appendFileSync(join(dir, 'MEMORY.md'), `- A human rewrote this copy. <!-- rule:${id} -->\n`);
    const { code } = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
    expect(code).toBe(0);
    const { state, memory } = parsedFiles(dir);
    expect(state.rules[id].state).toBe('active');
    const texts = parseMemory(memory).rules.filter((r) => r.id === id).map((r) => r.text);
    expect(texts).toHaveLength(2);
    expect(texts).toContain(state.rules[id].text);
  });
});

describe('hostile repo state: state.json', () => {
  const broken: [string, string, RegExp][] = [
    ['not JSON', 'this is not json', /is not valid JSON\. Restore it with "git checkout -- \.sleep-cycle\/state\.json" or move it aside/],
    ['half written (truncated JSON)', '{\n  "version": 1,\n  "cursors": {\n    "logs/telemetry.jsonl": {', /is not valid JSON\. Restore it/],
    ['an array', '[]', /is not a JSON object\. Restore it with "git checkout/],
    ['a section of the wrong type', '{"version": 1, "rules": []}', /rules: expected an object mapping a rule id like r-3f9a1c to an object, found \[\]\. Correct that field by hand, or restore the last committed state with "git checkout/],
    ['from a future version', '{"version": 2, "cursors": {}, "rules": {}}', /has version 2, this sleep-cycle reads version 1\. Upgrade sleep-cycle/],
  ];
  for (const [name, text, message] of broken) {
    for (const dryRun of [false, true]) {
      it(`${name}${dryRun ? ' (dry run)' : ''}: E_STATE, exit 1, the fix named, nothing written`, async () => {
        const dir = repo({ [STATE]: text, 'MEMORY.md': '# Memory\n' });
        const before = snapshot(dir);
        const headBefore = head(dir);
        const { code, json } = await cli(dir, dryRun ? ['run', '--dry-run'] : ['run']);
        expect(code).toBe(1);
        expect(json.success).toBe(false);
        expect(json.error.code).toBe('E_STATE');
        expect(json.error.message).toMatch(/^\.sleep-cycle\/state\.json: /);
        expect(json.error.message).toMatch(message);
        expect(snapshot(dir)).toEqual(before);
        expect(read(dir, STATE)).toBe(text);
        expect(head(dir)).toBe(headBefore);
      });
    }
  }

  it('corrupt, as a real process: exit 1 and one JSON error envelope on stdout', () => {
    const dir = repo({ [STATE]: '{"version": 1,' });
    const before = snapshot(dir);
    const run = runCliProcess(dir, ['run', '--json']);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ success: false, data: null, error: { code: 'E_STATE' } });
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('hostile repo state: git', () => {
  it('a stale .git/index.lock: a clear E_GIT error naming the lock (or success), and the working tree all new and consistent', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(dir, '.git/index.lock'), '');
    const { code, json } = await cli(dir, ['run']);
    if (code !== 0) {
      expect(code).toBe(1);
      expect(json.error.code).toBe('E_GIT');
      expect(json.error.message).toMatch(/index\.lock/);
    }
    // The files were written before the commit was tried: all new, and MEMORY.md agrees with state.json.
    const { ids, state } = parsedFiles(dir);
    expect(ids).toHaveLength(1);
    expect(state.cursors[TELEMETRY].offset).toBe(statSync(join(dir, TELEMETRY)).size);
    expect(existsSync(join(dir, '.git/index.lock'))).toBe(true);
    expect(readdirSync(join(dir, '.git')).filter((name) => name.startsWith('sleep-cycle-index'))).toEqual([]);
    expect(readdirSync(join(dir, '.sleep-cycle')).filter((name) => name.endsWith('.tmp') || name === 'lock')).toEqual([]);
  });

  it('detached HEAD: commits on the detached HEAD, says so, and leaves the branch alone', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    const main = head(dir);
    git(dir, 'checkout', '--quiet', '--detach');
    const { code, json } = await cli(dir, ['run']);
    expect(code).toBe(0);
    expect(json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(json.data.commit_note).toMatch(/on a detached HEAD/);
    expect(head(dir)).toBe(json.data.commit);
    expect(git(dir, 'rev-parse', 'main').trim()).toBe(main);
    expect(() => git(dir, 'symbolic-ref', '--quiet', 'HEAD')).toThrow();
    const { memory } = parsedFiles(dir);
    expect(git(dir, 'show', 'HEAD:MEMORY.md')).toBe(memory);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('nothing to commit: a second night with nothing new makes no commit', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    const first = await cli(dir, ['run']);
    expect(first.json.data.commit).toMatch(/^[0-9a-f]{40}$/);
    const after = head(dir);
    const memory = read(dir, 'MEMORY.md');
    const { code, json } = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
    expect(code).toBe(0);
    expect(json.data.commit).toBeNull();
    expect(json.data.commit_note).toMatch(/nothing/);
    expect(json.data.proposals).toEqual([]);
    expect(json.data.lines).toMatchObject({ read: 0, valid: 0 });
    expect(head(dir)).toBe(after);
    expect(read(dir, 'MEMORY.md')).toBe(memory);
    parsedFiles(dir);
  });
});

describe('defects found by these tests, now fixed', () => {
  // pipeline/io/git.ts:82-87: commitThroughPrivateIndex moves HEAD (git.ts:143), then `git reset -- <paths>`
  // on the user's index (git.ts:84) fails on the stale index.lock, and the catch (git.ts:87) reports
  // "git commit failed" although the commit was made. Either outcome is fine: an E_GIT with HEAD where
  // it was, or success whose note says the index could not be refreshed.
  it('a stale .git/index.lock: the result tells the truth about whether a commit was made', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    const before = head(dir);
    writeFileSync(join(dir, '.git/index.lock'), '');
    const { code, json } = await cli(dir, ['run']);
    if (code === 0) {
      expect(head(dir)).toBe(json.data.commit);
      expect(`${json.data.commit_note} ${json.data.notices.join(' ')}`).toMatch(/index\.lock/);
    } else {
      expect(json.error.code).toBe('E_GIT');
      expect(head(dir)).toBe(before);
    }
  });

  // errors.git truncates git's stderr at 300 characters (pipeline/errors.ts, truncate(reason, 300)),
  // which cuts off git's own advice; sleep-cycle adds none of its own.
  it('a stale .git/index.lock: the E_GIT message says how to fix it', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(dir, '.git/index.lock'), '');
    const { code, json } = await cli(dir, ['run']);
    if (code !== 0) expect(json.error.message).toMatch(/remove[^.]*index\.lock/i);
  });

  // Same cause: after the lock is removed, the next run finds nothing new and never refreshes the
  // index, so the user's index still holds the pre-commit versions: `git commit` would revert
  // (delete) sleep-cycle's files.
  it('a stale .git/index.lock, removed, then a re-run: the user index does not stage the undoing of the commit', async () => {
    const dir = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(dir, '.git/index.lock'), '');
    await cli(dir, ['run']);
    rmSync(join(dir, '.git/index.lock'));
    const { code } = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
    expect(code).toBe(0);
    expect(git(dir, 'diff', '--cached', '--name-status')).toBe('');
  });

  // pipeline/memory/state.ts:142-143: a version that is not a number reads "has version 1, this
  // sleep-cycle reads version 1. Upgrade sleep-cycle": the found value and the advice are wrong.
  it('state.json with a version that is not a number: the message does not say to upgrade', async () => {
    for (const text of ['{"version": "1"}', '{"cursors": {}}']) {
      const dir = repo({ [STATE]: text });
      const { code, json } = await cli(dir, ['run', '--dry-run']);
      expect(code).toBe(1);
      expect(json.error.code).toBe('E_STATE');
      expect(json.error.message).not.toMatch(/Upgrade sleep-cycle/);
    }
  });

  // pipeline/stages/reconcile.ts:61-64 warns about duplicate headings but not duplicate ids; with two
  // texts for one id, the ledger silently takes the last (new Map(...)): the human is never told.
  it('the same rule id on two lines: a notice names the id', async () => {
    const dir = repo();
    const first = await cli(dir, ['run']);
    const id = first.json.data.proposals[0].id;
    appendFileSync(join(dir, 'MEMORY.md'), `- A human rewrote this copy. <!-- rule:${id} -->\n`);
    const { json } = await cli(dir, ['run'], '2026-11-21T04:00:00Z');
    expect(json.data.notices.join('\n')).toContain(id);
  });
});
