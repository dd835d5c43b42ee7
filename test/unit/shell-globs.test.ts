import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasUnquotedGlob } from '../../pipeline/safety/shell-globs.js';

describe('hasUnquotedGlob reads a word as the shell does', () => {
  it.each(['*', 'build/*', '7??', '[ab]', 'x[0-9]', '{a,b}', '{1..3}', "a'b'*", '"x"?', "{'a','b'}", '${X}*', '$(ls)*'])('%s expands', (raw) => {
    expect(hasUnquotedGlob(raw)).toBe(true);
  });
  it.each(["'*'", '"*"', '\\*', 'a\\?b', '"[ab]"', '@{u}', 'HEAD@{1}', '{x}', '[', 'a]', '${X:-*}', '$(ls *)', '`ls *`', '"$X"', "'{a,b}'", '--force', '$?', '$*'])('%s is literal', (raw) => {
    expect(hasUnquotedGlob(raw)).toBe(false);
  });
  it('a word made only of quoted parts never expands', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('*', '?', '[', ']', '{', '}', ',', 'a', '.', ' ') })), (parts) => {
        expect(hasUnquotedGlob(parts.map((p) => `'${p}'`).join(''))).toBe(false);
      }),
    );
  });
});
