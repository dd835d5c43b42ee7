import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skillFileProblem } from '../../pipeline/memory/skills-yaml.js';
import { PACKAGE_ROOT } from '../helpers/repo.js';

describe('skillFileProblem: which skill files the run must leave alone', () => {
  const readable: [string, string][] = [
    ['the shipped skills/git.yaml', readFileSync(join(PACKAGE_ROOT, 'skills/git.yaml'), 'utf8')],
    ['an empty file', ''],
    ['no derived_rules key', 'name: git\n'],
    ['derived_rules: null', 'name: git\nderived_rules:\n'],
    ['rules with extra keys', 'derived_rules:\n  - id: r-1a2b3c\n    rule: "Wait for the lock."\n    cluster: c-1\n    note: human\n'],
  ];
  for (const [name, text] of readable) it(`readable: ${name}`, () => expect(skillFileProblem(text)).toBeNull());

  const unreadable: [string, string, RegExp][] = [
    ['not valid YAML', 'name: git\nderived_rules: [\n', /^is not valid YAML \(.+\)$/],
    ['a list at the top', '- a\n- b\n', /^is not a YAML map$/],
    ['derived_rules a string', 'derived_rules: none\n', /^has a derived_rules that is not a list$/],
    ['an item without rule text', 'derived_rules:\n  - id: r-1a2b3c\n    rule: "ok"\n  - id: r-4d5e6f\n', /^has a derived_rules item \(the 2nd\) without an id and a rule text$/],
    ['an item that is a string', 'derived_rules:\n  - just text\n', /the 1st/],
    ['an id that is a number', 'derived_rules:\n  - id: 42\n    rule: "x"\n', /the 1st/],
  ];
  for (const [name, text, problem] of unreadable) it(`unreadable: ${name}`, () => expect(skillFileProblem(text)).toMatch(problem));
});
