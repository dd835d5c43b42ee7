import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IngestFold, type FoldSegment, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { mergePartial, rangeFold, settledBy, toPartial } from '../../pipeline/ingest/merge.js';
import type { RuleEffectInput } from '../../pipeline/ingest/rule-effect.js';
import type { HookRule } from '../../pipeline/memory/hook-index.js';
import { clusterId } from '../../pipeline/model/cluster.js';
import { splitLines } from '../helpers/night-log.js';

/**
 * Did it work, as ingest counts it (issue 15 item 4): calls per tool family, and per rule shown to the
 * agent the calls and failures after it was shown in a session, and the next call after a reminder.
 */
const SETTINGS: FoldSettings = { sample_size: 3, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
const SEGMENT: FoldSegment = { file: 'logs/telemetry.jsonl', cutoff: null };
const RULE = 'r-00000000000000aa';
const OTHER = 'r-00000000000000bb';

function hookRule(id: string, tool: string, category: string): HookRule {
  return {
    id, kind: 'failure', tool_name: tool, error_category: category, cluster_id: clusterId('failure', tool, category), text: `Rule ${id}.`, target: 'memory',
    state: 'active', pinned: false, hits: 0, status: 'active', weight: 1, template_id: null, covers: [], count: 3,
  };
}
const EFFECT: RuleEffectInput = { rules: { [RULE]: hookRule(RULE, 'pytest', 'dependency_missing'), [OTHER]: hookRule(OTHER, 'Edit', 'edit_error') }, templates: undefined };

let n = 0;
const at = () => new Date(Date.UTC(2026, 10, 21, 9, 0, n++)).toISOString();
const bash = (session: string, command: string, ok: boolean) => JSON.stringify({
  timestamp: at(), tool_name: 'Bash', input_hash: `h${n}`, exit_code: ok ? 0 : 127, duration_ms: 5, session_id: session, input_summary: command,
  ...(ok ? {} : { error_category: 'dependency_missing', error_message: 'Exit code 127\nbash: pytest: command not found' }),
});
const tool = (session: string, name: string, ok = true) => JSON.stringify({
  timestamp: at(), tool_name: name, input_hash: `h${n}`, exit_code: ok ? 0 : 1, duration_ms: 5, session_id: session,
  ...(ok ? {} : { error_category: 'edit_error', error_message: 'String to replace not found in file.' }),
});
const shown = (session: string, kind: 'session_start' | 'reminder', ...rules: string[]) => JSON.stringify({
  timestamp: at(), tool_name: 'sleep-cycle', input_hash: `x${n}`, exit_code: 0, duration_ms: 0, session_id: session, agent: 'sleep-cycle', memory_refs: rules, exposure: kind,
});

function fold(lines: string[], effect: RuleEffectInput | null = EFFECT): IngestFold {
  const folded = new IngestFold(SETTINGS, {}, effect ? { effect } : {});
  for (const line of splitLines(`${lines.join('\n')}\n`, 4096)) folded.line(line, SEGMENT);
  return folded;
}

describe('calls per tool family', () => {
  it('counts a shell call by the program its command line runs, other tools by their own family; exposure lines are no calls', () => {
    const night = fold([
      bash('s1', 'pytest -q', false), bash('s1', 'python -m pytest -q', true), bash('s1', 'cd app && git status', true),
      tool('s1', 'mcp__github__list_prs'), tool('s1', 'mcp__github__get_pr'), tool('s1', 'Read'), shown('s1', 'session_start', RULE),
    ], null);
    const usage = night.usage.finish(night.toolName);
    expect({ ...usage.families }).toEqual({ pytest: 2, git: 1, mcp__github: 2, Read: 1 });
    expect({ ...usage.tools }).toEqual({ Bash: 3, mcp__github__list_prs: 1, mcp__github__get_pr: 1, Read: 1 });
  });
});

describe('calls after a rule was shown', () => {
  it('counts calls of the rule\'s family from the moment it is shown in a session, its cluster\'s failures among them, and the next call after a reminder', () => {
    const night = fold([
      // s1: the failure comes before the reminder (not exposed); the next pytest call succeeds.
      bash('s1', 'pytest -q', false), shown('s1', 'reminder', RULE), tool('s1', 'Read'), bash('s1', 'python -m pytest -q', true),
      // s2: injected at start; fails once (exposed failure), then a Read (another family) and a success.
      shown('s2', 'session_start', RULE, OTHER), bash('s2', 'pytest', false), tool('s2', 'Read'), bash('s2', 'python -m pytest', true),
      // s3: never shown the rule: nothing is followed.
      bash('s3', 'pytest', false), bash('s3', 'python -m pytest', true),
      // s4: reminded, and the next pytest call fails again.
      shown('s4', 'reminder', RULE), bash('s4', 'pytest -x', false),
    ]);
    expect(night.effect!.finish()).toEqual({
      [RULE]: { exposed_calls: 4, exposed_failures: 2, reminder_next_ok: 1, reminder_next_failed: 1 },
    });
    expect(night.usage.finish(night.toolName).families.pytest).toBe(7);
  });

  it('a failure of another cluster of the same family is an exposed call, not an exposed failure', () => {
    const other = JSON.stringify({ timestamp: at(), tool_name: 'Bash', input_hash: 'h-other', exit_code: 1, duration_ms: 5, session_id: 's1', input_summary: 'pytest', error_category: 'test_failure', error_message: 'E   AssertionError: assert 1 == 2' });
    const night = fold([shown('s1', 'session_start', RULE), other]);
    expect(night.effect!.finish()).toEqual({ [RULE]: { exposed_calls: 1, exposed_failures: 0, reminder_next_ok: 0, reminder_next_failed: 0 } });
  });

  it('follows nothing without rules in memory, and ignores exposures of rules it does not know', () => {
    expect(fold([shown('s1', 'session_start', RULE), bash('s1', 'pytest', false)], null).effect).toBeNull();
    const night = fold([shown('s1', 'session_start', 'r-00000000000000cc'), bash('s1', 'pytest', false)]);
    expect(night.effect!.active).toBe(false);
    expect(night.effect!.finish()).toEqual({});
  });
});

/** Everything the night keeps of usage and effect. */
function outcome(folded: IngestFold) {
  return { usage: folded.usage.finish(folded.toolName), effect: folded.effect?.finish() ?? null, lines: folded.lines };
}

const lineArb = fc.tuple(fc.constantFrom('s1', 's2', 's3'), fc.integer({ min: 0, max: 7 })).map(([session, kind]) => () => [
  bash(session, 'pytest -q', false), bash(session, 'python -m pytest', true), bash(session, 'git status', true), tool(session, 'Read'),
  tool(session, 'Edit', false), shown(session, 'session_start', RULE), shown(session, 'reminder', RULE), shown(session, 'reminder', OTHER),
][kind]!);

describe('a night folded in two and merged gives what one fold gives (with rules followed)', () => {
  it('merges when nothing crosses the split, and is refused (then read in order) when a session shown a rule does', () => {
    let merged = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 2, maxLength: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), (makers, where) => {
        const lines = splitLines(`${makers.map((make) => make()).join('\n')}\n`, 4096);
        const whole = new IngestFold(SETTINGS, {}, { effect: EFFECT });
        for (const line of lines) whole.line(line, SEGMENT);
        const split = Math.floor(where * lines.length);
        const main = new IngestFold(SETTINGS, {}, { effect: EFFECT });
        for (const line of lines.slice(0, split)) main.line(line, SEGMENT);
        const worker = rangeFold({ absolute: '/unused', segment: SEGMENT, settings: SETTINGS, maxLineBytes: 4096, baselines: {} }, settledBy(main));
        for (const line of lines.slice(split)) worker.line(line, SEGMENT);
        if (mergePartial(main, structuredClone(toPartial(worker, 0)))) merged += 1;
        else {
          refused += 1;
          for (const line of lines.slice(split)) main.line(line, SEGMENT);
        }
        expect(outcome(main)).toEqual(outcome(whole));
      }),
      { seed: 20_261_127, numRuns: 200 },
    );
    expect(merged).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
