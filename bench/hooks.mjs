// Hook rows of the benchmark (issue 15, "Hook speed"): the Claude Code hook as the agent runs it, one
// process per payload, against `node -e 0` measured in the same run, interleaved (so a busy neighbour
// slows both sides alike), medians counted. Per-call payloads (PreToolUse, PostToolUse, a failure no
// rule covers) in a repository set up by `init` (its config/sleep-cycle.yaml included); SessionStart
// on a memory of 500 rules. Used by run.mjs (`--hooks-only` runs these rows alone).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const HOOK_TARGETS = {
  hook_per_call: { text: '<= 1.3 (x node -e 0)', met: (v) => v <= 1.3 },
  hook_session_start: { text: '<= node -e 0 + 40 ms', met: (_v, d) => d.hook_session_start_ms <= d.hook_node_ms + 40 },
};

const payload = (event, extra = {}) => JSON.stringify({ session_id: 'bench', transcript_path: '/dev/null', cwd: '/', hook_event_name: event, ...extra });
const PAYLOADS = {
  pre: payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' }),
  post: payload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1', tool_response: { stdout: 'a' } }),
  failure: payload('PostToolUseFailure', { tool_name: 'Read', tool_input: { file_path: '/nope' }, tool_use_id: 'toolu_2', error: 'File does not exist.' }),
  session: payload('SessionStart', { source: 'startup' }),
};

/**
 * Measures the hook rows; `cli` is dist/pipeline/cli/main.cjs (the bin), `root` an empty temp folder, `env` the
 * children's environment. Returns { rows, ratios, details } in run.mjs's shapes.
 */
export function measureHooks({ cli, root, env, repeat = 15, rules = 500 }) {
  const run = (args, input) => {
    const t0 = process.hrtime.bigint();
    const res = spawnSync(process.execPath, args, { cwd: root, input, encoding: 'utf8', env: { ...env, CLAUDE_PROJECT_DIR: root } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${res.status ?? res.signal}: ${(res.stderr || res.stdout).slice(0, 1000)}`);
    return { ms, stdout: res.stdout };
  };
  mkdirSync(root, { recursive: true });
  run([cli, 'init', '--root', root], '');
  writeMemory(root, rules);
  const hook = (name) => run([cli, 'hook', 'claude-code'], PAYLOADS[name]);
  const shown = JSON.parse(hook('session').stdout || '{}').hookSpecificOutput?.additionalContext ?? '';
  if (!shown.includes('[r-')) throw new Error('the SessionStart hook showed no rule of the 500-rule memory');
  const times = { node: [], pre: [], post: [], failure: [], session: [] };
  for (const name of Object.keys(times)) (name === 'node' ? run(['-e', '0'], '') : hook(name)); // warm-up
  for (let r = 0; r < repeat; r++) {
    for (const name of Object.keys(times)) times[name].push((name === 'node' ? run(['-e', '0'], '') : hook(name)).ms);
  }
  const med = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
  const perCall = Math.max(med.pre, med.post, med.failure);
  const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  const details = {
    hook_node_ms: round(med.node, 1), hook_pre_ms: round(med.pre, 1), hook_post_ms: round(med.post, 1), hook_failure_ms: round(med.failure, 1),
    hook_session_start_ms: round(med.session, 1), hook_session_rules: rules, hook_session_chars: shown.length, hook_runs: repeat,
  };
  const ratios = { hook_per_call: round(perCall / med.node), hook_session_start: round(med.session / med.node) };
  const explain = {
    hook_per_call: `slowest of PreToolUse ${details.hook_pre_ms}, PostToolUse ${details.hook_post_ms}, unmatched failure ${details.hook_failure_ms} ms ÷ node -e 0 ${details.hook_node_ms} ms (medians of ${repeat})`,
    hook_session_start: `SessionStart on ${rules} rules ${details.hook_session_start_ms} ms vs node -e 0 ${details.hook_node_ms} ms (budget +40 ms; ${shown.length} chars shown)`,
  };
  return { ratios, details, explain };
}

/** A memory of `count` rules as a night writes it: the ledger in state.json and MEMORY.md's bullets. */
function writeMemory(root, count) {
  const statePath = join(root, '.sleep-cycle/state.json');
  const state = { version: 1, last_sleep: null, cursors: {}, baselines: {}, pending: {}, rules: {}, burned: {}, quarantine: {}, llm_cache: {} };
  const bullets = [];
  for (let i = 0; i < count; i++) {
    const id = `r-${(0x100000 + i).toString(16)}`;
    const text = `\`tool_${i}\` fails with \`error number ${i}: the file was not found\` (3 times in 2 sessions): check the path before the call.`;
    state.rules[id] = ledgerEntry(id, i, text, count);
    bullets.push(`- ${text} <!-- rule:${id} -->`);
  }
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'MEMORY.md'), `# Memory\n\n## Derived Rules\n\n${bullets.join('\n')}\n`);
}

function ledgerEntry(id, i, text, count) {
  const at = '2026-11-01T00:00:00.000Z';
  const cluster = `c-${(0x100000000000 + i).toString(16)}`;
  return {
    id, cluster_id: cluster, kind: 'failure', tool_name: `tool_${i}`, error_category: 'not_found', text, text_sha: 'bench', target: 'memory',
    state: 'active', created: at, last_seen: at, hits: i % 7, pinned: i % 50 === 0, status: i % 9 === 0 ? 'validated' : 'active',
    last_reinforced: at, last_accessed: null, accesses: 0, state_since: at, weight: Math.round((1 - i / count) * 1000) / 1000, tool_calls: 0,
    template: `error number <*>: the file was not found`, template_id: `t-${(0x100000000000 + i).toString(16)}`,
    provenance: {
      synthesizer: 'offline', count: 3, distinct_inputs: 2, sessions: 2, first_seen: at, last_seen: at,
      evidence: [{ timestamp: at, file: 'logs/telemetry.jsonl', offset: i * 200, input_hash: 'abcdef0123456789', session_id: 's1', message: `error number ${i}: the file was not found`, duration_ms: 5 }],
      safety: { verdict: 'accept', violations: [], evaluated: [], policy: 'config/safety-rules.yaml' }, model: null, prompt_version: null,
    },
  };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
