import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addRules, parseMemory, renderRule } from '../../pipeline/memory/memory-md.js';

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

describe('MEMORY.md line endings', () => {
  it('a mixed LF/CRLF file keeps each human line\'s own line ending', () => {
    const before = '# Memory\r\nlf line\ncrlf line\r\n\r\n## Derived Rules\n- old <!-- rule:r-000001 -->\r\n\n## Notes\r\nlf tail\ncrlf tail\r\n';
    const after = addRules(before, [rule]);
    // New lines take the heading's ending (LF here); nothing else moves.
    expect(after).toBe('# Memory\r\nlf line\ncrlf line\r\n\r\n## Derived Rules\n- old <!-- rule:r-000001 -->\r\n- Read the file before editing it. <!-- rule:r-abc123 -->\n\n## Notes\r\nlf tail\ncrlf tail\r\n');
    const crlfHeading = addRules('a\nb\r\n## Derived Rules\r\nc\n', [rule]);
    expect(crlfHeading).toBe('a\nb\r\n## Derived Rules\r\nc\n- Read the file before editing it. <!-- rule:r-abc123 -->\r\n');
  });

  it('a missing section uses the file\'s first line break', () => {
    expect(addRules('a\r\nb\nc', [rule])).toBe('a\r\nb\nc\r\n\r\n## Derived Rules\r\n\r\n- Read the file before editing it. <!-- rule:r-abc123 -->\r\n');
    expect(addRules('a\nb\r\n', [rule])).toBe('a\nb\r\n\n## Derived Rules\n\n- Read the file before editing it. <!-- rule:r-abc123 -->\n');
  });

  it('a section at the end of a file without a final newline gets one before the bullets', () => {
    expect(addRules('x\r\n## Derived Rules', [rule])).toBe('x\r\n## Derived Rules\r\n\r\n- Read the file before editing it. <!-- rule:r-abc123 -->\r\n');
    expect(addRules('## Derived Rules\r\n- old <!-- rule:r-000001 -->', [rule])).toBe('## Derived Rules\r\n- old <!-- rule:r-000001 -->\r\n- Read the file before editing it. <!-- rule:r-abc123 -->\r\n');
  });
});

describe('MEMORY.md fenced code blocks', () => {
  const bullet = '- Read the file before editing it. <!-- rule:r-abc123 -->';

  it('a heading inside a fence is not the section: the section is created at the end, the fence untouched', () => {
    for (const fence of ['```', '~~~', '   ```markdown title="x"', '````md']) {
      const close = fence.trim().match(/^[`~]+/)![0];
      const before = `# Memory\n${fence}\n## Derived Rules\n- fake <!-- rule:r-999999 -->\n${close}\ntail\n`;
      expect(parseMemory(before)).toMatchObject({ section: null, rules: [], duplicateHeadings: 0 });
      expect(addRules(before, [rule])).toBe(`${before}\n## Derived Rules\n\n${bullet}\n`);
    }
  });

  it('a backtick line with backticks in its info string is not a fence; a shorter closing fence does not close', () => {
    expect(parseMemory('``` a`b\n## Derived Rules\n').section).not.toBeNull();
    const text = '````\n```\n## Derived Rules\n````\n## Derived Rules\n';
    expect(parseMemory(text).section).toEqual({ heading: 4, end: 5 });
  });

  it('a `## ` line inside a fence inside the section does not end it', () => {
    const before = '## Derived Rules\n\n- a <!-- rule:r-111111 -->\n\n~~~sh\n## not a heading\n- b <!-- rule:r-222222 -->\n~~~\n\n## Notes\nhuman\n';
    const parsed = parseMemory(before);
    expect(parsed.section).toEqual({ heading: 0, end: 9 });
    expect(parsed.rules.map((r) => r.id)).toEqual(['r-111111']);
    const after = addRules(before, [rule]);
    expect(after).toBe('## Derived Rules\n\n- a <!-- rule:r-111111 -->\n\n~~~sh\n## not a heading\n- b <!-- rule:r-222222 -->\n~~~\n' + `${bullet}\n` + '\n## Notes\nhuman\n');
    expect(parseMemory(after).rules.map((r) => r.id)).toEqual(['r-111111', 'r-abc123']);
  });

  it('never puts bullets inside a fence the file leaves open', () => {
    const inSection = '## Derived Rules\n- a <!-- rule:r-111111 -->\n```\ncode\n\n';
    const after = addRules(inSection, [rule]);
    expect(after).toBe(`## Derived Rules\n- a <!-- rule:r-111111 -->\n${bullet}\n\`\`\`\ncode\n\n`);
    expect(parseMemory(after).rules.map((r) => r.id)).toEqual(['r-111111', 'r-abc123']);
    const noSection = '# M\n~~~~\n## Derived Rules\ncode';
    const created = addRules(noSection, [rule]);
    expect(created).toBe(`${noSection}\n~~~~\n\n## Derived Rules\n\n${bullet}\n`);
    expect(parseMemory(created).rules).toEqual([rule]);
  });
});

/** `out` is `original` with exactly one contiguous insertion, placed at a line boundary; returns the inserted text. */
function insertionOf(original: string, out: string): string {
  expect(out.length).toBeGreaterThan(original.length);
  const size = out.length - original.length;
  for (let k = 0; k <= original.length; k++) {
    if (k !== 0 && k !== original.length && original[k - 1] !== '\n') continue;
    if (out.startsWith(original.slice(0, k)) && out.endsWith(original.slice(k)) ) return out.slice(k, k + size);
  }
  throw new Error(`not a single insertion at a line boundary:\n${JSON.stringify(original)}\n${JSON.stringify(out)}`);
}

describe('MEMORY.md properties', () => {
  const eolArb = fc.constantFrom('\n', '\r\n');
  const humanText = fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n') && !s.includes('\r') && !/^#{1,2}\s/.test(s) && !/derived rules/i.test(s) && !/^ {0,3}(```|~~~)/.test(s));
  const humanLine = fc.tuple(humanText, eolArb).map(([text, eol]) => text + eol);

  it('property: with random LF/CRLF mixes, human text before and after the section is byte-identical', () => {
    fc.assert(
      fc.property(
        fc.array(humanLine, { maxLength: 8 }),
        eolArb,
        fc.array(fc.tuple(fc.constantFrom('- old <!-- rule:r-000001 -->', '', 'note'), eolArb).map(([t, e]) => t + e), { maxLength: 4 }),
        fc.array(humanLine, { maxLength: 8 }),
        eolArb,
        fc.boolean(),
        (head, headingEol, body, tail, afterEol, finalNewline) => {
          const top = head.join('');
          const heading = `## Derived Rules${headingEol}`;
          let bottom = `## After${afterEol}${tail.join('')}`;
          if (!finalNewline) bottom = bottom.replace(/\r?\n$/, '');
          const text = `${top}${heading}${body.join('')}${bottom}`;
          const out = addRules(text, [rule]);
          expect(out.startsWith(`${top}${heading}`)).toBe(true);
          expect(out.endsWith(bottom)).toBe(true);
          insertionOf(text, out);
          // The bullet goes after the section's last non-blank line, ended with the heading's line ending.
          const b = `${renderRule(rule)}${headingEol}`;
          const last = body.map((l) => l.trim() !== '').lastIndexOf(true);
          // An empty section that keeps a blank line gets the bullet after that line (and a blank line before
          // what follows), so archiving and restoring a rule again and again does not pile up blank lines.
          const following = body[1] ?? '## After';
          const section = last >= 0
            ? `${body.slice(0, last + 1).join('')}${b}${body.slice(last + 1).join('')}`
            : body.length > 0
              ? `${body[0]}${b}${following.trim() !== '' ? headingEol : ''}${body.slice(1).join('')}`
              : `${headingEol}${b}`;
          expect(out).toBe(`${top}${heading}${section}${bottom}`);
          const old = parseMemory(text).rules;
          expect(parseMemory(out).rules).toEqual([...old, rule]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: any mix of fences, headings, rules and human lines only gains one insertion, and its rule is found', () => {
    const line = fc.oneof(
      humanText,
      fc.constantFrom('', '```', '```ts', '~~~', '  ~~~~', '    ```', '## Derived Rules', '## Other', '# Top', '- r <!-- rule:r-111111 -->', '- s <!-- rule:r-222222 -->', '`` `x` ``'),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(line, eolArb), { maxLength: 14 }), fc.boolean(), (parts, finalNewline) => {
        let text = parts.map(([t, e]) => t + e).join('');
        if (!finalNewline) text = text.replace(/\r?\n$/, '');
        const out = addRules(text, [rule]);
        insertionOf(text, out);
        const before = parseMemory(text);
        const after = parseMemory(out);
        expect(after.section).not.toBeNull();
        expect(after.rules).toEqual([...before.rules, rule]);
        if (before.section) expect(after.section!.heading).toBe(before.section.heading);
      }),
      { numRuns: 500 },
    );
  });
});
