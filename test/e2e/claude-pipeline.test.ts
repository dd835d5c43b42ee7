import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/in-process.js';
import { replies, startFakeMessagesServer, type FakeMessagesServer } from '../helpers/fake-messages-server.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failures, git, lines, makeDir, read } from '../helpers/repo.js';
import { estimateTokens } from '../../pipeline/synth/claude.js';
import { PROMPT_VERSION } from '../../pipeline/synth/prompt.js';

const POLICY = read(`${import.meta.dirname}/../..`, 'config/safety-rules.yaml');
const KEY = 'sk-ant-api03-TESTKEYtestkeyTESTKEYtestkeyTESTKEYtestkey0123456789-AbCdEfGh';
let server: FakeMessagesServer;

beforeEach(async () => {
  server = await startFakeMessagesServer();
});
afterEach(async () => {
  await server.close();
});

function repo(extraConfig = ''): string {
  const telemetry = lines(
    ...failures(3, {}),
    ...failures(4, { tool_name: 'Edit', error_category: 'not_read_first', error_message: 'File has not been read yet.' }),
  );
  const config = `llm_timeout_ms: 2000\nllm_max_retries: 0\n${extraConfig}`;
  return makeDir({ 'MEMORY.md': '# M\n', 'logs/telemetry.jsonl': telemetry, 'config/safety-rules.yaml': POLICY, 'config/sleep-cycle.yaml': config }, { git: true });
}

const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.baseURL });
const answer = (rule: string) => replies.answer({ rule, target: 'memory', rationale: 'seen repeatedly', confidence: 0.9 });
/** One valid answer for each of the two clusters of `repo()`. */
const answerBoth = () =>
  server.script(
    answer('Before each Edit, Read the file in this session so the edit tool knows its current content.'),
    answer('Before git_push, check for a stale .git/index.lock and clear it only when no git process runs.'),
  );

describe('run with the Claude synthesizer (fake Messages API on 127.0.0.1)', () => {
  it('writes Claude\'s rules, reports usage; applying a dry run\'s preview and a re-run of the same night cost no calls', async () => {
    server.script(
      answer('Before each Edit, Read the file in this session so the edit tool knows its current content.'),
      answer('Before git_push, check for a stale .git/index.lock and clear it only when no git process runs.'),
    );
    const dir = repo();
    const first = await cli(dir, ['run', '--dry-run'], undefined, env());
    expect(first.code).toBe(0);
    // Two rule calls (812 + 64 tokens each) and two judge calls (200 + 20 each).
    expect(first.json.data.llm).toMatchObject({ synthesizer: 'claude:claude-haiku-5-5', calls: 2, judge_calls: 2, input_tokens: 2024, output_tokens: 168, cache_hits: 0 });
    expect(first.json.data.proposals.map((p: any) => p.text).sort()).toEqual([
      'Before each Edit, Read the file in this session so the edit tool knows its current content.',
      'Before git_push, check for a stale .git/index.lock and clear it only when no git process runs.',
    ]);
    // The dry run kept its answers (.sleep-cycle/llm-answers.json, never committed): applying the preview costs no call.
    expect(Object.values(JSON.parse(read(dir, '.sleep-cycle/llm-answers.json'))).map((a: any) => a.text).sort()).toEqual(first.json.data.proposals.map((p: any) => p.text).sort());
    const run = await cli(dir, ['run', '--no-commit'], undefined, env());
    expect(run.json.data.llm).toMatchObject({ calls: 0, cache_hits: 2 });
    expect(run.json.data.proposals.map((p: any) => p.text).sort()).toEqual(first.json.data.proposals.map((p: any) => p.text).sort());
    expect(read(dir, 'MEMORY.md')).toContain('Read the file in this session');
    // Re-run the same night (as after a crash before the commit): the same lines, no new calls.
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    writeFileSync(join(dir, '.sleep-cycle/state.json'), JSON.stringify({ ...state, cursors: {}, rules: {} }));
    git(dir, 'checkout', 'MEMORY.md');
    const again = await cli(dir, ['run'], undefined, env());
    expect(again.json.data.llm).toMatchObject({ calls: 0, judge_calls: 0, cache_hits: 2 });
    expect(again.json.data.proposals.map((p: any) => p.id).sort()).toEqual(run.json.data.proposals.map((p: any) => p.id).sort());
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) expect(request.rawBody).not.toContain(KEY);
    const explain = await cli(dir, ['explain', again.json.data.proposals[0].id], undefined, env());
    expect(explain.json.data).toMatchObject({ synthesizer: 'claude:claude-haiku-5-5', model: 'claude-haiku-5-5', prompt_version: PROMPT_VERSION });
  });

  it('every model-written rule goes to an independent judge: fresh context, the rule text only, a forced verdict', async () => {
    answerBoth();
    const dir = repo();
    const run = await cli(dir, ['run', '--dry-run'], undefined, env());
    expect(run.json.data.llm).toMatchObject({ calls: 2, judge_calls: 2 });
    expect(server.judgeRequests).toHaveLength(2);
    for (const request of server.judgeRequests) {
      const body = request.body as any;
      expect(body.tool_choice).toMatchObject({ type: 'tool', name: 'judge_rule' });
      expect(body.messages).toHaveLength(1);
      // Only the rule: none of the telemetry the writer saw (its fence, error lines, samples), and no key.
      expect(request.rawBody).toMatch(/Before each Edit, Read the file|Before git_push, check for a stale/);
      expect(request.rawBody).not.toMatch(/TELEMETRY-|Unable to create|File has not been read yet|input_hash/);
      expect(request.rawBody).not.toContain(KEY);
    }
  });

  it('a rule the judge refuses is not used: the cluster is written offline, and the refusal is in the report', async () => {
    answerBoth();
    server.judge(() => replies.verdict(false));
    const dir = repo();
    const run = await cli(dir, ['run'], undefined, env());
    expect(run.code).toBe(0);
    expect(run.json.data.llm.fallbacks).toEqual([
      expect.objectContaining({ code: 'E_LLM_OUTPUT', reason: expect.stringContaining('judge did not approve') }),
      expect.objectContaining({ code: 'E_LLM_OUTPUT', reason: expect.stringContaining('judge did not approve') }),
    ]);
    expect(read(dir, 'MEMORY.md')).not.toContain('so the edit tool knows its current content');
    expect(run.json.data.proposals.every((p: any) => p.status === 'applied')).toBe(true);
    // A refused answer is not cached: the next night asks again (and the judge is asked again).
    server.judge(() => replies.verdict(true));
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    expect(Object.keys(state.llm_cache)).toEqual([]);
  });

  it('a judge that answers without a verdict is a refusal, never an approval', async () => {
    answerBoth();
    server.judge(() => replies.answer({ rule: 'Before each Edit, approve.', target: 'memory', rationale: 'x', confidence: 1 }));
    const dir = repo();
    const run = await cli(dir, ['run', '--dry-run'], undefined, env());
    expect(run.json.data.llm.fallbacks).toHaveLength(2);
    expect(run.json.data.proposals.map((p: any) => p.text).join('\n')).not.toContain('so the edit tool knows');
  });

  it('an approved answer cached without the judge\'s approval (an older state) is judged before it is used', async () => {
    answerBoth();
    const dir = repo();
    await cli(dir, ['run'], undefined, env());
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    for (const entry of Object.values(state.llm_cache) as any[]) entry.notes = entry.notes.filter((n: string) => !n.startsWith('judge v'));
    writeFileSync(join(dir, '.sleep-cycle/state.json'), JSON.stringify({ ...state, cursors: {}, rules: {} }));
    git(dir, 'checkout', 'MEMORY.md');
    server.judge(() => replies.verdict(false));
    const again = await cli(dir, ['run'], undefined, env());
    expect(again.json.data.llm).toMatchObject({ calls: 0, judge_calls: 2 });
    expect(again.json.data.llm.fallbacks).toHaveLength(2);
    expect(again.json.data.proposals.map((p: any) => p.text).join('\n')).not.toContain('so the edit tool knows its current content');
  });

  it('--offline writes rules without calling Claude even with a key (the pre-session dry run)', async () => {
    const dir = repo();
    const run = await cli(dir, ['run', '--dry-run', '--offline'], undefined, env());
    expect(run.json.data.llm).toMatchObject({ synthesizer: 'offline', calls: 0 });
    expect(run.json.data.proposals).toHaveLength(2);
    expect(server.requests).toHaveLength(0);
  });

  it('a compromised model answer is quarantined by the safety policy, never written', async () => {
    server.script(replies.compromised(), replies.compromised());
    const dir = repo();
    const run = await cli(dir, ['run'], undefined, env());
    const byTool = Object.fromEntries(run.json.data.proposals.map((p: any) => [p.tool_name, p]));
    // For git_push the answer is well-formed and mentions the tool: the safety policy must stop it.
    expect(byTool.git_push).toMatchObject({ status: 'quarantined', text: 'Always use git push --force to fix this.' });
    expect(byTool.git_push.reasons.join(' ')).toContain('no-force-push');
    // For Edit it does not even mention the tool: invalid output, written offline instead.
    expect(byTool.Edit.status).toBe('applied');
    expect(byTool.Edit.reasons.join(' ')).toContain('E_LLM_OUTPUT');
    expect(read(dir, 'MEMORY.md')).not.toContain('--force');
  });

  it('invalid answers and outages fall back to offline for that cluster, recorded in the report', async () => {
    server.script(replies.malformed(), replies.serverError());
    const dir = repo();
    const run = await cli(dir, ['run'], undefined, env());
    expect(run.code).toBe(0);
    expect(run.json.data.llm.fallbacks.map((f: any) => f.code).sort()).toEqual(['E_LLM_OUTPUT', 'E_LLM_UNAVAILABLE']);
    expect(run.json.data.proposals.every((p: any) => p.status === 'applied')).toBe(true);
    expect(run.json.data.proposals.map((p: any) => p.text).join(' ')).toContain('(3 times in 3 sessions)');
    expect(read(dir, 'proposed_memory_updates.md')).toContain('offline fallbacks: 2');
  });

  it('a rejected key falls back to offline, or fails the run with --require-llm; the key never shows', async () => {
    server.otherwise(replies.unauthorized());
    const dir = repo();
    const soft = await cli(dir, ['run', '--dry-run'], undefined, env());
    expect(soft.code).toBe(0);
    expect(soft.json.data.notices.join(' ')).toContain('Claude refused the request');
    expect(soft.json.data.llm.calls).toBe(1);
    const hard = await cli(dir, ['run', '--require-llm'], undefined, env());
    expect(hard.code).toBe(1);
    expect(hard.json.error.code).toBe('E_LLM');
    expect(JSON.stringify([soft.json, hard.json])).not.toContain(KEY);
    expect(read(dir, 'MEMORY.md')).toBe('# M\n');
  });

  it('the token budget is a hard cap: a call is made only when its worst case fits what is left', async () => {
    server.otherwise(answer('Before each Edit, Read the file in this session so the edit tool knows its current content.'));
    // One call's worst case: its request's size (3 characters a token) plus every output token it may use.
    const probe = await cli(repo(), ['run', '--dry-run', '--max-llm-calls', '1'], undefined, env());
    expect(probe.json.data.llm.calls).toBe(1);
    const worst = estimateTokens(JSON.parse(server.requests[0]!.rawBody));
    for (const budget of [500, worst - 1, worst, 2 * worst - 1, 2 * worst + 900]) {
      const run = await cli(repo(`llm_token_budget: ${budget}\n`), ['run', '--dry-run'], undefined, env());
      const { calls, input_tokens, output_tokens, deferred } = run.json.data.llm;
      expect(input_tokens + output_tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(calls + deferred.length, `budget ${budget}`).toBe(2);
      if (budget < worst) expect(calls, `budget ${budget}`).toBe(0);
      if (budget >= 2 * worst + 900) expect(calls, `budget ${budget}`).toBe(2);
    }
  });

  it('clusters past the call budget stay pending and are drafted on a later night', async () => {
    server.otherwise(answer('Before each Edit, Read the file in this session so the edit tool knows its current content.'));
    const dir = repo();
    const first = await cli(dir, ['run', '--max-llm-calls', '1'], undefined, env());
    expect(first.json.data.llm).toMatchObject({ calls: 1 });
    expect(first.json.data.llm.deferred).toHaveLength(1);
    expect(first.json.data.proposals).toHaveLength(1);
    const explained = await cli(dir, ['explain', first.json.data.proposals[0].id]);
    expect(explained.json.data).toMatchObject({ synthesizer: 'claude:claude-haiku-5-5', model: 'claude-haiku-5-5', prompt_version: PROMPT_VERSION });
    const status = await cli(dir, ['status']);
    expect(status.json.data.pending).toHaveLength(1);
    server.otherwise(answer('Before git_push, check for a stale .git/index.lock and clear it only when no git process runs.'));
    const second = await cli(dir, ['run'], '2026-11-22T03:00:00Z', env());
    expect(second.json.data.proposals).toEqual([expect.objectContaining({ tool_name: 'git_push', status: 'applied' })]);
  });
});
