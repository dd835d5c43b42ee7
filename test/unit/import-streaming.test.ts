import { createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readClaudeCodeCalls } from '../../pipeline/telemetry/import-claude-code.js';
import { countItem, emptyCounts } from '../../pipeline/telemetry/import-source.js';
import { tempDir } from '../helpers/temp.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;

/** A JSON-array dump of `pairs` tool calls whose results carry ~20 KB of text each, written in pieces. */
async function writeDump(path: string, pairs: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)));
  const filler = 'lorem ipsum dolor sit amet '.repeat(750);
  await write('[\n');
  for (let i = 0; i < pairs; i += 1) {
    const ts = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const call = { type: 'assistant', sessionId: 'big', timestamp: ts, message: { content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `/f/${i}` } }] } };
    const result = { type: 'user', sessionId: 'big', timestamp: ts, message: { content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${i}: ${filler}`, is_error: i % 10 === 0 }] } };
    await write(`${i === 0 ? '' : ',\n'}${JSON.stringify(call)},\n${JSON.stringify(result)}`);
  }
  await write('\n]\n');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

describe('a JSON-array transcript dump is streamed', () => {
  it('imports a 50 MB dump while the live heap grows by a small fraction of the file size', async () => {
    const path = join(tempDir('cc-stream-'), 'chat.json');
    await writeDump(path, 2_560);
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(50 * MB);

    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    const counts = emptyCounts();
    let seen = 0;
    for await (const item of readClaudeCodeCalls(path)) {
      countItem(counts, item);
      // Measure what stays alive (after a full collection), not garbage waiting to be collected.
      if (++seen % 256 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(counts).toMatchObject({ calls: 2_560, failures: 256, invalid: 0, unpaired: 0 });
    // Loading it whole would hold ≥ 50 MB of text plus the parsed objects; streaming keeps one element.
    expect(peak).toBeLessThan(size / 10);
  }, 120_000);
});
