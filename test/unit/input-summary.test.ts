import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClaudeCodeHook } from '../../pipeline/telemetry/claude-code-hook.js';
import { readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { capSummary, MAX_SUMMARY_CHARS, oneLine, oneLineFull, summarizeInput } from '../../pipeline/telemetry/input-summary.js';
import { tempDir } from '../helpers/temp.js';

describe('summarizeInput: the call itself, short', () => {
  it.each([
    ['Bash', { command: 'cd /work/app && npm test -- --run', description: 'run the tests' }, 'cd . && npm test -- --run'],
    ['Read', { file_path: '/work/app/src/a.ts', offset: 10 }, 'src/a.ts'],
    ['Edit', { file_path: '/work/app/src/a.ts', old_string: 'const secret = 1', new_string: 'x' }, 'src/a.ts'],
    ['Write', { file_path: '/tmp/notes.md', content: 'the whole file' }, '/tmp/notes.md'],
    ['Grep', { pattern: 'TODO', path: '/work/app/src', output_mode: 'content' }, 'TODO in src'],
    ['Glob', { pattern: '**/*.test.ts' }, '**/*.test.ts'],
    ['WebFetch', { url: 'https://docs.example.com/api', prompt: 'summarise' }, 'https://docs.example.com/api'],
    ['Task', { description: 'Find the failing test', prompt: 'a long prompt with details', subagent_type: 'general-purpose' }, 'Find the failing test'],
    // An MCP tool's arguments are its caller's data: only their names are kept.
    ['mcp__attio__create-record', { resource_type: 'companies', record_data: { name: 'ACME', notes: 'private' } }, '{record_data, resource_type}'],
    ['TodoWrite', { todos: [{ content: 'x', status: 'pending' }] }, '{todos}'],
  ])('%s %j → %j', (tool, input, summary) => {
    expect(summarizeInput(tool, input, { cwd: '/work/app' })).toBe(summary);
  });

  it("drops an MCP argument name that reads as a piece of a token, keeps the names of real tools' arguments", () => {
    // A GitHub token cut into argument names of 8 (the sixth outside corpus): each piece alone is too short for a detector.
    const token = 'ghp_4Mkv9AALmzVVGofRrxgRQr7StUvWhJ4kL7zX';
    const input = Object.fromEntries([0, 8, 16, 24, 32].map((i) => [token.slice(i, i + 8), 1]));
    const summary = summarizeInput('mcp__x__y', input)!;
    for (const piece of ['9AALmzVV', 'GofRrxgR', 'Qr7StUvW', 'hJ4kL7zX']) expect(summary).not.toContain(piece);
    const real = ['owner', 'repo', 'issue_number', 'per_page', 'maxResults', 'includeRelations', 'q', 'url', 'base64Data', 's3Bucket', 'userID', 'includeHTMLTags', 'pageToken', 'workspaceSlug', 'k8sNamespace', 'vsCodeId'];
    expect(summarizeInput('mcp__x__y', Object.fromEntries(real.map((name) => [name, 1])))).toBe(capSummary(`{${[...real].sort().join(', ')}}`));
  });

  it('writes a home folder outside the project as ~ (it names a person)', () => {
    expect(summarizeInput('Bash', { command: 'python3 /Users/alice/.claude/plugins/share.py --out /home/bob/x' }, { cwd: '/work/app' })).toBe('python3 ~/.claude/plugins/share.py --out ~/x');
    expect(summarizeInput('Read', { file_path: 'C:\\Users\\carol\\notes.txt' })).toBe('~\\notes.txt');
  });

  it('says nothing about an input it cannot describe', () => {
    expect(summarizeInput('Bash', null)).toBeUndefined();
    expect(summarizeInput('Bash', { command: '   ' })).toBe('{command}');
    expect(summarizeInput('x', {})).toBeUndefined();
  });

  it('keeps a multi-line command readable and parseable: comments and heredoc bodies go, lines become `;`', () => {
    const command = [
      '# Let me create a reproduction script',
      "cat <<'EOF' > /testbed/reproduce.py",
      'import os  # a comment inside the file',
      'print(os.getcwd())',
      'EOF',
      'cd /testbed && \\',
      '  python reproduce.py 2>&1 |',
      '  tail -20',
      'if [ -f out.txt ]',
      'then',
      '  grep -n "# not a comment" out.txt',
      'fi',
    ].join('\n');
    expect(capSummary(command)).toBe(`cat <<'EOF' > /testbed/reproduce.py; cd /testbed && python reproduce.py 2>&1 | tail -20; if [ -f out.txt ]; then grep -n "# not a comment" out.txt; fi`);
  });

  it('redacts before it cuts, so a secret at the cut cannot survive in part', () => {
    const token = `ghp_${'k3Y9m2P8q1'.repeat(4)}`;
    const command = `${'x'.repeat(185)} GITHUB_TOKEN=${token} git push`;
    const summary = capSummary(command)!;
    expect(summary).toHaveLength(MAX_SUMMARY_CHARS);
    expect(summary).not.toContain(token.slice(0, 12));
    expect(summary.endsWith('…')).toBe(true);
    expect(capSummary(`curl -u admin:${token} https://api.example.com`)).not.toContain(token);
  });

  it('is at most 200 characters, one line, never with half a surrogate pair (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '#', "'", '"', '\\', '😀', '<', ';', 'é'), maxLength: 400 }), (text) => {
        const summary = capSummary(text);
        if (summary === undefined) return;
        expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
        expect(summary).not.toMatch(/[\n\r]/);
        expect(summary).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      }),
      { numRuns: 2000, seed: 11 },
    );
  });
});

describe('input_summary from the Claude Code hook and transcript importer', () => {
  it('the hook writes the command, and a path relative to the payload cwd', () => {
    const base = { session_id: 's', cwd: '/home/dev/project', hook_event_name: 'PostToolUse', tool_use_id: 't1' };
    const read = parseClaudeCodeHook(JSON.stringify({ ...base, tool_name: 'Read', tool_input: { file_path: '/home/dev/project/src/app.ts' } }));
    expect(read.kind === 'post' && read.call.inputSummary).toBe('src/app.ts');
    const bash = parseClaudeCodeHook(JSON.stringify({ ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'pytest -q' }, error: 'Exit code 127\nbash: line 1: pytest: command not found' }));
    expect(bash.kind === 'post' && bash.call.inputSummary).toBe('pytest -q');
  });

  it('the transcript importer writes it on every event, relative to the line cwd', async () => {
    const dir = tempDir('cc-summary-');
    const file = join(dir, 'session.jsonl');
    const lines = [
      { type: 'assistant', sessionId: 's', cwd: '/home/dev/project', timestamp: '2026-01-01T10:00:00.000Z', message: { content: [{ type: 'tool_use', id: 'a', name: 'Edit', input: { file_path: '/home/dev/project/README.md', old_string: 'x', new_string: 'y' } }] } },
      { type: 'user', sessionId: 's', cwd: '/home/dev/project', timestamp: '2026-01-01T10:00:00.300Z', message: { content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] } },
    ];
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const events = [];
    for await (const item of readClaudeCodeCalls(file)) if (item.kind === 'call') events.push(item.event);
    expect(events).toEqual([expect.objectContaining({ tool_name: 'Edit', input_summary: 'README.md' })]);
  });
});

describe('a one-line command takes the shortcut, with the same summary', () => {
  it('oneLine equals oneLineFull on commands of words, blanks, quotes, comments, heredocs and line breaks', () => {
    const piece = fc.constantFrom('ls', 'git', 'push', ' ', '  ', '\t', '\n', '\r', '\\\n', '#', ' # c', ';', '; ', '&&', '|', '<<', "<<'EOF'", 'EOF', '"', "'", 'a=b', '\u00a0', '\f', '\v', 'then', '{', '(');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(oneLine(text)).toBe(oneLineFull(text));
      }),
      { seed: 20_261_128, numRuns: 5000 },
    );
  });
});
