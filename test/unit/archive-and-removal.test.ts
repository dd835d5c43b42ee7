import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { archivedIds, renderArchive } from '../../pipeline/memory/archive-md.js';
import { addRules, parseMemory, removeRules } from '../../pipeline/memory/memory-md.js';
import { addSkillRules, parseSkillRules, removeSkillRules } from '../../pipeline/memory/skills-yaml.js';
import type { LedgerEntry, RuleState } from '../../pipeline/memory/state.js';
import { ledgerEntry } from '../helpers/ledger.js';

const CREATED = '2025-01-01T00:00:00.000Z';

const entry = (over: Partial<LedgerEntry> & { id: string }): LedgerEntry => ledgerEntry({ state: 'archived', created: CREATED, ...over });

const crlf = (text: string) => text.replace(/\n/g, '\r\n');

// ---------------------------------------------------------------------------------------------------
// MEMORY.md: removeRules
// ---------------------------------------------------------------------------------------------------

describe('removeRules (MEMORY.md)', () => {
  const A = '- Check the path first. <!-- rule:r-aaaaaa -->';
  const B = '- Pull before pushing. <!-- rule:r-bbbbbb -->';
  const C = '* Quote globs. <!--rule:r-cccccc-->';
  const before = `# Memory\n\nhuman intro\n\n## Derived Rules\n\n${A}\nhuman note inside the section (about r-bbbbbb)\n${B}\n${C}\n\n## Notes\nmore human\n`;

  it('removes exactly the named bullets, line ending included (LF)', () => {
    expect(removeRules(before, new Set(['r-bbbbbb']))).toBe(`# Memory\n\nhuman intro\n\n## Derived Rules\n\n${A}\nhuman note inside the section (about r-bbbbbb)\n${C}\n\n## Notes\nmore human\n`);
    expect(removeRules(before, new Set(['r-aaaaaa', 'r-cccccc']))).toBe(`# Memory\n\nhuman intro\n\n## Derived Rules\n\nhuman note inside the section (about r-bbbbbb)\n${B}\n\n## Notes\nmore human\n`);
    expect(parseMemory(removeRules(before, new Set(['r-aaaaaa', 'r-bbbbbb', 'r-cccccc']))).rules).toEqual([]);
  });

  it('removes exactly the named bullets in a CRLF file, and in a mixed one each line keeps its own ending', () => {
    expect(removeRules(crlf(before), new Set(['r-bbbbbb']))).toBe(crlf(`# Memory\n\nhuman intro\n\n## Derived Rules\n\n${A}\nhuman note inside the section (about r-bbbbbb)\n${C}\n\n## Notes\nmore human\n`));
    const mixed = `## Derived Rules\r\n${A}\n${B}\r\nnote\n${C}\r\n`;
    expect(removeRules(mixed, new Set(['r-bbbbbb']))).toBe(`## Derived Rules\r\n${A}\nnote\n${C}\r\n`);
    expect(removeRules(mixed, new Set(['r-aaaaaa', 'r-cccccc']))).toBe(`## Derived Rules\r\n${B}\r\nnote\n`);
  });

  it('removes a last bullet that has no final newline', () => {
    expect(removeRules(`## Derived Rules\n${A}\n${B}`, new Set(['r-bbbbbb']))).toBe(`## Derived Rules\n${A}\n`);
    expect(removeRules(`## Derived Rules\r\n${A}`, new Set(['r-aaaaaa']))).toBe('## Derived Rules\r\n');
  });

  it('leaves a look-alike bullet inside a fenced code block alone', () => {
    for (const [open, close] of [['```', '```'], ['~~~md', '~~~'], ['````', '````']]) {
      const text = `## Derived Rules\n${open}\n${A}\n${close}\n${A}\n`;
      expect(removeRules(text, new Set(['r-aaaaaa']))).toBe(`## Derived Rules\n${open}\n${A}\n${close}\n`);
    }
    // A heading inside a fence is not the section either.
    const fencedHeading = `\`\`\`\n## Derived Rules\n${A}\n\`\`\`\n`;
    expect(removeRules(fencedHeading, new Set(['r-aaaaaa']))).toBe(fencedHeading);
  });

  it('leaves rule lines outside the section alone', () => {
    const text = `# Memory\n${A}\n\n## Derived Rules\n${A}\n${B}\n## Notes\n${B}\n# Appendix\n${A}\n`;
    expect(removeRules(text, new Set(['r-aaaaaa', 'r-bbbbbb']))).toBe(`# Memory\n${A}\n\n## Derived Rules\n## Notes\n${B}\n# Appendix\n${A}\n`);
  });

  it('only the first of duplicate sections is managed', () => {
    const text = `## Derived Rules\n${A}\n## Derived Rules\n${A}\n`;
    expect(removeRules(text, new Set(['r-aaaaaa']))).toBe(`## Derived Rules\n## Derived Rules\n${A}\n`);
  });

  it('archiving the last rule then adding another, night after night, gives the same bytes each time', () => {
    for (const eol of ['\n', '\r\n']) {
      const full = `# M${eol}${eol}## Derived Rules${eol}${eol}${A}${eol}`;
      const empty = removeRules(full, new Set(['r-aaaaaa']));
      expect(empty).toBe(`# M${eol}${eol}## Derived Rules${eol}${eol}`);
      let text = empty;
      for (let night = 0; night < 5; night++) {
        const added = addRules(text, [{ id: 'r-bbbbbb', text: 'Pull before pushing.' }]);
        expect(added).toBe(`# M${eol}${eol}## Derived Rules${eol}${eol}${B}${eol}`);
        text = removeRules(added, new Set(['r-bbbbbb']));
        expect(text).toBe(empty);
      }
    }
  });

  it('unknown ids, an empty set, or no section: the same text', () => {
    expect(removeRules(before, new Set(['r-dddddd']))).toBe(before);
    expect(removeRules(before, new Set())).toBe(before);
    const noSection = `# Memory\n${A}\n`;
    expect(removeRules(noSection, new Set(['r-aaaaaa']))).toBe(noSection);
    expect(removeRules('', new Set(['r-aaaaaa']))).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------------
// skills/<name>.yaml: removeSkillRules
// ---------------------------------------------------------------------------------------------------

describe('removeSkillRules (skills/<name>.yaml)', () => {
  const FILE = 'skills/git.yaml';
  const HEAD = ['# Skill: git   (human comment)', 'name:   git', 'aliases: [g,   gg ,"git-cli"]', 'summary: >', '  Folded text that', '  spans lines.', ''].join('\n');
  const ITEM_1 = '  - id: r-111111\n    rule: "Pull before pushing."   # human note on the rule\n    cluster: c-0001\n';
  const ITEM_2 = '  - id: r-222222\n    rule: "Never force-push to main."\n    cluster: c-0002\n';
  const ITEM_3 = '  - id: r-333333\n    rule: "Fetch tags explicitly."\n    cluster: c-0003\n';
  const TAIL = ['# after the rules', 'owner:    "me"   # who', 'notes: |', '    literal', '      block', ''].join('\n');
  const original = `${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_1}${ITEM_2}${ITEM_3}${TAIL}`;
  const humanKeys = (text: string) => {
    const { derived_rules: _rules, ...rest } = parseDocument(text).toJS() as Record<string, unknown>;
    return rest;
  };

  it('removing one of several items cuts only its lines: every comment and other key is byte-identical', () => {
    expect(removeSkillRules(original, FILE, new Set(['r-222222']))).toBe(`${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_1}${ITEM_3}${TAIL}`);
    expect(removeSkillRules(original, FILE, new Set(['r-111111']))).toBe(`${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_2}${ITEM_3}${TAIL}`);
    expect(removeSkillRules(original, FILE, new Set(['r-333333']))).toBe(`${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_1}${ITEM_2}${TAIL}`);
    expect(removeSkillRules(original, FILE, new Set(['r-111111', 'r-333333']))).toBe(`${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_2}${TAIL}`);
  });

  it('the same in a CRLF file', () => {
    expect(removeSkillRules(crlf(original), FILE, new Set(['r-222222']))).toBe(crlf(`${HEAD}derived_rules:   # managed by sleep-cycle\n${ITEM_1}${ITEM_3}${TAIL}`));
  });

  it('removing the last item when the file has no final newline', () => {
    const text = `name: git\nderived_rules:\n${ITEM_1}${ITEM_2.replace(/\n$/, '')}`;
    const out = removeSkillRules(text, FILE, new Set(['r-222222']));
    expect(out).toBe(`name: git\nderived_rules:\n${ITEM_1}`);
  });

  it('removing every item leaves a valid file whose derived_rules is empty, the human keys unchanged', () => {
    for (const text of [original, crlf(original)]) {
      const out = removeSkillRules(text, FILE, new Set(['r-111111', 'r-222222', 'r-333333']));
      const doc = parseDocument(out);
      expect(doc.errors).toEqual([]);
      expect((doc.toJS() as Record<string, unknown>).derived_rules).toEqual([]);
      expect(parseSkillRules(out, FILE)).toEqual([]);
      expect(humanKeys(out)).toEqual(humanKeys(original));
      expect(out).toContain('# Skill: git   (human comment)');
      if (text.includes('\r\n')) expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      // New rules can be added to it again.
      const again = addSkillRules(out, 'git', FILE, [{ id: 'r-444444', text: 'Rebase onto main.', cluster: 'c-0004' }]);
      expect(parseSkillRules(again, FILE)).toEqual([{ id: 'r-444444', text: 'Rebase onto main.' }]);
    }
  });

  it('a flow-sequence derived_rules falls back to the document API, and still removes only that item', () => {
    const flow = 'name: git\nderived_rules: [{id: r-111111, rule: one, cluster: c-1}, {id: r-222222, rule: two, cluster: c-2}]\nowner: me\n';
    const out = removeSkillRules(flow, FILE, new Set(['r-111111']));
    expect(parseSkillRules(out, FILE)).toEqual([{ id: 'r-222222', text: 'two' }]);
    expect(humanKeys(out)).toEqual({ name: 'git', owner: 'me' });
  });

  it('human comment and blank lines between items stay, even next to a removed item', () => {
    const text = 'derived_rules:\n  - id: r-111111\n    rule: a\n  # comment about r-222222\n  - id: r-222222\n    rule: b\n\n  - id: r-333333\n    rule: c\nowner: me\n';
    expect(removeSkillRules(text, FILE, new Set(['r-222222']))).toBe('derived_rules:\n  - id: r-111111\n    rule: a\n  # comment about r-222222\n\n  - id: r-333333\n    rule: c\nowner: me\n');
    expect(removeSkillRules(text, FILE, new Set(['r-111111']))).toBe('derived_rules:\n  # comment about r-222222\n  - id: r-222222\n    rule: b\n\n  - id: r-333333\n    rule: c\nowner: me\n');
  });

  it('property: removing any proper subset of items cuts exactly their lines; removing all leaves an empty list', () => {
    const layout = fc.record({
      indent: fc.constantFrom('', '  ', '    '),
      eol: fc.constantFrom('\n', '\r\n'),
      items: fc.array(
        fc.record({
          rule: fc.constantFrom('plain words', '"double: quoted # not a comment"', "'single'", '|\n{pad}  literal\n{pad}  block', '>-\n{pad}  folded'),
          comment: fc.constantFrom('', '   # inline'),
          extra: fc.boolean(),
          between: fc.constantFrom('', '', '{indent}# between\n', '\n'),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      remove: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    });
    fc.assert(
      fc.property(layout, ({ indent, eol, items, remove }) => {
        const pad = `${indent}  `;
        const chunks = items.map((item, i) => {
          const id = `r-${(0x100000 + i).toString(16)}`;
          const body = `${indent}- id: ${id}${item.comment}\n${pad}rule: ${item.rule.replace(/\{pad\}/g, pad)}\n${item.extra ? `${pad}cluster: c-${i}\n` : ''}`;
          return { id, body, between: item.between.replace('{indent}', indent) };
        });
        const head = '# human header\nname: git   # name\nderived_rules:   # managed\n';
        const tail = '# after\nowner: me\n';
        const doc = (keep: (id: string) => boolean) => `${head}${chunks.map((c) => `${c.between}${keep(c.id) ? c.body : ''}`).join('')}${tail}`.replace(/\n/g, eol);
        const text = doc(() => true);
        const doomed = new Set(chunks.filter((_, i) => remove[i]).map((c) => c.id));
        const out = removeSkillRules(text, FILE, doomed);
        const kept = chunks.filter((c) => !doomed.has(c.id)).map((c) => c.id);
        if (doomed.size === 0) {
          expect(out).toBe(text);
        } else if (kept.length > 0) {
          expect(out).toBe(doc((id) => !doomed.has(id)));
        } else {
          expect(parseDocument(out).errors).toEqual([]);
          expect(parseDocument(out).toJS()).toEqual({ name: 'git', derived_rules: [], owner: 'me' });
        }
        expect(parseSkillRules(out, FILE).map((r) => r.id)).toEqual(kept);
      }),
      { numRuns: 300, seed: 3 },
    );
  });

  it('unknown ids, an empty set, or no derived_rules: the same text', () => {
    expect(removeSkillRules(original, FILE, new Set(['r-999999']))).toBe(original);
    expect(removeSkillRules(original, FILE, new Set())).toBe(original);
    expect(removeSkillRules('name: git\n', FILE, new Set(['r-111111']))).toBe('name: git\n');
  });

  it('adding rules then removing them gives back the original bytes', () => {
    const added = addSkillRules(original, 'git', FILE, [
      { id: 'r-444444', text: 'Say "don\'t": # not a comment', cluster: 'c-0004' },
      { id: 'r-555555', text: 'Use --force-with-lease', cluster: 'c-0005' },
    ]);
    expect(parseSkillRules(added, FILE).map((r) => r.id)).toEqual(['r-111111', 'r-222222', 'r-333333', 'r-444444', 'r-555555']);
    expect(removeSkillRules(added, FILE, new Set(['r-444444', 'r-555555']))).toBe(original);
  });
});

// ---------------------------------------------------------------------------------------------------
// The archive file
// ---------------------------------------------------------------------------------------------------

describe('renderArchive', () => {
  const one = entry({
    id: 'r-0a0a0a',
    text: 'Check the path exists before reading it.',
    state_since: '2025-04-02T03:04:05.000Z',
    last_reinforced: '2025-01-01T00:00:00.000Z',
    weight: 0.05,
    hits: 2,
    archive_reason: 'not reinforced for 91 days (TTL 90 days)',
  });
  const expired = entry({ id: 'r-0b0b0b', state: 'expired', target: 'skill:git', tool_name: 'git', error_category: null, state_since: '2025-09-30T00:00:00.000Z', weight: 0.01 });
  const archivedEarlier = entry({ id: 'r-0c0c0c', state_since: '2025-03-01T00:00:00.000Z', weight: 0.2 });
  const archivedSameDay = entry({ id: 'r-000001', state_since: '2025-04-02T03:04:05.000Z' });
  const others = (['active', 'decaying', 'pinned', 'deleted', 'rejected'] as RuleState[]).map((state, i) => entry({ id: `r-f0000${i}`, state, text: `NOT IN ARCHIVE ${state}` }));

  it('renders one entry with its facts', () => {
    expect(renderArchive([one])).toBe(
      [
        '# Archived rules',
        '',
        'Derived rules sleep-cycle moved out of memory because they were no longer reinforced (or to keep',
        "MEMORY.md under its line ceiling). A recurrence of a rule's failure restores it automatically;",
        '`sleep-cycle restore <id>` restores it by hand. This file is written by sleep-cycle from its ledger.',
        '',
        '## Archived (1)',
        '',
        '- `r-0a0a0a` Check the path exists before reading it.',
        '  <sub>archived 2025-04-02 · from memory · created 2025-01-01 · last reinforced 2025-01-01 · weight 0.05 · bash/not_found seen 5 times · not reinforced for 91 days (TTL 90 days)</sub>',
        '',
        '## Expired (0): deleted after expired_retention_days',
        '',
      ].join('\n'),
    );
  });

  it('lists archived and expired rules under their own headings, oldest first, and nothing else', () => {
    const out = renderArchive([...others, expired, one, archivedSameDay, archivedEarlier]);
    expect(out).not.toContain('NOT IN ARCHIVE');
    for (const other of others) expect(out).not.toContain(other.id);
    const archivedPart = out.slice(out.indexOf('## Archived (3)'), out.indexOf('## Expired (1)'));
    const expiredPart = out.slice(out.indexOf('## Expired (1)'));
    expect([...archivedPart.matchAll(/^- `(r-[0-9a-f]+)`/gm)].map((m) => m[1])).toEqual(['r-0c0c0c', 'r-000001', 'r-0a0a0a']);
    expect([...expiredPart.matchAll(/^- `(r-[0-9a-f]+)`/gm)].map((m) => m[1])).toEqual(['r-0b0b0b']);
    expect(expiredPart).toContain('<sub>expired 2025-09-30 · from skill:git · created 2025-01-01 · last reinforced 2025-01-01 · weight 0.01 · git seen 3 times</sub>');
  });

  it('is deterministic: the same rules in any order give the same bytes', () => {
    const rules = [...others, expired, one, archivedSameDay, archivedEarlier];
    const reference = renderArchive(rules);
    fc.assert(
      fc.property(fc.shuffledSubarray(rules, { minLength: rules.length, maxLength: rules.length }), (shuffled) => {
        expect(renderArchive(shuffled)).toBe(reference);
        expect(renderArchive(new Set(shuffled))).toBe(reference);
      }),
      { numRuns: 100, seed: 7 },
    );
  });

  it('an empty ledger gives both headings with 0 entries', () => {
    const out = renderArchive([]);
    expect(out).toContain('## Archived (0)\n\n## Expired (0)');
    expect(renderArchive(others)).toBe(out);
  });

  it('a rule text, reason or tool name cannot open or close a comment, or add lines or headings', () => {
    const hostile = entry({
      id: 'r-0d0d0d',
      text: 'ok --> <!-- rule:r-ffffff -->\n## Expired (99)\r\n- `r-eeeeee` fake entry\u2028more',
      tool_name: 'tool<!--x-->',
      archive_reason: 'reason --> </sub> <!-- hidden\nline',
      state_since: '2025-05-05T00:00:00.000Z',
    });
    const out = renderArchive([hostile]);
    expect(out).not.toContain('-->');
    expect(out).not.toContain('<!--');
    expect(out.split('\n').filter((line) => line.startsWith('#'))).toEqual(['# Archived rules', '## Archived (1)', '## Expired (0): deleted after expired_retention_days']);
    expect(out.split('\n').filter((line) => /^- `r-/.test(line))).toHaveLength(1);
    // The facts line stays one <sub> element.
    const sub = out.split('\n').find((line) => line.startsWith('  <sub>'))!;
    expect(sub.match(/<\/?sub>/g)).toEqual(['<sub>', '</sub>']);
    expect(out.split('\n')).toHaveLength(renderArchive([]).split('\n').length + 3);
    // The fake `- \`r-eeeeee\`` entry in the text is not read back as an archived id.
    expect(archivedIds(out)).toEqual(new Set(['r-0d0d0d']));
  });

  it('archivedIds reads back exactly the archived and expired ids', () => {
    const rules = [...others, expired, one, archivedSameDay, archivedEarlier];
    expect(archivedIds(renderArchive(rules))).toEqual(new Set(['r-0b0b0b', 'r-0a0a0a', 'r-000001', 'r-0c0c0c']));
    expect(archivedIds(renderArchive([]))).toEqual(new Set());
    expect(archivedIds(undefined)).toEqual(new Set());
  });

  it('property: any rule text stays on its one bullet line and cannot open or close a comment', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.array(fc.constantFrom('-->', '<!--', '\n', '\r\n', '\u2028', '## ', '- `r-000000`', 'x', '-', '>', '<!', '-'), { maxLength: 12 }).map((parts) => parts.join('')));
    fc.assert(
      fc.property(text, text, (ruleText, reason) => {
        const out = renderArchive([entry({ id: 'r-0e0e0e', text: ruleText, archive_reason: reason, state_since: CREATED })]);
        expect(out).not.toContain('-->');
        expect(out).not.toContain('<!--');
        expect(out.split('\n')).toHaveLength(renderArchive([]).split('\n').length + 3);
        expect(archivedIds(out)).toEqual(new Set(['r-0e0e0e']));
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});
