import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { replies, startFakeMessagesServer, type FakeMessagesServer } from '../helpers/fake-messages-server.js';
import { failures, lines, makeDir, read } from '../helpers/repo.js';

/** A model's rule whose command takes a glob: the file names decide its flags, so a deny-ruled program is quarantined. */
const POLICY = read(`${import.meta.dirname}/../..`, 'config/safety-rules.yaml');
const KEY = 'sk-ant-api03-TESTKEYtestkeyTESTKEYtestkeyTESTKEYtestkey0123456789-AbCdEfGh';
let server: FakeMessagesServer;

beforeEach(async () => {
  server = await startFakeMessagesServer();
});
afterEach(async () => {
  await server.close();
});

const repo = () => makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': lines(...failures(3, {})), 'config/safety-rules.yaml': POLICY, 'config/sleep-cycle.yaml': 'llm_timeout_ms: 2000\nllm_max_retries: 0\n' }, { git: true });
const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseURL });
const answer = (rule: string) => replies.answer({ rule, target: 'memory', rationale: 'seen repeatedly', confidence: 0.9 });

async function proposalFor(rule: string) {
  server.script(answer(rule));
  const dir = repo();
  const run = await cli(dir, ['run', '--no-commit'], undefined, env());
  expect(run.code).toBe(0);
  return { proposal: run.json.data.proposals.find((p: any) => p.tool_name === 'git_push'), memory: read(dir, 'MEMORY.md') };
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
