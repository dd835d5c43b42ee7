import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = resolve(import.meta.dirname, '../../eval/rule-pairs');
const jsonl = (name: string) => readFileSync(join(DIR, name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

describe('eval/rule-pairs', () => {
  it('pairs.jsonl is what build-pairs.mjs makes of the rules and variants, at least 200 pairs of both labels', () => {
    const built = execFileSync(process.execPath, [join(DIR, 'build-pairs.mjs')], { encoding: 'utf8' });
    expect(built).toBe(readFileSync(join(DIR, 'pairs.jsonl'), 'utf8'));
    const pairs = jsonl('pairs.jsonl');
    expect(pairs.length).toBeGreaterThanOrEqual(200);
    expect(pairs.filter((p) => p.label === 1).length).toBeGreaterThan(50);
    expect(pairs.filter((p) => p.kind.startsWith('hard-negative')).length).toBeGreaterThan(50);
  });

  it('every variant belongs to a real rule and is of a known kind', () => {
    const rules = new Map(jsonl('rules.jsonl').map((rule) => [rule.id, rule]));
    for (const variant of jsonl('variants.jsonl')) {
      expect(rules.has(variant.of), variant.text).toBe(true);
      expect(['paraphrase', 'human', 'hard-negative']).toContain(variant.kind);
    }
  });
});
