import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { sanitizeRuleText } from '../../pipeline/memory/memory-md.js';
import { addSkillRules, parseSkillRules, type SkillRule } from '../../pipeline/memory/skills-yaml.js';

const FILE = 'skills/git.yaml';
const rule: SkillRule = { id: 'r-abc123', text: 'Pull before pushing.', cluster: 'c-1a2b' };
const tricky: SkillRule = { id: 'r-def456', text: `Say "don't": run \`git -c a=b push\` # not a comment - really\\n - [x] {y}: 'z' & *w !t %p @q`, cluster: 'c-3c4d' };

/** Human-owned parts a reformatting writer would change: odd spacing, a flow seq, a folded scalar, comments. */
const HEAD = [
  '# Skill: git   (human comment)',
  'name:   git',
  'aliases: [g,   gg ,"git-cli"]',
  'summary: >',
  '  Folded text that',
  '  spans lines.',
  'guidelines:',
  '    - keep commits small    # inline comment',
  '    - { why: "review",   how: small }',
  '',
].join('\n');
const TAIL = ['# after the rules', 'owner:    "me"   # who', 'notes: |', '    literal', '      block', ''].join('\n');

function item(r: SkillRule, indent: string): string {
  return `${indent}- id: ${r.id}\n${indent}  rule: ${JSON.stringify(sanitizeRuleText(r.text))}\n${indent}  cluster: ${r.cluster}\n`;
}

function crlf(text: string): string {
  return text.replace(/\n/g, '\r\n');
}

describe('skills/<name>.yaml: only the derived_rules value changes', () => {
  it('appends to an existing block sequence after its last item, at the items\' indentation', () => {
    const existing = 'derived_rules:   # managed by sleep-cycle\n  -   id: r-000001\n      rule: "old rule"   # kept\n      cluster: c-0000\n\n';
    const original = `${HEAD}${existing}${TAIL}`;
    const out = addSkillRules(original, 'git', FILE, [rule, tricky]);
    const cut = original.indexOf('\n\n# after') + 1;
    expect(out).toBe(`${original.slice(0, cut)}${item(rule, '  ')}${item(tricky, '  ')}${original.slice(cut)}`);
    expect(parseSkillRules(out, FILE)).toEqual([
      { id: 'r-000001', text: 'old rule' },
      { id: rule.id, text: rule.text },
      { id: tricky.id, text: tricky.text },
    ]);
  });

  it('keeps a zero-indented sequence zero-indented, and handles a last item without a final newline', () => {
    const original = `${HEAD}derived_rules:\n- id: r-000001\n  rule: old`;
    const out = addSkillRules(original, 'git', FILE, [rule]);
    expect(out).toBe(`${original}\n${item(rule, '')}`);
    expect(parseSkillRules(out, FILE).map((r) => r.id)).toEqual(['r-000001', rule.id]);
  });

  it('turns an empty flow sequence into a block sequence indented two spaces more than the key', () => {
    const original = `${HEAD}derived_rules: []\n${TAIL}`;
    const out = addSkillRules(original, 'git', FILE, [rule, tricky]);
    expect(out).toBe(`${HEAD}derived_rules:\n${item(rule, '  ')}${item(tricky, '  ')}${TAIL}`);
    // An indented root map, and a comment after the value: only `[]` goes.
    expect(addSkillRules('  name: git\n  derived_rules: []   # keep me\n', 'git', FILE, [rule])).toBe(`  name: git\n  derived_rules:    # keep me\n${item(rule, '    ')}`);
  });

  it('replaces null, ~ and an empty value the same way, keeping a comment on the key line', () => {
    for (const value of [' null', ' ~', '', '   # nothing yet']) {
      const original = `${HEAD}derived_rules:${value}\n${TAIL}`;
      const out = addSkillRules(original, 'git', FILE, [rule]);
      const keyLine = value.includes('#') ? `derived_rules:${value}` : 'derived_rules:';
      expect(out).toBe(`${HEAD}${keyLine}\n${item(rule, '  ')}${TAIL}`);
    }
  });

  it('appends the key at the end of the file when it is missing, adding the newline the file lacks', () => {
    const original = `${HEAD}${TAIL}`;
    expect(addSkillRules(original, 'git', FILE, [rule])).toBe(`${original}derived_rules:\n${item(rule, '  ')}`);
    const noNewline = original.replace(/\n$/, '');
    expect(addSkillRules(noNewline, 'git', FILE, [rule])).toBe(`${noNewline}\nderived_rules:\n${item(rule, '  ')}`);
    expect(addSkillRules('', 'git', FILE, [rule])).toBe(`derived_rules:\n${item(rule, '  ')}`);
    expect(addSkillRules('# only a comment', 'git', FILE, [rule])).toBe(`# only a comment\nderived_rules:\n${item(rule, '  ')}`);
  });

  it('keeps a CRLF file CRLF, byte for byte outside the derived_rules value', () => {
    const block = crlf(`${HEAD}derived_rules:\n  - id: r-000001\n    rule: old\n${TAIL}`);
    const out = addSkillRules(block, 'git', FILE, [rule]);
    expect(out).toBe(crlf(`${HEAD}derived_rules:\n  - id: r-000001\n    rule: old\n${item(rule, '  ')}${TAIL}`));
    const empty = crlf(`${HEAD}derived_rules: []\n${TAIL}`);
    expect(addSkillRules(empty, 'git', FILE, [rule])).toBe(crlf(`${HEAD}derived_rules:\n${item(rule, '  ')}${TAIL}`));
    const missing = crlf(`${HEAD}${TAIL}`).replace(/\r\n$/, '');
    expect(addSkillRules(missing, 'git', FILE, [rule])).toBe(`${missing}\r\n${crlf(`derived_rules:\n${item(rule, '  ')}`)}`);
  });

  it('quotes a rule with quotes, colons, #, "- " and backslashes so it reads back exactly', () => {
    for (const text of [tricky.text, '- starts like an item', '#starts like a comment', 'ends with a colon:', 'C:\\path\\to "x"', 'tab\there', 'nul\u0000bell\u0007 del\u007f nel\u0085 bom\ufeff', 'true', '123', '']) {
      const out = addSkillRules(`${HEAD}derived_rules: []\n`, 'git', FILE, [{ id: 'r-aaaaaa', text, cluster: 'c-1' }]);
      expect(out.startsWith(`${HEAD}derived_rules:\n  - id: r-aaaaaa\n    rule: "`)).toBe(true);
      expect(parseSkillRules(out, FILE)).toEqual([{ id: 'r-aaaaaa', text: sanitizeRuleText(text) }]);
      expect(parseDocument(out).errors).toEqual([]);
    }
  });

  it('creates a new skill file when there is none', () => {
    const out = addSkillRules(undefined, 'git', FILE, [rule]);
    expect(out).toBe(`# Skill file created by sleep-cycle for git tools.\nname: git\nderived_rules:\n${item(rule, '  ')}`);
  });

  it('falls back to the Document API (reformatting, but valid) for layouts it does not splice', () => {
    const flow = 'name:   git\nderived_rules: [{id: r-000001, rule: old}]\n';
    const out = addSkillRules(flow, 'git', FILE, [rule]);
    expect(parseDocument(out).errors).toEqual([]);
    expect(parseSkillRules(out, FILE).map((r) => r.id)).toEqual(['r-000001', rule.id]);
    const crlfFlow = addSkillRules(crlf(flow), 'git', FILE, [rule]);
    expect(crlfFlow.replace(/\r\n/g, '')).not.toMatch(/\n/);
    expect(parseSkillRules(crlfFlow, FILE).map((r) => r.id)).toEqual(['r-000001', rule.id]);
  });

  it('property: any rule text round-trips through parseSkillRules and the human text is untouched', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('block', 'empty', 'missing'), fc.boolean(), (text, layout, useCrlf) => {
        const value = layout === 'block' ? 'derived_rules:\n  - id: r-000001\n    rule: old\n' : layout === 'empty' ? 'derived_rules: []\n' : '';
        const eol = useCrlf ? crlf : (s: string) => s;
        const original = eol(`${HEAD}${value}`);
        const out = addSkillRules(original, 'git', FILE, [{ id: 'r-aaaaaa', text, cluster: 'c-1' }]);
        expect(out.startsWith(eol(HEAD))).toBe(true);
        if (layout !== 'empty') expect(out.startsWith(original)).toBe(true);
        const rules = parseSkillRules(out, FILE);
        expect(rules[rules.length - 1]).toEqual({ id: 'r-aaaaaa', text: sanitizeRuleText(text) });
        expect(rules).toHaveLength(layout === 'block' ? 2 : 1);
      }),
      { numRuns: 200 },
    );
  });
});
