import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { humanLines, orderRules, parseMemory } from '../../pipeline/memory/memory-md.js';
import { orderTargets, rankRules } from '../../pipeline/memory/order.js';
import { parseSkillRules } from '../../pipeline/memory/skills-yaml.js';
import type { LedgerEntry } from '../../pipeline/memory/state.js';

const MEMORY = [
  '# Project memory',
  '',
  '- Node 20 and npm only; never commit a `yarn.lock`.',
  '- TypeScript is `strict`. Do not silence errors with `any`;',
  '  use `unknown` plus a type guard.',
  '',
  '```sh',
  'rm -rf dist',
  '```',
  '',
  '## Derived Rules',
  '',
  '<!-- Owned by sleep-cycle. -->',
  '- first rule <!-- rule:r-aaaaaa -->',
  'A human note inside the section.',
  '- second rule <!-- rule:r-bbbbbb -->',
  '- third rule <!-- rule:r-cccccc -->',
  '',
].join('\r\n');

function rule(id: string, weight: number, pinned = false): LedgerEntry {
  return { id, target: 'memory', state: 'active', weight, pinned, cluster_id: 'c-1', text: id } as LedgerEntry;
}

describe('human lines', () => {
  it('are the bullets and paragraphs a human wrote, wrapped lines joined, numbered by their first line', () => {
    expect(humanLines(MEMORY)).toEqual([
      { line: 3, text: 'Node 20 and npm only; never commit a `yarn.lock`.' },
      { line: 4, text: 'TypeScript is `strict`. Do not silence errors with `any`; use `unknown` plus a type guard.' },
      { line: 15, text: 'A human note inside the section.' },
    ]);
  });
});

describe('rule order', () => {
  it('moves only the rule bullets, into each other\'s slots; every other line and line ending stays', () => {
    const ordered = orderRules(MEMORY, ['r-cccccc', 'r-aaaaaa', 'r-bbbbbb']);
    expect(parseMemory(ordered).rules.map((r) => r.id)).toEqual(['r-cccccc', 'r-aaaaaa', 'r-bbbbbb']);
    expect(ordered.split('\r\n')[14]).toBe('A human note inside the section.');
    expect(ordered.split('\r\n').filter((l) => !l.includes('rule:r-'))).toEqual(MEMORY.split('\r\n').filter((l) => !l.includes('rule:r-')));
    expect(orderRules(MEMORY, ['r-aaaaaa', 'r-bbbbbb', 'r-cccccc'])).toBe(MEMORY);
  });

  it('leaves a bullet it does not know (an id written by hand) in its place', () => {
    const ordered = orderRules(MEMORY, ['r-cccccc', 'r-aaaaaa']);
    expect(parseMemory(ordered).rules.map((r) => r.id)).toEqual(['r-cccccc', 'r-bbbbbb', 'r-aaaaaa']);
  });

  it('ranks pinned rules first, then by weight, ties by id', () => {
    const rules = { a: rule('r-aaaaaa', 0.4), b: rule('r-bbbbbb', 0.9), c: rule('r-cccccc', 0.4), d: rule('r-dddddd', 0.1, true) };
    expect(rankRules(rules, 'memory')).toEqual(['r-dddddd', 'r-bbbbbb', 'r-aaaaaa', 'r-cccccc']);
  });

  it('adds a memory change when only the order changed, and none when it is already right', () => {
    const settings = { memory_file: 'MEMORY.md', skills_dir: 'skills' };
    const heavy = { a: rule('r-aaaaaa', 0.2), b: rule('r-bbbbbb', 0.9), c: rule('r-cccccc', 0.5) };
    const [change] = orderTargets({ memoryText: MEMORY, skillTexts: {} }, [], heavy, settings);
    expect(parseMemory(change!.content).rules.map((r) => r.id)).toEqual(['r-bbbbbb', 'r-cccccc', 'r-aaaaaa']);
    const same = { a: rule('r-aaaaaa', 1), b: rule('r-bbbbbb', 1), c: rule('r-cccccc', 1) };
    expect(orderTargets({ memoryText: MEMORY, skillTexts: {} }, [], same, settings)).toEqual([]);
  });

  it('orders a skill file\'s derived_rules the same way, leaving its other keys alone', () => {
    const skill = '# git skills, by a human\nname: git\nnotes: keep me\nderived_rules:\n  - id: r-aaaaaa\n    rule: first\n    cluster: c-1\n  - id: r-bbbbbb\n    rule: second\n    cluster: c-2\n';
    const rules = { a: { ...rule('r-aaaaaa', 0.3), target: 'skill:git' }, b: { ...rule('r-bbbbbb', 0.8), target: 'skill:git' } };
    const [change] = orderTargets({ memoryText: undefined, skillTexts: { git: skill } }, [], rules, { memory_file: 'MEMORY.md', skills_dir: 'skills' });
    expect(change).toMatchObject({ path: 'skills/git.yaml', role: 'skill' });
    expect(parseSkillRules(change!.content, 'skills/git.yaml')).toEqual([{ id: 'r-bbbbbb', text: 'second' }, { id: 'r-aaaaaa', text: 'first' }]);
    expect(change!.content.startsWith('# git skills, by a human\nname: git\nnotes: keep me\n')).toBe(true);
  });

  it('is a permutation of the lines for any order', () => {
    fc.assert(fc.property(fc.shuffledSubarray(['r-aaaaaa', 'r-bbbbbb', 'r-cccccc']), (order) => {
      const ordered = orderRules(MEMORY, order);
      return ordered.length === MEMORY.length && [...ordered.split('\r\n')].sort().join('\n') === [...MEMORY.split('\r\n')].sort().join('\n');
    }));
  });
});
