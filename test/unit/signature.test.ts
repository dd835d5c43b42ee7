import { describe, expect, it } from 'vitest';
import { ClusterBuilder } from '../../pipeline/ingest/cluster.js';
import { NOISE, commonPrefix, isNoise, maskHomePaths, signatureKey, signatureOf, signatureText } from '../../pipeline/templates/signature.js';
import { SECRET_CASES } from '../fixtures/secrets.js';

describe('error signatures', () => {
  it.each([
    ["fatal: Unable to create '/repo/.git/index.lock': File exists.", "fatal: Unable to create '/repo/.git/index.lock': File exists."],
    ['Exit code 127\nsh: 1: vitest: not found', 'sh: 1: vitest: not found'],
    ['<tool_use_error>File has not been read yet.</tool_use_error>', 'File has not been read yet.'],
    ['============================= test session starts ==============================\nplatform linux\ncollected 3 items\nE   AssertionError: boom\nFAILED tests/test_a.py::test_x', 'FAILED tests/test_a.py::test_x'],
    ['Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    import foo\nModuleNotFoundError: No module named \'foo\'', "ModuleNotFoundError: No module named 'foo'"],
    ['Welcome to the quickstart utility.\nError: invalid value for --sep', 'Error: invalid value for --sep'],
    ['', null],
  ])('%j → %j', (message, expected) => {
    expect(signatureOf(message)).toBe(expected);
  });

  it('masks home directories, which name a person', () => {
    expect(maskHomePaths("open '/Users/alice/src/app/x.ts' and /home/bob/y and C:\\Users\\carol\\z")).toBe("open '~/src/app/x.ts' and ~/y and ~\\z");
    expect(signatureOf('ENOENT: no such file or directory, open /home/alice/app/x.ts')).toBe('ENOENT: no such file or directory, open ~/app/x.ts');
  });

  it('finds the words failures have in common, or nothing', () => {
    expect(commonPrefix(['ENOENT: no such file or directory, open ~/a.ts', 'ENOENT: no such file or directory, open ~/b.ts'])).toBe('ENOENT: no such file or directory, open …');
    expect(commonPrefix(['a b', 'a c'])).toBeNull();
  });

  it.each(SECRET_CASES.map((c) => [c.kind, c] as const))('a %s secret in a message never reaches the shown signature', (_kind, secret) => {
    expect(signatureOf(`Error: ${secret.message}`)).not.toContain(secret.value);
    // Cut where the key is cut (1,024 characters), the secret's start is dropped with a margin, not shown,
    // even when redacting a long token before it pulls it into the first 160 characters.
    for (const at of [990, 1000, 1010]) {
      const key = signatureKey(`Error: token=${'Z'.repeat(at - 14)} ${secret.message}`)!;
      const shown = signatureText(key);
      // Any 10 characters of the secret that redaction does not keep anyway (a webhook's host does).
      const kept = signatureOf(secret.message)!;
      const windows = [...secret.value].map((_, i) => secret.value.slice(i, i + 10)).filter((w) => w.length === 10 && !kept.includes(w));
      expect(windows.filter((w) => shown.includes(w))).toEqual([]);
    }
  });

  it('messages that differ only in a secret count as one signature once redacted', () => {
    const builder = new ClusterBuilder({ sampleSize: 2 });
    const event = (message: string) => ({ timestamp: '2026-11-01T00:00:00Z', tool_name: 'Bash', input_hash: 'h', exit_code: 1, duration_ms: 5, error_category: 'auth_error', error_message: message });
    builder.add('failure', event('fatal: auth failed for ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'), 0, { file: 'log', offset: 0 });
    builder.add('failure', event('fatal: auth failed for ghp_zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210'), 0, { file: 'log', offset: 10 });
    const [cluster] = builder.finish();
    expect(cluster!.signatures).toHaveLength(1);
    expect(cluster!.signatures[0]!.count).toBe(2);
    expect(cluster!.signatures[0]!.text).not.toContain('ghp_');
  });
});


describe('isNoise', () => {
  it('agrees with running every noise pattern, whatever the first character', () => {
    const tails = ['xit code 1', 'raceback (most recent call last):', 't foo.js:1', 'ile "a.py", line 3', 'elcome to x', 'latform linux -- Python 3', 'ootdir: /x', 'ollected 3 items', '== test session starts ===', '', '==='];
    let noisy = 0;
    for (let c = 0; c <= 0xffff; c++) {
      for (const tail of tails) {
        const line = String.fromCharCode(c) + tail;
        if (line.trim() !== line) continue; // pick() only asks about trimmed lines
        const expected = NOISE.some((noise) => noise.test(line));
        if (expected) noisy += 1;
        if (isNoise(line) !== expected) expect.fail(`isNoise(${JSON.stringify(line)}) should be ${expected}`);
      }
    }
    expect(noisy).toBeGreaterThan(20);
  });
});
