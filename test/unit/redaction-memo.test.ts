import { describe, expect, it } from 'vitest';
import { RedactionMemo } from '../../pipeline/safety/redaction-memo.js';
import { loadSecretRuleSet, secretRuleSetLoaded } from '../../pipeline/safety/secrets-rule-set.js';

/** A redactor that counts its calls and tags its answers with the call that made them. */
function counting(): { calls: number; redact: (text: string) => string } {
  const state = { calls: 0, redact: (text: string) => `${text}#${(state.calls += 1)}` };
  return state;
}

describe('RedactionMemo', () => {
  it('redacts a repeated text once, and a text past the length bound every time', () => {
    const memo = new RedactionMemo(10, 8, 1_000);
    const r = counting();
    expect(memo.get('short', r.redact)).toBe('short#1');
    expect(memo.get('short', r.redact)).toBe('short#1');
    expect(memo.get('much too long', r.redact)).toBe('much too long#2');
    expect(memo.get('much too long', r.redact)).toBe('much too long#3');
  });

  it('starts over past its entry and character bounds (log text is attacker-controlled)', () => {
    const byEntries = new RedactionMemo(3, 100, 1_000);
    const r = counting();
    for (const text of ['a', 'b', 'c', 'd']) byEntries.get(text, r.redact);
    expect(r.calls).toBe(4);
    byEntries.get('a', r.redact);
    expect(r.calls).toBe(5);
    const byChars = new RedactionMemo(100, 100, 10);
    const s = counting();
    for (const text of ['aaaaaa', 'bbbbbb']) byChars.get(text, s.redact);
    byChars.get('aaaaaa', s.redact);
    expect(s.calls).toBe(3);
  });

  it('forgets what it redacted before the maintained rule set loaded', async () => {
    const memo = new RedactionMemo(10, 100, 1_000);
    const r = counting();
    expect(secretRuleSetLoaded()).toBe(false);
    expect(memo.get('text', r.redact)).toBe('text#1');
    await loadSecretRuleSet();
    expect(memo.get('text', r.redact)).toBe('text#2');
    expect(memo.get('text', r.redact)).toBe('text#2');
  });
});
