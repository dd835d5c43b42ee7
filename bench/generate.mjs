// Deterministic telemetry for the benchmark: a seeded PRNG, ~20 tools, ~8% failures with messages
// of realistic length (one-liners, multi-line git/npm/pytest output, a few fake secrets), slow
// successes, repeated inputs, and sessions. The same seed always produces the same bytes.
import { closeSync, openSync, writeSync } from 'node:fs';

/** mulberry32: small, fast, good enough for test data. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = ['src/index.ts', 'src/app/server.ts', 'pipeline/stages/ingest.ts', 'test/unit/plan.test.ts', 'package.json', 'README.md', 'src/db/migrations/0042_add_orders.sql', 'lib/utils/format.js', 'docs/setup.md', 'config/app.yaml'];
const MODULES = ['vitest', 'tsx', 'pytest', 'ruff', 'eslint', 'prettier', 'jq', 'yq', 'docker-compose', 'pnpm'];

/**
 * Each tool: relative weight, median duration (ms), failure weight, and its failure categories with
 * message makers. `r` is the PRNG, `pick` picks from a list.
 */
const TOOLS = [
  { name: 'Read', weight: 260, ms: 45, fail: 8, errors: [
    ['not_found', (g) => `File does not exist. Current working directory: /home/dev/workspace/app. Did you mean ${g.pick(FILES)}?`],
    ['too_large', (g) => `File content (${g.int(26000, 90000)} tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.`],
    ['is_directory', () => 'EISDIR: illegal operation on a directory, read'],
  ] },
  { name: 'Bash', weight: 200, ms: 900, fail: 30, errors: [
    ['dependency_missing', (g) => `Exit code 127\nsh: 1: ${g.pick(MODULES)}: not found`],
    ['test_failure', (g) => `Exit code 1\n\n FAIL  test/unit/${g.pick(['plan', 'gate', 'ingest', 'cluster'])}.test.ts > ${g.pick(['keeps', 'drops', 'merges'])} rules\nAssertionError: expected ${g.int(1, 40)} to equal ${g.int(1, 40)}\n ❯ test/unit/plan.test.ts:${g.int(10, 400)}:${g.int(3, 40)}\n\n Test Files  1 failed | ${g.int(5, 60)} passed (${g.int(6, 61)})\n      Tests  1 failed | ${g.int(100, 900)} passed (${g.int(101, 901)})\n   Duration  ${g.int(1, 30)}.${g.int(10, 99)}s`],
    ['permission_denied', (g) => `Exit code 1\nbash: ${g.pick(FILES)}: Permission denied`],
    ['timeout', (g) => `Command timed out after ${g.int(2, 10)}m 0.0s`],
    ['build_error', (g) => `Exit code 2\n${g.pick(FILES)}(${g.int(1, 300)},${g.int(1, 80)}): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\n\nFound ${g.int(1, 9)} errors in ${g.int(1, 4)} files.`],
  ] },
  { name: 'Edit', weight: 140, ms: 80, fail: 12, errors: [
    ['edit_mismatch', (g) => `<tool_use_error>String to replace not found in file.\nString:   const rows = input.split('\\n'); // ${g.hex(8)}</tool_use_error>`],
    ['not_read_first', () => '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>'],
  ] },
  { name: 'Grep', weight: 100, ms: 110, fail: 4, errors: [
    ['invalid_regex', () => 'regex parse error:\n    (?<=order)Id\n    ^^^^\nerror: look-around, including look-ahead and look-behind, is not supported'],
  ] },
  { name: 'Glob', weight: 55, ms: 60, fail: 1, errors: [['not_found', () => 'No files found']] },
  { name: 'Write', weight: 30, ms: 70, fail: 2, errors: [['not_read_first', () => '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>']] },
  { name: 'MultiEdit', weight: 12, ms: 95, fail: 2, errors: [['edit_mismatch', (g) => `<tool_use_error>Found ${g.int(2, 6)} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.</tool_use_error>`]] },
  { name: 'npm_test', weight: 45, ms: 14000, fail: 14, errors: [
    ['test_failure', (g) => `npm error code 1\nnpm error path /home/dev/workspace/app\nnpm error command failed\nnpm error command sh -c vitest run\n\n FAIL  test/e2e/run.test.ts > dry run > writes the report (${g.int(100, 9000)} ms)\nError: expect(received).toEqual(expected) // deep equality\n\n- Expected  - ${g.int(1, 9)}\n+ Received  + ${g.int(1, 9)}`],
    ['dependency_missing', (g) => `npm error code ERR_MODULE_NOT_FOUND\nError [ERR_MODULE_NOT_FOUND]: Cannot find package '${g.pick(MODULES)}' imported from /home/dev/workspace/app/test/setup.ts`],
  ] },
  { name: 'git_commit', weight: 22, ms: 300, fail: 3, errors: [
    ['hook_failed', (g) => `husky - pre-commit hook exited with code 1 (error)\n✖ eslint --fix:\n/home/dev/workspace/app/${g.pick(FILES)}\n  ${g.int(1, 200)}:${g.int(1, 60)}  error  'unused' is assigned a value but never used  @typescript-eslint/no-unused-vars`],
    ['git_error', () => 'nothing to commit, working tree clean'],
  ] },
  { name: 'git_push', weight: 20, ms: 1900, fail: 6, errors: [
    ['git_error', () => "fatal: Unable to create '/home/dev/workspace/app/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nan editor opened by 'git commit'. Please make sure all processes\nare terminated then try again. If it still fails, a git process\nmay have crashed in this repository earlier:\nremove the file manually to continue."],
    ['push_rejected', (g) => ` ! [rejected]        feature/${g.hex(6)} -> feature/${g.hex(6)} (non-fast-forward)\nerror: failed to push some refs to 'github.com:acme/app.git'\nhint: Updates were rejected because the tip of your current branch is behind\nhint: its remote counterpart. If you want to integrate the remote changes,\nhint: use 'git pull' before pushing again.`],
    ['auth_error', (g) => `remote: Invalid username or token. Password authentication is not supported for Git operations.\nfatal: Authentication failed for 'https://x-access-token:ghp_${g.hex(36)}@github.com/acme/app.git/'`],
  ] },
  { name: 'git_pull', weight: 8, ms: 1500, fail: 1, errors: [['git_error', () => 'error: Your local changes to the following files would be overwritten by merge:\n\tpackage-lock.json\nPlease commit your changes or stash them before you merge.\nAborting']] },
  { name: 'WebFetch', weight: 18, ms: 2500, fail: 5, errors: [
    ['network_error', (g) => `getaddrinfo ENOTFOUND ${g.pick(['registry.example.com', 'docs.internal', 'api.acme.dev'])}`],
    ['http_error', (g) => `Request failed with status code ${g.pick([403, 404, 429, 500, 502])}`],
  ] },
  { name: 'WebSearch', weight: 6, ms: 3000, fail: 1, errors: [['network_error', () => 'socket hang up']] },
  { name: 'Task', weight: 15, ms: 45000, fail: 1, errors: [['timeout', () => 'Agent exceeded its time budget and was stopped']] },
  { name: 'TodoWrite', weight: 25, ms: 15, fail: 0.3, errors: [['validation_error', () => 'InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos` is missing']] },
  { name: 'mcp__github__list_pull_requests', weight: 10, ms: 800, fail: 2, errors: [['api_error', (g) => `MCP error -32603: GitHub API error (403): API rate limit exceeded for installation ID ${g.int(1000000, 9999999)}.`]] },
  { name: 'mcp__github__create_issue', weight: 3, ms: 1100, fail: 1, errors: [['validation_error', () => 'MCP error -32602: Invalid arguments for tool create_issue: body: Expected string, received null']] },
  { name: 'docker_build', weight: 4, ms: 60000, fail: 1.5, errors: [['build_error', (g) => `ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: ${g.pick([1, 127, 137])}\n------\n > [builder 4/7] RUN npm ci:\n${g.int(10, 99)}.${g.int(100, 999)} npm error code ERESOLVE`]] },
  { name: 'pytest', weight: 14, ms: 6000, fail: 5, errors: [
    ['test_failure', (g) => `============================= test session starts ==============================\nplatform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0\nrootdir: /home/dev/workspace/app\ncollected ${g.int(20, 400)} items\n\ntests/test_orders.py ..F\n\nE       AssertionError: assert ${g.int(1, 99)} == ${g.int(1, 99)}\n=========================== short test summary info ============================\nFAILED tests/test_orders.py::test_total - AssertionError`],
    ['dependency_missing', (g) => `Traceback (most recent call last):\n  File "/home/dev/workspace/app/tests/conftest.py", line ${g.int(1, 40)}, in <module>\n    import ${g.pick(['numpy', 'pandas', 'requests', 'httpx'])}\nModuleNotFoundError: No module named '${g.pick(['numpy', 'pandas', 'requests', 'httpx'])}'`],
  ] },
  { name: 'NotebookEdit', weight: 2, ms: 120, fail: 0.2, errors: [['validation_error', () => 'Cell id not found in notebook']] },
];

const TOTAL_WEIGHT = TOOLS.reduce((s, t) => s + t.weight, 0);
/** Overall failure rate is ~8%: each tool's failure weight is scaled so the mix averages to that. */
const FAIL_RATE = 0.08;
const MEAN_FAIL = TOOLS.reduce((s, t) => s + t.weight * t.fail, 0) / TOTAL_WEIGHT;
for (const tool of TOOLS) tool.failP = Math.min(0.9, (tool.fail / MEAN_FAIL) * FAIL_RATE);

const HEX = '0123456789abcdef';
const START_MS = Date.parse('2026-10-01T00:00:00.000Z');

export class TelemetryGenerator {
  constructor(seed = 42) {
    this.r = mulberry32(seed);
    this.ts = START_MS;
    this.session = '';
    this.sessionLeft = 0;
    this.sessions = 0;
    this.pools = new Map(TOOLS.map((t) => [t.name, []]));
    this.lines = 0;
  }

  int(min, max) {
    return min + Math.floor(this.r() * (max - min + 1));
  }

  pick(list) {
    return list[Math.floor(this.r() * list.length)];
  }

  hex(n) {
    let s = '';
    for (let i = 0; i < n; i++) s += HEX[(this.r() * 16) | 0];
    return s;
  }

  tool() {
    let x = this.r() * TOTAL_WEIGHT;
    for (const tool of TOOLS) {
      x -= tool.weight;
      if (x < 0) return tool;
    }
    return TOOLS[0];
  }

  /** Half the calls repeat one of the tool's recent inputs (agents retry), the rest are new. */
  inputHash(tool) {
    const pool = this.pools.get(tool.name);
    if (pool.length > 0 && this.r() < 0.5) return pool[(this.r() * pool.length) | 0];
    const hash = this.hex(16);
    if (pool.length < 400) pool.push(hash);
    else pool[(this.r() * pool.length) | 0] = hash;
    return hash;
  }

  /** One telemetry line, without the newline. */
  next() {
    if (this.sessionLeft <= 0) {
      this.sessions += 1;
      this.sessionLeft = this.int(50, 600);
      this.session = `s-${new Date(this.ts).toISOString().slice(0, 10)}-${this.sessions.toString(36)}-${this.hex(6)}`;
    }
    this.sessionLeft -= 1;
    this.ts += this.int(0, 1000);
    this.lines += 1;
    const tool = this.tool();
    // Log-normal-ish durations around the tool's median.
    let duration = Math.round(tool.ms * Math.exp((this.r() + this.r() + this.r() - 1.5) * 0.9));
    const failed = this.r() < tool.failP;
    if (!failed && this.r() < 0.01) duration = Math.round(tool.ms * (3 + this.r() * 8)) + 1000; // slow call
    let line = `{"timestamp":"${new Date(this.ts).toISOString()}","tool_name":"${tool.name}","input_hash":"${this.inputHash(tool)}",`;
    if (failed) {
      const [category, message] = this.pick(tool.errors);
      const code = tool.name === 'git_push' || tool.name === 'git_pull' ? 128 : this.pick([1, 1, 1, 2, 127]);
      line += `"exit_code":${code},"duration_ms":${duration},"error_category":"${category}","error_message":${JSON.stringify(message(this))},`;
    } else {
      line += `"exit_code":0,"duration_ms":${duration},`;
    }
    line += `"session_id":"${this.session}","agent":"claude-code"`;
    if (this.r() < 0.05) line += ',"memory_refs":[]';
    return `${line}}`;
  }
}

/**
 * Appends lines to `path` until `lines` lines or at least `bytes` bytes were written (whichever is
 * given), and returns what was written. The generator keeps its state, so a later call continues the
 * same stream (timestamps keep increasing).
 */
export function writeTelemetry(path, generator, { lines = Infinity, bytes = Infinity, flag = 'a' } = {}) {
  const fd = openSync(path, flag);
  let written = 0;
  let count = 0;
  let batch = '';
  try {
    while (count < lines && written < bytes) {
      const line = `${generator.next()}\n`;
      batch += line;
      written += Buffer.byteLength(line);
      count += 1;
      if (batch.length >= 1 << 22) {
        writeSync(fd, batch);
        batch = '';
      }
    }
    if (batch.length > 0) writeSync(fd, batch);
  } finally {
    closeSync(fd);
  }
  return { lines: count, bytes: written };
}
