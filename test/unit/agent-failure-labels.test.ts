import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../pipeline/telemetry/classify.js';
import { isClaudeCodeTranscript, readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { isMiniSweAgentTrajectory, readMiniSweAgentCalls } from '../../pipeline/telemetry/import-mini-swe-agent.js';
import { errorMessage, listSourceFiles } from '../../pipeline/telemetry/import-source.js';
import { DEFAULT_DATA_DIR, LABELS_PATH, loadAgentFailures, messageSha, parseLabels, type LoaderTools } from '../../eval/agent-failures/load.mjs';
import { tempDir } from '../helpers/temp.js';

/** The loader runs the importers' TypeScript sources here: the same code the build compiles, no build needed. */
const tools: LoaderTools = { readMiniSweAgentCalls, readClaudeCodeCalls, classifyError, errorMessage };
const labels = parseLabels(readFileSync(LABELS_PATH, 'utf8'));

describe('eval/agent-failures/labels.jsonl as shipped', () => {
  it('names every failure once, by reference, with a kebab-case group', () => {
    const where = labels.map((l) => `${l.source}/${l.file} ${l.locator}`);
    expect(new Set(where).size).toBe(labels.length);
    for (const label of labels) expect(label.group).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it('carries no user path or name (the data is PII-bearing; only references and masked templates are stored)', () => {
    const text = readFileSync(LABELS_PATH, 'utf8');
    expect(text).not.toMatch(/\/Users\/|\/home\/|__Users__|C:\\\\/i);
    for (const label of labels) if (label.template !== undefined) expect(label.template).not.toMatch(/\/(?:Users|home|tmp|opt|testbed)\//);
  });
});

describe('loadAgentFailures on synthetic trajectories', () => {
  const dataDir = syntheticData();

  it('re-extracts a message with the importer and returns it with its group, tool and category', async () => {
    const message = 'bash: line 1: pytest: command not found';
    const result = await loadAgentFailures({ dataDir, tools, labelsPath: writeLabels([label('demo:1', messageSha(message), 'command-not-found')]) });
    expect(result).toEqual({
      failures: [{ message, group: 'command-not-found', tool_name: 'bash', error_category: 'dependency_missing', source: 'mini', file: 'trajs/demo.traj.json', locator: 'mini-swe-agent:demo:1' }],
      reason: null,
      problems: [],
    });
  });

  it('reads a hand-picked SWE-agent step through the importers\' redaction and classifier', async () => {
    const message = 'Traceback (most recent call last):\nValueError: boom';
    const step = { source: 'swe', file: 'x.traj', locator: 'swe-agent-step:1', message_sha: messageSha(message), group: 'python-value-error' };
    const result = await loadAgentFailures({ dataDir, tools, labelsPath: writeLabels([step]) });
    expect(result.failures).toEqual([{ message, group: 'python-value-error', tool_name: 'python', error_category: 'runtime_error', source: 'swe', file: 'x.traj', locator: 'swe-agent-step:1' }]);
  });

  it('refuses a changed message or a locator that no longer resolves, and lists them when not strict', async () => {
    const path = writeLabels([label('demo:1', '0123456789abcdef', 'command-not-found'), label('demo:9', '0123456789abcdef', 'gone')]);
    await expect(loadAgentFailures({ dataDir, tools, labelsPath: path })).rejects.toThrow(/2 agent-failure labels[\s\S]*drift: mini\/trajs\/demo\.traj\.json mini-swe-agent:demo:1: message_sha 0123456789abcdef expected, [0-9a-f]{16} found[\s\S]*missing: .*demo:9/);
    const loose = await loadAgentFailures({ dataDir, tools, labelsPath: path, strict: false });
    expect(loose.failures).toEqual([]);
    expect(loose.reason).toBeNull();
    if (loose.failures !== null) expect(loose.problems.map((p) => [p.kind, p.sha])).toEqual([['drift', messageSha('bash: line 1: pytest: command not found')], ['missing', undefined]]);
  });

  it('skips with a reason when the data folder is absent', async () => {
    const result = await loadAgentFailures({ dataDir: join(dataDir, 'absent'), tools });
    expect(result.failures).toBeNull();
    expect(result.reason).toMatch(/no data folder at .*absent/);
  });

  it('rejects a malformed label with its line number', () => {
    const good = JSON.stringify(label('demo:1', '0123456789abcdef', 'g'));
    expect(() => parseLabels(`${good}\n${JSON.stringify({ ...label('demo:1', '0123456789abcdef', 'g'), file: '../../etc/passwd' })}\n`)).toThrow(/line 2: unsafe path/);
    expect(() => parseLabels(JSON.stringify({ ...label('demo:1', 'xyz', 'g') }))).toThrow(/line 1: message_sha/);
    expect(() => parseLabels(JSON.stringify({ ...label('demo:1', '0123456789abcdef', 'g'), locator: 'demo:1' }))).toThrow(/line 1: locator/);
    expect(() => parseLabels(JSON.stringify({ ...label('demo:1', '0123456789abcdef', ''), group: '' }))).toThrow(/line 1: missing or empty group/);
  });
});

describe.skipIf(!existsSync(DEFAULT_DATA_DIR))('the labels on the real data in ../shared/data', () => {
  it('every label resolves and its message sha matches', async () => {
    const result = await loadAgentFailures({ tools });
    expect(result.reason).toBeNull();
    expect(result.failures).toHaveLength(labels.length);
    expect(new Set(labels.map((l) => l.source)).size).toBeGreaterThanOrEqual(3);
  });

  it('labels every failure with text that the importers yield there (a census)', async () => {
    const result = await loadAgentFailures({ tools, strict: false });
    const labelled = new Set((result.failures ?? []).map((f) => `${f.source}/${f.file} ${f.locator}`));
    const unlabelled: string[] = [];
    for (const [source, read, reader, accept] of IMPORTED_SOURCES) {
      for (const path of await listSourceFiles(join(DEFAULT_DATA_DIR, source), accept)) {
        const file = relative(join(DEFAULT_DATA_DIR, source), path);
        for await (const item of read(path)) {
          if (item.kind === 'skipped' || item.event.exit_code === 0 || (item.event.error_message ?? '') === '') continue;
          const where = `${source}/${file} ${reader}:${item.key}`;
          if (!labelled.has(where)) unlabelled.push(where);
        }
      }
    }
    expect(unlabelled).toEqual([]);
  });
});

/** The sources with an importer, whose failures the labels cover completely (README: "a census"). */
const IMPORTED_SOURCES = [
  ['mini-swe-agent-gemini3-dev', readMiniSweAgentCalls, 'mini-swe-agent', isMiniSweAgentTrajectory],
  ['claude-code-attio-mcp-server', readClaudeCodeCalls, 'claude-code', isClaudeCodeTranscript],
  ['claude-code-session-share-samples', readClaudeCodeCalls, 'claude-code', isClaudeCodeTranscript],
  ['claude-code-hooks-misc', readClaudeCodeCalls, 'claude-code', isClaudeCodeTranscript],
] as const;

function label(key: string, sha: string, group: string) {
  return { source: 'mini', file: 'trajs/demo.traj.json', locator: `mini-swe-agent:${key}`, message_sha: sha, group };
}

function writeLabels(lines: object[]): string {
  const path = join(tempDir('labels-'), 'labels.jsonl');
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return path;
}

/** A data folder with made-up text only: one mini-swe-agent trajectory and one SWE-agent trajectory. */
function syntheticData(): string {
  const dir = tempDir('agent-data-');
  mkdirSync(join(dir, 'mini', 'trajs'), { recursive: true });
  mkdirSync(join(dir, 'swe'));
  const messages = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Fix the bug.' },
    { role: 'assistant', content: 'Run the tests.\n```bash\npytest\n```', extra: { response: { created: 1_763_500_000 } } },
    { role: 'user', content: '<returncode>127</returncode>\n<output>\nbash: line 1: pytest: command not found\n</output>' },
  ];
  writeFileSync(join(dir, 'mini', 'trajs', 'demo.traj.json'), JSON.stringify({ instance_id: 'demo', messages }));
  const trajectory = [
    { action: 'open a.py\n', observation: '[File: a.py (1 lines total)]\n1:x = 1' },
    { action: 'python a.py\n', observation: 'Traceback (most recent call last):\nValueError: boom\n' },
  ];
  writeFileSync(join(dir, 'swe', 'x.traj'), JSON.stringify({ trajectory, info: {} }));
  return dir;
}
