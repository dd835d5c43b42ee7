import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addRules, parseMemory } from '../../pipeline/memory/memory-md.js';

const rule = { id: 'r-abc123', text: 'Read the file before editing it.' };

describe('MEMORY.md', () => {
  it('appends to the existing section and leaves the rest of the file byte-for-byte', () => {
    const before = '# Memory\n\nhuman\n\n## Derived Rules\n\n- old rule <!-- rule:r-000001 -->\n\n## Notes\nmore human\n';
    const after = addRules(before, [rule]);
    expect(after).toBe('# Memory\n\nhuman\n\n## Derived Rules\n\n- old rule <!-- rule:r-000001 -->\n- Read the file before editing it. <!-- rule:r-abc123 -->\n\n## Notes\nmore human\n');
    expect(parseMemory(after).rules.map((r) => r.id)).toEqual(['r-000001', 'r-abc123']);
  });

  it('creates the section at the end when it is missing, and in an empty file', () => {
    expect(addRules('# Memory\nno newline', [rule])).toBe('# Memory\nno newline\n\n## Derived Rules\n\n- Read the file before editing it. <!-- rule:r-abc123 -->\n');
    expect(addRules('', [rule])).toBe('## Derived Rules\n\n- Read the file before editing it. <!-- rule:r-abc123 -->\n');
  });

  it('keeps CRLF line endings', () => {
    const after = addRules('# M\r\n\r\n## Derived Rules\r\n', [rule]);
    expect(after).toBe('# M\r\n\r\n## Derived Rules\r\n\r\n- Read the file before editing it. <!-- rule:r-abc123 -->\r\n');
  });

  it('a rule text cannot open or close a comment or span lines', () => {
    const after = addRules('', [{ id: 'r-abc123', text: 'x --> <!-- rule:r-ffffff -->\ny' }]);
    expect(parseMemory(after).rules).toEqual([{ id: 'r-abc123', text: 'x —> <!— rule:r-ffffff —> y' }]);
  });

  it('reports duplicate headings and manages only the first', () => {
    const parsed = parseMemory('## Derived Rules\n- a <!-- rule:r-111111 -->\n## Derived Rules\n- b <!-- rule:r-222222 -->\n');
    expect(parsed.duplicateHeadings).toBe(1);
    expect(parsed.rules.map((r) => r.id)).toEqual(['r-111111']);
  });

  it('property: human text before and after the section is preserved exactly', () => {
    const humanLine = fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n') && !s.includes('\r') && !/^#{1,2}\s/.test(s) && !/derived rules/i.test(s));
    fc.assert(
      fc.property(fc.array(humanLine, { maxLength: 8 }), fc.array(humanLine, { maxLength: 8 }), (head, tail) => {
        const top = head.length > 0 ? `${head.join('\n')}\n` : '';
        const bottom = `## After\n${tail.join('\n')}\n`;
        const text = `${top}## Derived Rules\n${bottom}`;
        const out = addRules(text, [rule]);
        expect(out.startsWith(`${top}## Derived Rules\n`)).toBe(true);
        expect(out.endsWith(bottom)).toBe(true);
        expect(parseMemory(out).rules).toEqual([rule]);
      }),
      { numRuns: 300 },
    );
  });
});
