import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, sc } from '../helpers/in-process.js';
import { failures, lines, makeDir, read } from '../helpers/repo.js';

/** A control character a terminal or a markdown viewer would act on (see stripControls). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const HOSTILE = [
  'fatal: \u001b[31mremote rejected\u001b[0m the push',
  'fatal: see \u001b]8;;https://evil.example\u0007the docs\u001b]8;;\u0007 for the fix',
  'fatal: lock held\rall checks passed',
  'fatal: access \u202edenied\u202c for the \u2066user\u2069',
  'fatal: \u009b2J cleared \u0007 bell',
];

describe('control characters never reach a human-facing output', () => {
  it('the report (PR body), run, list, explain, status, stats, review and log: none carries an escape, a C0/C1 control or a bidi override', async () => {
    const events = HOSTILE.flatMap((message, k) => failures(3, { error_message: message, tool_name: `tool_${k}`, error_category: `cat_${k}` }));
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...events) }, { git: true });
    expect(read(dir, 'logs/telemetry.jsonl')).toContain('\\u001b[31m');
    const run = await sc(dir, ['run']);
    expect(run.code, run.stderr).toBe(0);
    const json = await cli(dir, ['list']);
    const ids: string[] = json.json.data.rules.map((rule: { id: string }) => rule.id);
    expect(ids.length).toBeGreaterThan(0);
    const outputs: [string, string][] = [['report', read(dir, 'proposed_memory_updates.md')], ['run', run.stdout + run.stderr]];
    for (const args of [['list'], ['status'], ['stats'], ['review'], ['log'], ...ids.map((id) => ['explain', id])]) {
      const out = await sc(dir, args);
      outputs.push([args.join(' '), out.stdout + out.stderr]);
    }
    for (const [name, text] of outputs) expect(text, name).not.toMatch(CONTROL);
    // The text around the escapes is still there, for a reviewer to read.
    expect(outputs.map(([, text]) => text).join('\n')).toContain('remote rejected');
  });

  it('error messages: a value with escapes in a hand-edited state.json is shown without them', async () => {
    const dir = makeDir({ 'logs/telemetry.jsonl': lines(...failures(3, {})) }, { git: true });
    expect((await cli(dir, ['run'])).code).toBe(0);
    const path = join(dir, '.sleep-cycle/state.json');
    const state = JSON.parse(read(dir, '.sleep-cycle/state.json'));
    state.last_sleep = '\u001b[2J\u001b]0;owned\u0007\u202enot-a-date';
    writeFileSync(path, JSON.stringify(state));
    for (const args of [['run'], ['status'], ['list']]) {
      const text = await sc(dir, args);
      expect(text.code, args.join(' ')).toBe(1);
      expect(text.stderr).toContain('E_STATE');
      expect(text.stderr, args.join(' ')).not.toMatch(CONTROL);
      const json = await cli(dir, args);
      expect(json.json.error.message, args.join(' ')).not.toMatch(CONTROL);
    }
  });
});
