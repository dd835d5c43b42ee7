import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEvent, type TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { countItem, emptyCounts, listSourceFiles, type ImportItem, type SourceCounts } from '../../pipeline/telemetry/import-source.js';
import { inputHash } from '../../pipeline/telemetry/input-hash.js';
import { PACKAGE_ROOT } from '../helpers/repo.js';
import { tempDir } from '../helpers/temp.js';

const DATA = join(PACKAGE_ROOT, '..', 'shared', 'data');

async function collect(file: string): Promise<{ items: ImportItem[]; counts: SourceCounts; events: TelemetryEvent[] }> {
  const items: ImportItem[] = [];
  const counts = emptyCounts();
  for await (const item of readClaudeCodeCalls(file)) {
    items.push(item);
    countItem(counts, item);
  }
  const events = items.flatMap((item) => (item.kind === 'skipped' ? [] : [item.event]));
  return { items, counts, events };
}

// Synthetic transcript lines in the shape of shared/formats/claude-code.md.
const use = (id: string, name: string, input: unknown, timestamp: string, extra: Record<string, unknown> = {}) => ({
  type: 'assistant', sessionId: 's-1', timestamp, ...extra, message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
});
const result = (id: string, content: unknown, timestamp: string, isError = false) => ({
  type: 'user', sessionId: 's-1', timestamp, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }] },
});

function transcript(lines: unknown[], form: 'jsonl' | 'array' = 'jsonl'): string {
  const dir = tempDir('cc-import-');
  const path = join(dir, form === 'jsonl' ? 'session.jsonl' : 'chat.json');
  writeFileSync(path, form === 'jsonl' ? lines.map((l) => `${JSON.stringify(l)}\n`).join('') : JSON.stringify(lines, null, 2));
  return path;
}

describe.skipIf(!existsSync(DATA))('Claude Code importer on the real files in shared/data (SOURCES.md 3a, 3c)', () => {
  // SOURCES.md lists tool_use blocks and tool_result blocks with is_error=true per file. None of these
  // files holds a "Sibling tool call errored" result and every tool_use has its result, so
  // calls = tool_use count and failures = is_error count exactly (calls + cancelled + unpaired = tool_use
  // in general).
  it.each([
    ['claude-code-session-share-samples/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl', 7, 1],
    ['claude-code-session-share-samples/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl', 1, 0],
    ['claude-code-session-share-samples/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl', 1, 0],
    ['claude-code-session-share-samples/4b2030ed-5563-49ea-b703-6a002f2d3cc8/subagents/agent-a2018e5.jsonl', 1, 0],
    ['claude-code-attio-mcp-server/3954325b/chat.json', 81, 4],
    ['claude-code-attio-mcp-server/829b67b1/chat.json', 30, 6],
  ])('%s: %i calls, %i failures', async (file, calls, failures) => {
    const { counts, events } = await collect(join(DATA, file));
    expect(counts).toEqual({ calls, failures, benign: 0, excluded_cancelled: 0, format_errors: 0, unpaired: 0, invalid: 0 });
    for (const event of events) expect(checkEvent(event)).toBeNull();
    for (const event of events) expect(event.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('walks a folder recursively in sorted order, subagent files included, and names the subagent', async () => {
    const root = join(DATA, 'claude-code-session-share-samples');
    const files = await listSourceFiles(root, (name) => name.endsWith('.jsonl') || name.endsWith('.json'));
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl',
      '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl',
      '4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl',
      '4b2030ed-5563-49ea-b703-6a002f2d3cc8/subagents/agent-a2018e5.jsonl',
    ]);
    const { events } = await collect(files[1]!);
    expect(events).toEqual([expect.objectContaining({ tool_name: 'WebSearch', agent: 'agent-a5bdbc1', session_id: '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68', exit_code: 0 })]);
    const main = await collect(files[0]!);
    expect(main.events.every((e) => e.agent === 'claude-code')).toBe(true);
    expect(main.events.find((e) => e.exit_code !== 0)).toMatchObject({ tool_name: 'TaskOutput', error_category: 'not_found', error_message: 'No task found with ID: ac27727' });
  });

  it('finds the three Read "File does not exist." failures of the attio session, without the tool_use_error tags', async () => {
    const { events } = await collect(join(DATA, 'claude-code-attio-mcp-server/3954325b/chat.json'));
    const reads = events.filter((e) => e.tool_name === 'Read' && e.exit_code !== 0);
    expect(reads.map((e) => [e.error_category, e.error_message])).toEqual(Array(3).fill(['not_found', 'File does not exist.']));
    expect(new Set(reads.map((e) => e.input_hash)).size).toBe(3);
    expect(reads[0]!.timestamp).toBe('2025-08-06T17:23:25.217Z');
  });
});

describe('Claude Code importer on synthetic transcripts', () => {
  it('pairs tool_use and tool_result by id: time of the call, duration, exit code, hash, category', async () => {
    const input = { command: 'npm test', description: 'run tests' };
    const file = transcript([
      { type: 'summary', summary: 'ignored' },
      use('toolu_a', 'Bash', input, '2026-01-01T10:00:00.000Z'),
      use('toolu_b', 'Read', { file_path: '/repo/x.ts' }, '2026-01-01T10:00:00.500Z'),
      result('toolu_b', [{ type: 'text', text: '<tool_use_error>File does not exist.</tool_use_error>' }], '2026-01-01T10:00:00.600Z', true),
      result('toolu_a', 'Exit code 2\nFAIL src/a.test.ts', '2026-01-01T10:00:04.250Z', true),
      use('toolu_c', 'Glob', { pattern: '**/*.ts' }, '2026-01-01T10:00:05.000Z'),
      result('toolu_c', 'a.ts\nb.ts', '2026-01-01T10:00:04.000Z'),
    ]);
    const { events, counts } = await collect(file);
    expect(counts).toMatchObject({ calls: 3, failures: 2, unpaired: 0, invalid: 0 });
    expect(events).toEqual([
      { timestamp: '2026-01-01T10:00:00.500Z', tool_name: 'Read', input_hash: inputHash({ file_path: '/repo/x.ts' }), exit_code: 1, duration_ms: 100, session_id: 's-1', agent: 'claude-code', input_summary: '/repo/x.ts', error_category: 'not_found', error_message: 'File does not exist.' },
      { timestamp: '2026-01-01T10:00:00.000Z', tool_name: 'Bash', input_hash: inputHash(input), exit_code: 2, duration_ms: 4250, session_id: 's-1', agent: 'claude-code', input_summary: 'npm test', error_category: 'test_failure', error_message: 'FAIL src/a.test.ts' },
      // A result stamped before its call (clock skew) gets duration 0, never a negative one.
      { timestamp: '2026-01-01T10:00:05.000Z', tool_name: 'Glob', input_hash: inputHash({ pattern: '**/*.ts' }), exit_code: 0, duration_ms: 0, session_id: 's-1', agent: 'claude-code', input_summary: '**/*.ts' },
    ]);
  });

  it('excludes "Sibling tool call errored" results: cancelled parallel calls are not failures of their own', async () => {
    const file = transcript([
      use('toolu_1', 'Bash', { command: 'git push' }, '2026-01-01T10:00:00.000Z'),
      use('toolu_2', 'Bash', { command: 'git status' }, '2026-01-01T10:00:00.001Z'),
      result('toolu_1', "Exit code 128\nfatal: 'origin' does not appear to be a git repository", '2026-01-01T10:00:01.000Z', true),
      result('toolu_2', '<tool_use_error>Sibling tool call errored</tool_use_error>', '2026-01-01T10:00:01.001Z', true),
    ]);
    const { events, counts } = await collect(file);
    expect(counts).toMatchObject({ calls: 1, failures: 1, excluded_cancelled: 1 });
    expect(events).toEqual([expect.objectContaining({ tool_name: 'Bash', exit_code: 128, error_category: 'git_error' })]);
  });

  it('marks a search that found nothing as benign (exit 1, no output), judged on the last command of a pipe', async () => {
    const file = transcript([
      use('toolu_1', 'Bash', { command: 'grep -rn "needle" src' }, '2026-01-01T10:00:00.000Z'),
      result('toolu_1', 'Exit code 1', '2026-01-01T10:00:00.100Z', true),
      use('toolu_2', 'Bash', { command: 'find . -name "*.py" | grep "a|b"' }, '2026-01-01T10:00:01.000Z'),
      result('toolu_2', 'Exit code 1\n', '2026-01-01T10:00:01.100Z', true),
      use('toolu_3', 'Bash', { command: 'grep -rn needle missing-dir' }, '2026-01-01T10:00:02.000Z'),
      result('toolu_3', 'Exit code 2\ngrep: missing-dir: No such file or directory', '2026-01-01T10:00:02.100Z', true),
    ]);
    const { events, counts } = await collect(file);
    expect(events.map((e) => e.error_category)).toEqual(['benign', 'benign', 'not_found']);
    expect(counts).toMatchObject({ calls: 3, failures: 3, benign: 2 });
  });

  it('redacts secrets in error messages and keeps at most 2,000 characters (head and tail)', async () => {
    const long = `Exit code 1\nconnecting with token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n${'x'.repeat(5000)}\nError: the last line explains it`;
    const file = transcript([use('toolu_1', 'Bash', { command: 'deploy' }, '2026-01-01T10:00:00.000Z'), result('toolu_1', long, '2026-01-01T10:00:01.000Z', true)]);
    const [event] = (await collect(file)).events;
    expect(event!.error_message).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(event!.error_message).toContain('[REDACTED:github_token]');
    expect(event!.error_message!.length).toBeLessThanOrEqual(2000);
    expect(event!.error_message!.endsWith('Error: the last line explains it')).toBe(true);
  });

  it('reads a JSON-array dump and the native JSONL of the same lines identically', async () => {
    const lines = [
      use('toolu_1', 'Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, '2026-01-01T10:00:00.000Z'),
      result('toolu_1', '<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>', '2026-01-01T10:00:00.200Z', true),
      use('toolu_2', 'Read', { file_path: 'a.ts' }, '2026-01-01T10:00:01.000Z', { agentId: 'abc1234', isSidechain: true }),
      result('toolu_2', 'ok', '2026-01-01T10:00:01.020Z'),
    ];
    const fromJsonl = await collect(transcript(lines, 'jsonl'));
    const fromArray = await collect(transcript(lines, 'array'));
    expect(fromArray.items).toEqual(fromJsonl.items);
    expect(fromArray.events[0]).toMatchObject({ tool_name: 'Edit', error_category: 'edit_mismatch' });
    expect(fromArray.events[1]).toMatchObject({ agent: 'agent-abc1234' });
  });

  it('counts calls without a result, results without a call and unreadable lines, and converts the rest', async () => {
    const dir = tempDir('cc-import-');
    const jsonl = join(dir, 'torn.jsonl');
    writeFileSync(jsonl, [
      JSON.stringify(use('toolu_1', 'Read', {}, '2026-01-01T10:00:00.000Z')),
      JSON.stringify(result('toolu_1', 'ok', '2026-01-01T10:00:00.010Z')),
      JSON.stringify(result('toolu_orphan', 'ok', '2026-01-01T10:00:00.010Z')),
      '{"type": "assistant", "message": {',
      '42',
      JSON.stringify(use('toolu_2', 'Bash', { command: 'sleep 100' }, '2026-01-01T10:00:01.000Z')),
    ].join('\n'));
    const { counts } = await collect(jsonl);
    expect(counts).toMatchObject({ calls: 1, unpaired: 2, invalid: 2 });

    // A JSON-array dump cut short: the elements before the cut are still converted.
    const full = JSON.stringify([use('toolu_1', 'Read', {}, '2026-01-01T10:00:00.000Z'), result('toolu_1', 'ok', '2026-01-01T10:00:00.010Z'), use('toolu_2', 'Read', {}, '2026-01-01T10:00:01.000Z')]);
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, full.slice(0, full.length - 30));
    const torn = await collect(cut);
    expect(torn.counts).toMatchObject({ calls: 1, invalid: 1 });
  });
});
