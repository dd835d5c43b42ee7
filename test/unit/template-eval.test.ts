import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOGHUB_SYSTEMS, loadLoghub, parseCsv } from '../../bench/eval-loghub.mjs';
import { groupingAccuracy, normaliseTemplate, parsingAccuracy } from '../../bench/eval-metrics.mjs';
import { evaluate, renderText } from '../../bench/eval-report.mjs';
import { mineTemplates } from '../../pipeline/templates/mine.js';
import { TemplateMiner } from '../../pipeline/templates/miner.js';
import { signatureKey } from '../../pipeline/templates/signature.js';
import { tempDir } from '../helpers/temp.js';

const tmp = tempDir('template-eval-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('eval metrics', () => {
  it('GA counts the messages of groups found exactly; FGA is the F1 of groups found exactly', () => {
    // True groups a (2), b (1), c (1); predicted x = a exactly, y = b + c.
    const r = groupingAccuracy(['a', 'a', 'b', 'c'], ['x', 'x', 'y', 'y']);
    expect(r.ga).toBe(0.5);
    // precision 1/2, recall 1/3 → 2·(1/6)/(5/6) = 0.4
    expect(r.fga).toBeCloseTo(0.4, 10);
    expect(groupingAccuracy(['a', 'b'], ['p', 'q'])).toMatchObject({ ga: 1, fga: 1 });
    expect(groupingAccuracy(['a', 'a'], ['p', 'q'])).toMatchObject({ ga: 0, fga: 0 });
  });

  it('PA compares templates after collapsing whitespace and runs of <*>', () => {
    expect(normaliseTemplate('  a  <*> <*><*>  b ')).toBe('a <*> b');
    expect(parsingAccuracy(['x <*> <*> y', 'z'], ['x <*> y', 'z <*>'])).toBe(0.5);
  });

  it('reads CSV as Python does: quotes open a field only at its start, doubled quotes inside', () => {
    expect(parseCsv('a,b\n1,"x, ""y"""\n2,say "hi"\r\n')).toEqual([['a', 'b'], ['1', 'x, "y"'], ['2', 'say "hi"']]);
  });
});

describe('the Loghub loader', () => {
  it('skips with a reason when the data is absent', () => {
    expect(loadLoghub(join(tmp, 'nothing'))).toEqual({ skipped: `no Loghub-2k data at ${join(tmp, 'nothing', 'loghub-2k')}` });
  });

  it('takes groups from the original file and, for PA and the corrected grouping, the corrected template that fits each group', () => {
    const root = join(tmp, 'data');
    for (const name of LOGHUB_SYSTEMS as string[]) {
      const dir = join(root, 'loghub-2k', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}_2k.log_structured.csv`), [
        'LineId,Content,EventId,EventTemplate',
        '1,Served block blk_1 to 10.0.0.1,E1,Served block blk_<*> to <*>',
        '2,Served block blk_2 to 10.0.0.2,E1,Served block blk_<*> to <*>',
        '3,"Deleting block, size 3",E2,"Deleting block, size <*>"',
      ].join('\n'));
      const fixed = join(root, 'loghub-2k-corrected-icse22', name);
      mkdirSync(fixed, { recursive: true });
      // The most literal of the corrected templates that fit a group is its template; a broken quote is read whole.
      writeFileSync(join(fixed, `${name}_2k.log_templates_corrected.csv`), 'EventId,EventTemplate\nE1,<*> block <*>\nE2,Served block <*> to <*>\nE3,"Deleting block, size <*>\nE4,never\n');
    }
    const loaded = loadLoghub(root);
    expect(loaded.systems).toHaveLength(12);
    expect(loaded.systems[0].lines).toEqual([
      { content: 'Served block blk_1 to 10.0.0.1', group: 'E1', correctedGroup: 'Served block <*> to <*>', template: 'Served block <*> to <*>' },
      { content: 'Served block blk_2 to 10.0.0.2', group: 'E1', correctedGroup: 'Served block <*> to <*>', template: 'Served block <*> to <*>' },
      { content: 'Deleting block, size 3', group: 'E2', correctedGroup: 'Deleting block, size <*>', template: 'Deleting block, size <*>' },
    ]);
    expect(loaded.systems[0].unmapped).toBe(0);
  });
});

describe('the eval report', () => {
  const lib = { mineTemplates, TemplateMiner, signatureKey };
  const lines = [
    ...['pytest', 'ruff', 'mypy', 'tsc'].map((cmd) => ({ content: `bash: ${cmd}: command not found`, group: 'not-found', template: 'bash: <*>: command not found' })),
    ...['a', 'b'].map((m) => ({ content: `ModuleNotFoundError: No module named '${m}'`, group: 'no-module', template: "ModuleNotFoundError: No module named '<*>'" })),
    { content: 'session opened for user root', group: 'opened', template: 'session opened for user root' },
    { content: 'session closed for user root', group: 'closed', template: 'session closed for user root' },
  ];

  it('scores the miner and both baselines on the same lines', () => {
    const result = evaluate({ name: 'tiny', systems: [{ name: 'agent', lines }] }, lib);
    const s = result.systems[0];
    expect(s.miner).toMatchObject({ ga: 1, fga: 1, pa: 1, groups: 4, truth_groups: 4 });
    expect(s.online).toMatchObject({ ga: 1, fga: 1 });
    // Exact strings find only the two one-message groups: 2 of 8 messages, 2 of 8 predicted groups, 2 of 4 true.
    expect(s.exact.ga).toBe(0.25);
    expect(s.exact.fga).toBeCloseTo((2 * (2 / 8) * (2 / 4)) / (2 / 8 + 2 / 4), 10);
    expect(result.mean.miner.ga).toBe(1);
    const text = renderText({ datasets: [result, { name: 'agent-failures', skipped: 'no labelled set yet' }], speed: null });
    expect(text).toMatch(/^agent\s+8 \|\s+1\.000\s+1\.000\s+1\.000\s+4\/4/m);
    expect(text).toContain('skipped: no labelled set yet');
  });
});
