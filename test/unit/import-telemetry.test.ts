import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SleepCycleError } from '../../pipeline/model/errors.js';
import { nodeFs } from '../../pipeline/io/fs.js';
import * as append from '../../pipeline/telemetry/append.js';
import { addImportedKeys, emptyImportIndex, importedKeys, parseImportIndex, renderImportIndex } from '../../pipeline/telemetry/import-index.js';
import { importTelemetry, type ImportOptions } from '../../pipeline/telemetry/import-telemetry.js';
import { tempDir } from '../helpers/temp.js';

const NOW = new Date('2026-11-21T03:00:00Z');

const use = (id: string, timestamp: string) => ({ type: 'assistant', sessionId: 's', timestamp, message: { content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: id } }] } });
const result = (id: string, timestamp: string) => ({ type: 'user', sessionId: 's', timestamp, message: { content: [{ type: 'tool_result', tool_use_id: id, content: '<tool_use_error>File does not exist.</tool_use_error>', is_error: true }] } });
const session = (n: number) => Array.from({ length: n }, (_, i) => [use(`toolu_${i}`, `2026-11-20T10:00:0${i % 10}.000Z`), result(`toolu_${i}`, `2026-11-20T10:00:0${i % 10}.100Z`)]).flat();

function setup(): { root: string; options: (source: string, extra?: Partial<ImportOptions>) => ImportOptions; log: () => string[] } {
  const root = tempDir('import-');
  mkdirSync(join(root, 'transcripts', 'nested'), { recursive: true });
  const logPath = join(root, 'logs', 'telemetry.jsonl');
  return {
    root,
    options: (source, extra = {}) => ({ format: 'claude-code', source, logPath, indexPath: join(root, '.sleep-cycle', 'imported.json'), root, fs: nodeFs, now: NOW, ...extra }),
    log: () => readFileSync(logPath, 'utf8').trim().split('\n'),
  };
}

describe('importTelemetry', () => {
  it('appends in batches of one write each, and a re-import appends nothing', async () => {
    const { root, options } = setup();
    writeFileSync(join(root, 'transcripts', 'a.jsonl'), session(5).map((l) => JSON.stringify(l)).join('\n'));
    const spy = vi.spyOn(append, 'appendTelemetry');
    const first = await importTelemetry(options(join(root, 'transcripts'), { batchSize: 2 }));
    expect(first).toMatchObject({ files: 1, calls: 5, failures: 5, appended: 5, skipped_duplicates: 0 });
    expect(spy.mock.calls.map(([, events]) => events.length)).toEqual([2, 2, 1]);
    spy.mockRestore();
    const before = readFileSync(join(root, 'logs', 'telemetry.jsonl'));
    const second = await importTelemetry(options(join(root, 'transcripts')));
    expect(second).toMatchObject({ calls: 5, appended: 0, skipped_duplicates: 5 });
    expect(readFileSync(join(root, 'logs', 'telemetry.jsonl'))).toEqual(before);
    const index = JSON.parse(readFileSync(join(root, '.sleep-cycle', 'imported.json'), 'utf8'));
    expect(index.files['transcripts/a.jsonl']).toEqual({ format: 'claude-code', imported_at: NOW.toISOString(), keys: ['toolu_0', 'toolu_1', 'toolu_2', 'toolu_3', 'toolu_4'] });
  });

  it('appends only the new calls of a transcript that grew, and skips a session already imported from another file', async () => {
    const { root, options, log } = setup();
    const jsonl = join(root, 'transcripts', 'a.jsonl');
    writeFileSync(jsonl, session(2).map((l) => `${JSON.stringify(l)}\n`).join(''));
    await importTelemetry(options(jsonl));
    writeFileSync(jsonl, session(3).map((l) => `${JSON.stringify(l)}\n`).join(''));
    expect(await importTelemetry(options(jsonl))).toMatchObject({ calls: 3, appended: 1, skipped_duplicates: 2 });
    // The same session dumped as a JSON array by a hook script: the tool_use ids are already known.
    writeFileSync(join(root, 'transcripts', 'nested', 'chat.json'), JSON.stringify(session(3)));
    expect(await importTelemetry(options(join(root, 'transcripts')))).toMatchObject({ files: 2, calls: 6, appended: 0, skipped_duplicates: 6 });
    expect(log()).toHaveLength(3);
  });

  it('never reads the telemetry file it appends to, and says clearly when the source is missing', async () => {
    const { root, options } = setup();
    writeFileSync(join(root, 'transcripts', 'a.jsonl'), session(1).map((l) => JSON.stringify(l)).join('\n'));
    const summary = await importTelemetry(options(root, { logPath: join(root, 'transcripts', 'telemetry.jsonl') }));
    expect(summary.files).toBe(1);
    const missing = importTelemetry(options(join(root, 'nope')));
    await expect(missing).rejects.toBeInstanceOf(SleepCycleError);
    await expect(missing).rejects.toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('no such file or folder') });
  });
});

describe('the import index', () => {
  it('round-trips, checks every key across files, and forgets the oldest files first above its bound', () => {
    let index = emptyImportIndex();
    index = addImportedKeys(index, 'b.jsonl', 'claude-code', ['k1', 'k2'], new Date('2026-01-01T00:00:00Z'), 5);
    index = addImportedKeys(index, 'a.jsonl', 'claude-code', ['k3', 'k4'], new Date('2026-01-02T00:00:00Z'), 5);
    expect(parseImportIndex(renderImportIndex(index), 'x')).toEqual(index);
    expect(Object.keys(JSON.parse(renderImportIndex(index)).files)).toEqual(['a.jsonl', 'b.jsonl']);
    expect(importedKeys(index)).toEqual(new Set(['k1', 'k2', 'k3', 'k4']));
    index = addImportedKeys(index, 'c.traj.json', 'mini-swe-agent', ['i:1', 'i:2'], new Date('2026-01-03T00:00:00Z'), 5);
    expect(Object.keys(index.files).sort()).toEqual(['a.jsonl', 'c.traj.json']);
    index = addImportedKeys(index, 'c.traj.json', 'mini-swe-agent', ['i:3', 'i:4', 'i:5', 'i:6'], new Date('2026-01-04T00:00:00Z'), 5);
    expect(index.files).toEqual({ 'c.traj.json': { format: 'mini-swe-agent', imported_at: '2026-01-04T00:00:00.000Z', keys: ['i:2', 'i:3', 'i:4', 'i:5', 'i:6'] } });
  });

  it('treats a missing index as empty and refuses a damaged one with a fix', () => {
    expect(parseImportIndex(undefined, 'p')).toEqual(emptyImportIndex());
    expect(() => parseImportIndex('{"version": 2}', '.sleep-cycle/imported.json')).toThrow(/imported\.json: is not a valid import index.*Delete it/);
  });
});
