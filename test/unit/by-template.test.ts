import { describe, expect, it } from 'vitest';
import { clustersByTemplate } from '../../pipeline/ingest/by-template.js';
import { IngestFold, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { TemplateMiner } from '../../pipeline/templates/miner.js';
import { event } from '../helpers/repo.js';

const settings: FoldSettings = { sample_size: 5, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
const segment = { file: 'log', cutoff: null };

function night(events: string[]) {
  const fold = new IngestFold(settings, {}, { scanAfterLines: 0 });
  events.forEach((text, i) => fold.line({ text, offset: i * 1000 } as never, segment));
  return clustersByTemplate(fold.builder, new TemplateMiner(), fold.limits, fold.recovery.result());
}

const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.000Z`;
const fail = (minute: number, session: string, command: string, message: string) =>
  event({ timestamp: at(minute), tool_name: 'Bash', exit_code: 1, error_category: 'dependency_missing', error_message: message, session_id: session, input_summary: command, input_hash: `h${minute}` });
const ok = (minute: number, session: string, command: string) => event({ timestamp: at(minute), tool_name: 'Bash', session_id: session, input_summary: command, input_hash: `o${minute}` });

const EVENTS = [
  fail(1, 's1', 'cd app && pytest -q', 'bash: line 1: pytest: command not found'),
  ok(2, 's1', 'python -m pytest -q'),
  fail(3, 's2', 'pytest tests/test_a.py', 'bash: line 1: pytest: command not found'),
  ok(4, 's2', 'ls'),
  ok(5, 's2', 'python -m pytest tests/test_a.py'),
  fail(6, 's3', 'python3 x.py', "ModuleNotFoundError: No module named 'requests'"),
  fail(7, 's3', 'python x.py', "ModuleNotFoundError: No module named 'yaml'"),
  fail(8, 's4', 'python3.11 y.py', "Traceback (most recent call last):\n  File \"y.py\", line 1\nModuleNotFoundError: No module named 'numpy'"),
];

describe('a night\'s failures by tool family, category and template', () => {
  it('groups by the program that failed and the error template, and records what worked next', () => {
    const clusters = night(EVENTS);
    const byTool = Object.fromEntries(clusters.map((c) => [c.tool_name, c]));
    expect(Object.keys(byTool).sort()).toEqual(['pytest', 'python']);
    expect(byTool.pytest).toMatchObject({ count: 2, template: 'bash: line <*>: pytest: command not found', error_category: 'dependency_missing' });
    expect(byTool.pytest!.follow_ups).toEqual([{ shape: 'python -m pytest', count: 2, sessions: ['s1', 's2'] }]);
    // python, python3 and python3.11 are one family; the module names are the template's variable.
    expect(byTool.python).toMatchObject({ count: 3, template: "ModuleNotFoundError: No module named '<*>'" });
    expect(byTool.python!.template_id).toMatch(/^t-[0-9a-f]{12}$/);
    expect(byTool.python!.family_id).toMatch(/^c-/);
  });

  it('gives the same clusters, ids and templates whatever order the failures were read in', () => {
    const strip = (cs: ReturnType<typeof night>) => cs.map(({ id, template_id, template, count, tool_name }) => ({ id, template_id, template, count, tool_name }));
    expect(strip(night([...EVENTS].reverse()))).toEqual(strip(night(EVENTS)));
  });
});
