import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCommandSpec } from '../../pipeline/cli/import-command.js';
import { runCommandInProcess } from '../helpers/command.js';
import { cli } from '../helpers/in-process.js';
import { makeDir, PACKAGE_ROOT, read, sha } from '../helpers/repo.js';

const DATA = join(PACKAGE_ROOT, '..', 'shared', 'data');
const POLICY = read(PACKAGE_ROOT, 'config/safety-rules.yaml');
const MEMORY = '# Project memory\n\n## Derived Rules\n';

/** `sleep-cycle import … --json` in this process (program.ts wires `importCommandSpec` into its table). */
async function importCli(dir: string, args: string[], options: Record<string, unknown> = {}) {
  const run = await runCommandInProcess(dir, (deps) => importCommandSpec.action(args, { json: true, ...options }, deps), { json: true });
  return { code: run.code, json: JSON.parse(run.stdout) };
}

function repo(): string {
  return makeDir({ 'MEMORY.md': MEMORY, 'config/safety-rules.yaml': POLICY }, { git: true });
}

describe('sleep-cycle import (in-process)', () => {
  it('names the formats on an unknown one, and says what is missing for a path that does not exist', async () => {
    const dir = repo();
    const unknown = await importCli(dir, ['codex', 'x.jsonl']);
    expect(unknown.code).toBe(2);
    expect(unknown.json.error).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('expected one of claude-code, mini-swe-agent') });
    const missing = await importCli(dir, ['claude-code', 'no/such/dir']);
    expect(missing.code).toBe(2);
    expect(missing.json.error.code).toBe('E_USAGE');
    expect(missing.json.error.message).toMatch(/no\/such\/dir: no such file or folder/);
    expect(existsSync(join(dir, 'logs', 'telemetry.jsonl'))).toBe(false);
    expect(existsSync(join(dir, '.sleep-cycle', 'lock'))).toBe(false);
  });

  it('appends to --log instead of settings.logs[0], relative to the root', async () => {
    const dir = repo();
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    writeFileSync(join(dir, 's.jsonl'), [
      line({ type: 'assistant', sessionId: 's', timestamp: '2026-11-20T10:00:00.000Z', message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] } }),
      line({ type: 'user', sessionId: 's', timestamp: '2026-11-20T10:00:00.050Z', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] } }),
    ].join(''));
    const result = await importCli(dir, ['claude-code', 's.jsonl'], { log: 'other/calls.jsonl' });
    expect(result.json.data).toMatchObject({ files: 1, calls: 1, appended: 1 });
    expect(read(dir, 'other/calls.jsonl').trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'logs', 'telemetry.jsonl'))).toBe(false);
    const text = await runCommandInProcess(dir, (deps) => importCommandSpec.action(['claude-code', 's.jsonl'], { log: 'other/calls.jsonl' }, deps));
    expect(text.stdout).toBe('imported 1 file (claude-code): 1 calls, 0 failures (0 benign), 0 format errors\n  appended 0 events to other/calls.jsonl; 1 already imported\n');
  });
});

describe('import → run --dry-run: time a human spent on a permission prompt is not the tool\'s', () => {
  it('Writes approved after minutes are not proposed as slow; a slow command in bypassPermissions still is', async () => {
    const dir = repo();
    const at = (ms: number) => new Date(Date.parse('2026-11-20T10:00:00.000Z') + ms).toISOString();
    const lines: unknown[] = [];
    let t = 0;
    const call = (id: string, name: string, input: unknown, ms: number) => {
      lines.push({ type: 'assistant', sessionId: 's', timestamp: at(t), message: { content: [{ type: 'tool_use', id, name, input }] } });
      t += ms;
      lines.push({ type: 'user', sessionId: 's', timestamp: at(t), message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
      t += 1000;
    };
    lines.push({ type: 'user', sessionId: 's', permissionMode: 'default', timestamp: at(t), message: { content: 'start' } });
    for (let i = 0; i < 12; i++) call(`w${i}`, 'Write', { file_path: `src/f${i}.ts`, content: 'x' }, 300);
    // Three Writes the human approved after minutes (the "Write ran slow 3 times (up to 259434 ms)").
    for (const [i, ms] of [259_434, 180_000, 200_000].entries()) call(`slow-w${i}`, 'Write', { file_path: `docs/d${i}.md`, content: 'x' }, ms);
    lines.push({ type: 'user', sessionId: 's', permissionMode: 'bypassPermissions', timestamp: at(t), message: { content: 'go' } });
    for (let i = 0; i < 12; i++) call(`b${i}`, 'Bash', { command: `npm test -- t${i}` }, 1000);
    for (let i = 0; i < 3; i++) call(`slow-b${i}`, 'Bash', { command: 'npm run build' }, 30_000);
    writeFileSync(join(dir, 'session.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    expect((await importCli(dir, ['claude-code', 'session.jsonl'])).json.data).toMatchObject({ calls: 30, appended: 30 });
    const run = await cli(dir, ['run', '--dry-run']);
    expect(run.code).toBe(0);
    const slow = run.json.data.proposals.filter((p: any) => p.kind === 'slow');
    expect(slow.map((p: any) => p.tool_name)).toEqual(['Bash']);
    expect(slow[0].text).toMatch(/^Bash ran slow 3 times \(up to 30000 ms/);
    expect(read(dir, 'proposed_memory_updates.md')).not.toMatch(/Write ran slow/);
  });
});

describe.skipIf(!existsSync(DATA))('import → run --dry-run on the real data in shared/data', () => {
  // One repository per data set: the gate's window ends at the newest event read, so sessions months
  // apart (attio: Aug 2025, mini-swe-agent: Nov 2025) would push each other out of the 7-day window.
  it('imports the attio Claude Code sessions once; the dry run proposes Read "File does not exist"', async () => {
    const dir = repo();
    const source = join(DATA, 'claude-code-attio-mcp-server');
    const first = await importCli(dir, ['claude-code', source]);
    expect(first.code).toBe(0);
    expect(first.json.data).toEqual({
      format: 'claude-code', files: 2, calls: 111, failures: 10, benign: 0, excluded_cancelled: 0, format_errors: 0,
      appended: 111, skipped_duplicates: 0, unpaired: 0, invalid: 0,
    });
    const telemetry = sha(dir, 'logs/telemetry.jsonl');
    const again = await importCli(dir, ['claude-code', source]);
    expect(again.json.data).toMatchObject({ calls: 111, appended: 0, skipped_duplicates: 111 });
    expect(sha(dir, 'logs/telemetry.jsonl')).toBe(telemetry);

    const run = await cli(dir, ['run', '--dry-run']);
    expect(run.code).toBe(0);
    const { clusters, proposals, lines } = run.json.data;
    expect(lines).toMatchObject({ read: 111, valid: 111, invalid: 0 });
    const find = (tool: string, category: string) => clusters.find((c: any) => c.tool_name === tool && c.error_category === category);
    expect(find('Read', 'not_found')).toMatchObject({ kind: 'failure', count: 3, distinct_inputs: 3, promoted: true });
    // No "String to replace not found" result exists in these files (0 of their 111 calls; the next
    // test shows the cluster on a synthetic excerpt).
    expect(find('Edit', 'edit_mismatch')).toBeUndefined();
    // The attio MCP server's tools are one family: its API errors (2 + 2 + 1 of three templates) reach the
    // threshold only together, and are promoted together as one rule that names each template.
    const attio = clusters.filter((c: any) => c.tool_name === 'mcp__attio' && c.error_category === 'api_error');
    expect(attio.map((c: any) => c.count).sort()).toEqual([1, 2, 2]);
    expect(attio.every((c: any) => c.promoted)).toBe(true);
    expect(proposals.filter((p: any) => p.kind === 'failure').map((p: any) => `${p.tool_name}/${p.error_category}`).sort()).toEqual(['Read/not_found', 'mcp__attio/api_error']);
    const group = proposals.find((p: any) => p.tool_name === 'mcp__attio');
    expect(group.text).toContain('Cannot find attribute with slug/ID');
    expect(group.text).toContain('(5 times in 1 session)');
    // Durations come from real timestamps, so slow Bash calls (npm test and friends) form a slow cluster too.
    expect(proposals.filter((p: any) => p.kind === 'slow').map((p: any) => p.tool_name)).toEqual(['Bash']);
    expect(read(dir, 'proposed_memory_updates.md')).toContain('File does not exist');
    expect(read(dir, 'MEMORY.md')).toBe(MEMORY);
  });

  it('imports the mini-swe-agent trajectories once; grep misses never become rules, format errors do', async () => {
    const dir = repo();
    const source = join(DATA, 'mini-swe-agent-gemini3-dev');
    const first = await importCli(dir, ['mini-swe-agent', source]);
    // 1019 actions with a return code + 30 submissions + 2 timeouts; 70 non-zero + 2 timeouts (see the unit test).
    expect(first.json.data).toEqual({
      format: 'mini-swe-agent', files: 30, calls: 1051, failures: 72, benign: 18, excluded_cancelled: 0, format_errors: 39,
      appended: 1090, skipped_duplicates: 0, unpaired: 0, invalid: 0,
    });
    const again = await importCli(dir, ['mini-swe-agent', source]);
    expect(again.json.data).toMatchObject({ appended: 0, skipped_duplicates: 1090 });
    expect(read(dir, 'logs/telemetry.jsonl').trim().split('\n')).toHaveLength(1090);

    const run = await cli(dir, ['run', '--dry-run']);
    expect(run.code).toBe(0);
    const { clusters, proposals } = run.json.data;
    expect(clusters.find((c: any) => c.tool_name === 'format_error')).toMatchObject({ error_category: 'format_error', count: 39, promoted: true });
    // grep/find/pip-piped-to-grep misses (exit 1, no output) are never clustered, so never become rules.
    expect(clusters.filter((c: any) => c.error_category === 'benign')).toEqual([]);
    expect(proposals.filter((p: any) => p.error_category === 'benign')).toEqual([]);
    // The agent's one tool is its shell (every command is a `bash` call); its failures are clustered by the
    // program that failed: `python` and `python3` together, `pytest: command not found` under pytest.
    const families = new Set(clusters.filter((c: any) => c.tool_name !== 'format_error').map((c: any) => c.tool_name));
    expect(families).toContain('python');
    expect(families).toContain('pytest');
    expect(families).not.toContain('python3');
  });

  it('clusters Edit "String to replace not found" when a transcript has it (synthetic excerpt, JSON-array form)', async () => {
    const dir = repo();
    const lines = [1, 2, 3].flatMap((i) => [
      { type: 'assistant', sessionId: 'syn', timestamp: `2026-11-20T10:0${i}:00.000Z`, message: { content: [{ type: 'tool_use', id: `toolu_e${i}`, name: 'Edit', input: { file_path: `src/f${i}.ts`, old_string: 'a', new_string: 'b' } }] } },
      { type: 'user', sessionId: 'syn', timestamp: `2026-11-20T10:0${i}:00.300Z`, message: { content: [{ type: 'tool_result', tool_use_id: `toolu_e${i}`, content: '<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>', is_error: true }] } },
    ]);
    writeFileSync(join(dir, 'chat.json'), JSON.stringify(lines));
    expect((await importCli(dir, ['claude-code', 'chat.json'])).json.data).toMatchObject({ calls: 3, failures: 3, appended: 3 });
    const run = await cli(dir, ['run', '--dry-run']);
    expect(run.json.data.clusters).toEqual([expect.objectContaining({ tool_name: 'Edit', error_category: 'edit_mismatch', count: 3, promoted: true })]);
    expect(readFileSync(join(dir, '.sleep-cycle', 'imported.json'), 'utf8')).toContain('"chat.json"');
  });
});
