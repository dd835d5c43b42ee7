import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestFold, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { callShape, RecoveryTracker } from '../../pipeline/ingest/recovery.js';
import { isShellTool, toolFamily } from '../../pipeline/telemetry/tool-family.js';
import { splitLines } from '../helpers/night-log.js';

/**
 * The fold reads a success's session only when a failure waits, and builds its event only when its
 * shape can be cited. What worked next must be exactly what a tracker told every call in full gives:
 * the family and shape of each success, and each failure with its cluster.
 */
const SETTINGS: FoldSettings = { sample_size: 3, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
const BASE = Date.parse('2026-11-01T00:00:00.000Z');

const call = fc.record({
  session: fc.constantFrom('s1', 's2', 's3', undefined),
  tool: fc.constantFrom('Bash', 'Read', 'Edit', 'python3', 'git_push'),
  summary: fc.constantFrom(undefined, 'pytest -q', 'python -m pytest tests', 'cd app && npm test', 'git status', 'ls /tmp'),
  fails: fc.boolean(),
  message: fc.constantFrom('bash: line 1: pytest: command not found', 'Traceback (most recent call last):\nValueError: bad 3', 'fatal: not a git repository', 'File does not exist.'),
});

function line(c: { session: string | undefined; tool: string; summary: string | undefined; fails: boolean; message: string }, i: number): string {
  return JSON.stringify({
    timestamp: new Date(BASE + i * 1000).toISOString(),
    tool_name: c.tool,
    input_hash: `h${i % 7}`,
    exit_code: c.fails ? 1 : 0,
    duration_ms: 10,
    ...(c.fails ? { error_category: 'x', error_message: c.message } : {}),
    ...(c.session ? { session_id: c.session } : {}),
    ...(c.summary ? { input_summary: c.summary } : {}),
  });
}

describe('what worked next, as the fold finds it', () => {
  it('equals a tracker given every call with its family and shape', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 60 }), fc.boolean(), (calls, scanner) => {
        const text = `${calls.map(line).join('\n')}\n`;
        const fold = new IngestFold(SETTINGS, {}, { scanAfterLines: scanner ? 0 : 1_000_000 });
        const lines = splitLines(text, 4096);
        for (const raw of lines) fold.line(raw, { file: 'logs/t.jsonl', cutoff: null });
        // Every call in full, in order: failures with the cluster keys a builder gives them.
        const again = new IngestFold(SETTINGS, {});
        const replay = new RecoveryTracker();
        calls.forEach((c, i) => {
          const raw = lines[i]!;
          if (c.fails) {
            const event = JSON.parse(text.split('\n')[i]!);
            const cluster = again.builder.add('failure', event, BASE + i * 1000, { file: 'logs/t.jsonl', offset: raw.offset });
            if (c.session !== undefined && cluster !== null) replay.observe({ session: c.session, family: cluster.tool, failure: cluster.key, shape: null });
          } else if (c.session !== undefined) {
            const family = isShellTool(c.tool) ? toolFamily(c.tool, c.summary) : toolFamily(c.tool);
            replay.observe({ session: c.session, family, failure: null, shape: callShape(c.tool, c.summary) });
          }
        });
        expect(fold.recovery.result()).toEqual(replay.result());
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});
