import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SleepCycleError } from '../../pipeline/model/errors.js';
import { resolveSettings } from '../../pipeline/settings/resolve.js';
import { classifyError, commandSegments, compileCategoryPatterns, isBenignExit, splitExitCode } from '../../pipeline/telemetry/classify.js';

/** Real third-party data (PII-bearing): read here at test time, never copied into the repository. */
const DATA = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');
const haveData = existsSync(DATA);

/** Classifies a Claude Code error text the way the hook does: the exit code split off first. */
function classify(tool: string, error: string, command?: string, extra = compileCategoryPatterns([])): string {
  const { exitCode, rest } = splitExitCode(error);
  return classifyError({ toolName: tool, exitCode: exitCode ?? 1, message: rest }, extra, command);
}

describe('classifyError on the error texts documented in shared/formats/claude-code.md', () => {
  it.each([
    ['Read', 'EISDIR: illegal operation on a directory, read', 'not_found'],
    ['Read', 'File does not exist.', 'not_found'],
    ['Read', '<tool_use_error>File does not exist.</tool_use_error>', 'not_found'],
    ['Read', 'File content (47613 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.', 'too_large'],
    ['Task', "Agent type 'x' not found. Available agents: general-purpose, statusline-setup, output-style-setup", 'not_found'],
    ['Write', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', 'not_read_first'],
    ['Edit', '<tool_use_error>String to replace not found in file.\nString: const x = 1;</tool_use_error>', 'edit_mismatch'],
    ['Bash', 'InputValidationError: Bash failed due to the following issue:\nThe required parameter `command` is missing', 'validation_error'],
    ['Bash', "Exit code 128\nfatal: a branch named 'x' already exists", 'git_error'],
    ['mcp__attio__get-record-details', "Error executing tool 'get-record-details': Universal get details failed", 'api_error'],
    ['mcp__github__list_pull_requests', 'MCP tool "list_pull_requests" response (65906 tokens) exceeds maximum allowed tokens (25000)', 'too_large'],
    ['Bash', 'PreToolUse:Bash hook error: [./hooks/guard.sh]: blocked rm -rf', 'hook_denied'],
    ['Bash', '<tool_use_error>Sibling tool call errored</tool_use_error>', 'cancelled'],
    ['Bash', 'Exit code 127\nbash: line 1: pytest: command not found', 'dependency_missing'],
  ])('%s: %j → %s', (tool, error, expected) => {
    expect(classify(tool, error)).toBe(expected);
  });
});

describe('benign search misses', () => {
  it.each([
    ['grep -n "RadioSelect" django/forms/models.py', true],
    ['find django -name "*test*.py" | grep expressions', true],
    ['pip list | grep pytest-httpbin', true],
    ['cd src && rg -l "TODO"', true],
    ['git grep -n needle', true],
    ['[ -f .env ]', true],
    ['npm test', false],
    ['python3 -c "import sys; sys.exit(1)"', false],
    ['echo "grep | find" > notes.txt; false', false],
  ])('exit 1 with no output from %j is benign: %s', (command, benign) => {
    expect(classify('Bash', 'Exit code 1\n', command)).toBe(benign ? 'benign' : 'uncategorized');
  });

  it('a grep with output, or with another exit code, is a real failure', () => {
    expect(classify('Bash', 'Exit code 2\ngrep: missing.txt: No such file or directory', 'grep foo missing.txt')).toBe('not_found');
    expect(classify('Bash', 'Exit code 1\nsomething went wrong', 'grep foo a.txt && ./build.sh')).toBe('uncategorized');
    expect(isBenignExit(1, '', 'grep foo a.txt')).toBe(true);
    expect(isBenignExit(1, 'out', 'grep foo a.txt')).toBe(false);
    expect(isBenignExit(2, '', 'grep foo a.txt')).toBe(false);
    expect(isBenignExit(1, '', undefined)).toBe(false);
  });

  it('splits shell lines at unquoted separators only, keeping redirections', () => {
    expect(commandSegments('grep "a|b" f.txt 2>&1 | head -n 5 && echo ok; ls')).toEqual(['grep "a|b" f.txt 2>&1', 'head -n 5', 'echo ok', 'ls']);
    expect(commandSegments("echo 'x && y' \\| z")).toEqual(["echo 'x && y' \\| z"]);
  });
});

describe('splitExitCode', () => {
  it.each([
    ['Exit code 1\nboom', 1, 'boom'],
    ['Exit code 127\nbash: foo: command not found\n', 127, 'bash: foo: command not found\n'],
    ['Exit code 1', 1, ''],
    ['File does not exist.', null, 'File does not exist.'],
    ['exit code 1\nlowercase is not the prefix', null, 'exit code 1\nlowercase is not the prefix'],
  ])('%j → %s', (error, exitCode, rest) => {
    expect(splitExitCode(error)).toEqual({ exitCode, rest });
  });
});

describe('categories from settings', () => {
  const settingsWith = (yaml: string) => resolveSettings({ fileText: yaml, filePath: 'config/sleep-cycle.yaml', env: {}, flags: {} }).settings;

  it('are tried before the built-in ones, case-insensitively', () => {
    const settings = settingsWith('error_categories:\n  - category: stale_lock\n    pattern: "index\\\\.lock"\n  - category: flaky_network\n    pattern: "^econnreset"\n');
    const extra = compileCategoryPatterns(settings.error_categories);
    const lock = "fatal: Unable to create '/repo/.git/index.lock': File exists.";
    expect(classify('git_push', lock)).toBe('git_error');
    expect(classify('git_push', lock, undefined, extra)).toBe('stale_lock');
    expect(classify('Bash', 'Exit code 1\nECONNRESET while fetching', undefined, extra)).toBe('flaky_network');
    // A benign search miss stays benign whatever the settings say.
    expect(classify('Bash', 'Exit code 1', 'grep x y', compileCategoryPatterns([{ category: 'anything', pattern: '.*' }]))).toBe('benign');
  });

  it.each([
    ['error_categories:\n  - category: bad\n    pattern: "(unclosed"\n', 'item 1'],
    ['error_categories:\n  - category: Not Snake\n    pattern: "x"\n', 'item 1'],
    ['error_categories:\n  - category: ok\n    pattern: "x"\n    flags: g\n', 'unknown key "flags"'],
    ['error_categories: index.lock\n', 'not a list'],
  ])('an invalid entry is E_CONFIG at load (%j)', (yaml, mention) => {
    let caught: unknown;
    try {
      settingsWith(yaml);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SleepCycleError);
    expect((caught as SleepCycleError).code).toBe('E_CONFIG');
    expect((caught as SleepCycleError).message).toContain('error_categories');
    expect((caught as SleepCycleError).message).toContain(mention);
  });

  it('defaults to none', () => {
    expect(settingsWith('').error_categories).toEqual([]);
  });
});

interface RealError {
  source: string;
  tool: string;
  text: string;
}

/** Every `is_error` tool result in the Claude Code transcripts under shared/data, with its tool name. */
function transcriptErrors(): RealError[] {
  const files = [
    ...['3954325b', '829b67b1'].map((id) => join(DATA, 'claude-code-attio-mcp-server', id, 'chat.json')),
    ...readdirSync(join(DATA, 'claude-code-session-share-samples'), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.jsonl'))
      .map((path) => join(DATA, 'claude-code-session-share-samples', path)),
  ];
  const found: RealError[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lines: any[] = file.endsWith('.json') ? JSON.parse(text) : text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const toolNames = new Map<string, string>();
    for (const line of lines) {
      for (const block of Array.isArray(line?.message?.content) ? line.message.content : []) {
        if (block?.type === 'tool_use') toolNames.set(block.id, block.name);
        if (block?.type === 'tool_result' && block.is_error === true) {
          const content = typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text ?? '').join('\n');
          found.push({ source: file, tool: toolNames.get(block.tool_use_id) ?? 'unknown', text: content });
        }
      }
    }
  }
  return found;
}

/** mini-swe-agent trajectories: every non-zero `<returncode>` with the command that produced it. */
function trajectoryFailures(): { command: string; exitCode: number; output: string }[] {
  const dir = join(DATA, 'mini-swe-agent-gemini3-dev', 'trajs');
  const found: { command: string; exitCode: number; output: string }[] = [];
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.traj.json'))) {
    let command = '';
    for (const message of JSON.parse(readFileSync(join(dir, name), 'utf8')).messages as { role: string; content: unknown }[]) {
      const text = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? message.content.map((part) => part?.text ?? '').join(' ') : '';
      if (message.role === 'assistant') command = [...text.matchAll(/```(?:bash|mswea_bash_command)\n([\s\S]*?)\n```/g)].at(-1)?.[1] ?? command;
      const result = /<returncode>(\d+)<\/returncode>\s*<output>\n?([\s\S]*?)<\/output>/.exec(text);
      if (result && result[1] !== '0') found.push({ command, exitCode: Number(result[1]), output: result[2]! });
    }
  }
  return found;
}

describe.skipIf(!haveData)('classifyError on real errors from shared/data', () => {
  it('Claude Code transcripts: every is_error result gets the category a reviewer would give it', () => {
    const errors = transcriptErrors();
    const expected: [RegExp, string][] = [
      [/File does not exist/, 'not_found'],
      [/Tests\s+\d+ failed/, 'test_failure'],
      [/filter validation failed/, 'validation_error'],
      [/Error executing tool/, 'api_error'],
      [/No task found with ID/, 'not_found'],
    ];
    const counts: Record<string, number> = {};
    for (const error of errors) {
      const category = classify(error.tool, error.text);
      const rule = expected.find(([pattern]) => pattern.test(error.text));
      expect(rule, `no expectation for ${error.text.slice(0, 60)}`).toBeDefined();
      expect(category, error.text.slice(0, 80)).toBe(rule![1]);
      counts[category] = (counts[category] ?? 0) + 1;
    }
    // SOURCES.md: 4 + 6 is_error results in the attio sessions, 1 in the session-share samples (No task found).
    expect(counts).toEqual({ not_found: 4, test_failure: 1, api_error: 5, validation_error: 1 });
    expect(errors).toHaveLength(11);
  });

  it('mini-swe-agent trajectories: grep misses are benign, the rest are categorized', () => {
    const failures = trajectoryFailures();
    const categories = failures.map((f) => ({ ...f, category: classifyError({ toolName: 'bash', exitCode: f.exitCode, message: f.output }, [], f.command) }));
    const benign = categories.filter((f) => f.category === 'benign');
    // Every benign one is an empty-output exit 1 from a line that searches; every such line is benign.
    expect(benign.length).toBeGreaterThanOrEqual(15);
    for (const f of benign) expect(f.output.trim() === '' && f.exitCode === 1 && /\b(?:grep|find|rg)\b/.test(f.command)).toBe(true);
    for (const f of categories.filter((c) => c.output.trim() !== '')) expect(f.category).not.toBe('benign');
    const byCommand = (pattern: RegExp, output: RegExp) => categories.find((f) => pattern.test(f.command) && output.test(f.output))?.category;
    expect(byCommand(/^pytest /, /=+ \d+ failed/)).toBe('test_failure');
    expect(byCommand(/pytest/, /No module named pytest/)).toBe('dependency_missing');
    expect(byCommand(/^pytest /, /command not found/)).toBe('dependency_missing');
    expect(byCommand(/^python/, /SyntaxError: invalid syntax/)).toBe('syntax_error');
    expect(byCommand(/^python/, /IndentationError/)).toBe('syntax_error');
    expect(byCommand(/^python/, /can't open file .*No such file or directory/)).toBe('not_found');
    expect(byCommand(/^python/, /ModuleNotFoundError: No module named 'reproduce_app'/)).toBe('dependency_missing');
    expect(byCommand(/^python/, /OperationalError: no such table/)).toBe('runtime_error');
    expect(byCommand(/^python/, /NameError: name 'FpGroup' is not defined/)).toBe('runtime_error');
    const uncategorized = categories.filter((f) => f.category === 'uncategorized').length;
    expect(uncategorized / categories.length).toBeLessThan(0.05);
  });
});
