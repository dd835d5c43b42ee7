import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCommandSpec } from '../../pipeline/cli/import-command.js';
import type { HookDay } from '../../pipeline/cli/hook-day.js';
import { mayRemind } from '../../pipeline/cli/hook-keys.js';
import { readHookMemory } from '../../pipeline/cli/hook-memory.js';
import { failureKeyOf } from '../../pipeline/ingest/failure-key.js';
import { fixedClock } from '../../pipeline/io/clock.js';
import { nodeFs } from '../../pipeline/io/fs.js';
import { findReminder } from '../../pipeline/memory/reminder.js';
import { defaultSettings } from '../../pipeline/settings/schema.js';
import type { State } from '../../pipeline/memory/state.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { runCommandInProcess } from '../helpers/command.js';
import { cli } from '../helpers/in-process.js';
import { makeDir, PACKAGE_ROOT, read } from '../helpers/repo.js';

/**
 * The day's hook keys a failure with its own code (ingest/failure-key.ts, memory/reminder.ts) to find
 * the rule the night wrote for that failure's cluster (ingest/cluster.ts, by-template.ts, the miner).
 * The two must agree, or a reminder never comes (or the wrong rule comes). Checked on real agent
 * failures: each distinct failure of the shared data, seen three times in three sessions, makes one
 * night; the hook's lookup on that same failure must return the one rule that night wrote.
 */
const DATA = join(PACKAGE_ROOT, '..', 'shared', 'data');
const POLICY = read(PACKAGE_ROOT, 'config/safety-rules.yaml');
const MEMORY = '# Project memory\n\n## Derived Rules\n';
const SOURCES: [string, string][] = [
  ['mini-swe-agent', 'mini-swe-agent-gemini3-dev/trajs'],
  ['claude-code', 'claude-code-attio-mcp-server'],
  ['claude-code', 'claude-code-session-share-samples'],
  ['claude-code', 'claude-code-hooks-misc'],
];

function repo(): string {
  return makeDir({ 'MEMORY.md': MEMORY, 'config/safety-rules.yaml': POLICY }, { git: true });
}

/** Every failure the importers read from the shared data, one per distinct tool + message. */
async function realFailures(): Promise<TelemetryEvent[]> {
  const dir = repo();
  for (const [format, path] of SOURCES) {
    const source = join(DATA, path);
    if (!existsSync(source)) continue;
    const run = await runCommandInProcess(dir, (deps) => importCommandSpec.action([format, source], { json: true }, deps), { json: true });
    expect(run.code).toBe(0);
  }
  const events = readFileSync(join(dir, 'logs', 'telemetry.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as TelemetryEvent);
  const seen = new Set<string>();
  return events.filter((event) => {
    if (!event.error_message || event.error_category === 'benign' || event.error_category === 'interrupted') return false;
    const key = `${event.tool_name}\u0000${event.input_summary ?? ''}\u0000${event.error_message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A deterministic spread of `n` items (every k-th), so the test covers all sources in bounded time. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

describe.skipIf(!existsSync(DATA))('the day finds the rule the night wrote for a real failure', () => {
  it('each distinct real failure, seen 3 times in one night with all the others, is found by the hook\'s key in the rule whose evidence holds it', async () => {
    const failures = spread(await realFailures(), 45);
    expect(failures.length).toBeGreaterThanOrEqual(30);
    const dir = makeDir({ 'MEMORY.md': MEMORY, 'config/safety-rules.yaml': POLICY, 'logs/.keep': '' }, { git: true });
    const hash = (i: number, k: number) => (i * 3 + k + 1).toString(16).padStart(16, '0');
    const lines = failures.flatMap((failure, i) => [0, 1, 2].map((k) => JSON.stringify({
      ...failure, timestamp: `2026-11-20T0${k + 1}:${String(i).padStart(2, '0')}:00.000Z`, session_id: `agreement-${i % 7}-${k}`, input_hash: hash(i, k),
    })));
    writeFileSync(join(dir, 'logs', 'telemetry.jsonl'), `${lines.join('\n')}\n`);
    // Every sample kept and every rule written tonight, so each failure's rule can be found by its evidence.
    const night = await cli(dir, ['run', '--offline'], '2026-11-21T03:00:00Z', { SLEEP_CYCLE_SAMPLE_SIZE: '50', SLEEP_CYCLE_MAX_NEW_RULES: '1000' });
    expect(night.code, night.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(dir, '.sleep-cycle', 'state.json'), 'utf8')) as State;
    const rules = Object.values(state.rules);
    // The hook's own path: its index and quick list built from the files, as a PostToolUseFailure reads them.
    const day: HookDay = { root: dir, settings: defaultSettings(), fs: nodeFs, clock: fixedClock('2026-11-22T09:00:00Z'), arrival: new Date('2026-11-22T09:00:00Z') };
    const memory = await readHookMemory(day);
    let checked = 0;
    const missed: string[] = [];
    for (const [i, failure] of failures.entries()) {
      const own = new Set([0, 1, 2].map((k) => hash(i, k)));
      const written = rules.filter((rule) => rule.provenance.evidence.some((e) => own.has(e.input_hash)));
      expect(written.length).toBeLessThanOrEqual(1);
      if (written.length === 0) continue; // held for a human, or its samples did not fit: nothing to check
      checked += 1;
      const found = (await mayRemind(failure, day, () => failure.error_category ?? 'uncategorized')) ? findReminder(memory.rules, failureKeyOf(failure), memory.templates) : null;
      if (found?.id !== written[0]!.id) missed.push(`${failure.tool_name}: ${failure.error_message!.slice(0, 80)} → ${found?.id ?? 'no rule'} (the night's rule ${written[0]!.id} is for ${written[0]!.tool_name}/${written[0]!.error_category})`);
    }
    if (missed.length > 0 && process.env.AGREEMENT_DEBUG) writeFileSync(process.env.AGREEMENT_DEBUG, JSON.stringify({ dir, failures, state }, null, 1));
    expect(missed).toEqual([]);
    // Most real failures do get a rule found this way (else this test checks little).
    expect(checked).toBeGreaterThanOrEqual(Math.floor(failures.length / 2));
  }, 120_000);
});
