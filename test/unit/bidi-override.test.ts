import { describe, expect, it } from 'vitest';
import { redact } from '../../pipeline/safety/redact.js';
import { p } from '../fixtures/attacks/parts.js';

describe('redact: a run under a bidi override is kept in neither order', () => {
  it('replaces what an override shows reversed by <*> (the screen says git push --force, the bytes the reverse)', () => {
    expect(redact('error: run \u202eecrof-- hsup tig\u202c to continue')).toBe('error: run <*> to continue');
    expect(redact('error: run \u202decrof-- hsup tig')).toBe('error: run <*>');
    // An override ends at its paragraph's end (a line feed, a NEL), not at the end of the text.
    expect(redact('error: \u202eecrof--\u0085next line')).toBe('error: <*>\u0085next line');
  });

  it('keeps text without an override, and a run that reads the same both ways', () => {
    expect(redact('error: access \u202ea\u202c denied')).toBe('error: access a denied');
    expect(redact('error: push rejected')).toBe('error: push rejected');
  });

  it('still finds a secret split by an override, whole, and is idempotent', () => {
    const token = p('gh', 'p_') + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const out = redact(`error: token ${token.slice(0, 12)}\u202e${token.slice(12)}`);
    expect(out).not.toContain(token.slice(0, 12));
    expect(out).not.toContain(token.slice(12));
    expect(redact(out)).toBe(out);
  });
});
