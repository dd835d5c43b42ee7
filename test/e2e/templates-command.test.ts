import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, makeDir, read } from '../helpers/repo.js';
import { sc } from '../helpers/in-process.js';

const MESSAGES = [
  'bash: pytest: command not found',
  "ModuleNotFoundError: No module named 'requests'",
  'bash: ruff: command not found',
  "ModuleNotFoundError: No module named 'numpy'",
  'bash: mypy: command not found',
  '',
  'error: token ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected at port 8080',
];

describe('sleep-cycle templates', () => {
  it('prints each message\'s template as a JSON line (line numbers of the input), then a summary', async () => {
    const dir = makeDir({ 'messages.txt': MESSAGES.join('\n') });
    const run = await sc(dir, ['templates', 'messages.txt']);
    expect(run.code).toBe(0);
    const printed = run.stdout.trim().split('\n');
    const rows = printed.slice(0, -1).map((line) => JSON.parse(line));
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 7]);
    expect(rows[0]).toEqual({ line: 1, template_id: rows[2].template_id, template: 'bash: <*>: command not found' });
    expect(rows[1].template).toBe("ModuleNotFoundError: No module named '<*>'");
    expect(rows[1].template_id).toBe(rows[3].template_id);
    expect(rows[5].template).not.toContain('ghp_');
    expect(rows[5].template).not.toContain('8080');
    expect(printed.at(-1)).toBe('6 messages, 3 templates');
  });

  it('reads JSONL with --field, from stdin, and gives one envelope with --json', async () => {
    const dir = makeDir({});
    const jsonl = [...MESSAGES.slice(0, 5).map((m) => JSON.stringify({ error_message: m, tool_name: 'Bash' })), 'not json', JSON.stringify({ other: 1 })].join('\n');
    const run = await sc(dir, ['templates', '--field', 'error_message', '--json'], { stdin: jsonl });
    expect(run.code).toBe(0);
    const envelope = JSON.parse(run.stdout);
    expect(envelope.success).toBe(true);
    expect(envelope.data.summary).toEqual({ messages: 5, templates: 2, skipped: 2 });
    expect(envelope.data.templates.map((t: any) => t.template)).toContain('bash: <*>: command not found');
  });

  it('the same messages in another order get the same templates and ids', async () => {
    const dir = makeDir({ 'a.txt': MESSAGES.join('\n'), 'b.txt': [...MESSAGES].reverse().join('\n') });
    const ids = async (file: string) => (JSON.parse((await sc(dir, ['templates', file, '--json'])).stdout).data.templates as any[]).map((t) => `${t.template_id} ${t.template}`).sort();
    expect(await ids('a.txt')).toEqual(await ids('b.txt'));
  });

  it('a missing file is a usage error naming it', async () => {
    const run = await sc(makeDir({}), ['templates', 'nope.txt', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: 'E_USAGE' });
    expect(run.stdout).toContain('nope.txt');
  });

  it('an input of more messages than --limit is refused before any work, with the count and what to do', async () => {
    const dir = makeDir({ 'many.txt': Array.from({ length: 120 }, (_, i) => `error: step ${i} failed`).join('\n') });
    const refused = await sc(dir, ['templates', 'many.txt', '--limit', '100']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('E_USAGE');
    expect(refused.stderr).toContain('120 messages');
    expect(refused.stderr).toContain('--limit');
    const fromStdin = await sc(dir, ['templates', '--limit', '100', '--json'], { stdin: read(dir, 'many.txt') });
    expect(JSON.parse(fromStdin.stdout).error).toMatchObject({ code: 'E_USAGE', details: { limit: 100 } });
    const allowed = await sc(dir, ['templates', 'many.txt', '--limit', '120']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout.trim().split('\n').at(-1)).toBe('120 messages, 1 templates');
    expect((await sc(dir, ['templates', 'many.txt', '--limit', 'lots'])).stderr).toContain('--limit expects a whole number');
  });

  it('a file larger than the limit allows is refused by its size, without reading it', async () => {
    const dir = makeDir({});
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(10 * 512 + 1));
    const run = await sc(dir, ['templates', 'big.txt', '--limit', '10']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('5,121 bytes');
  });

  it('printing into a pipe whose reader has gone (`| head -1`) ends quietly, with no stack trace', async () => {
    const dir = makeDir({ 'm.txt': Array.from({ length: 20_000 }, (_, i) => `error: step ${i} failed`).join('\n') });
    const child = spawn(process.execPath, [CLI, 'templates', 'm.txt'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy(); // the reader leaves after its first chunk, as head does
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toContain('"template":"error: step <*> failed"');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
