import { beforeAll, describe, expect, it } from 'vitest';
import { lintSource } from '@secretlint/core';
import { creator as preset } from '@secretlint/secretlint-rule-preset-recommend';
import { redact } from '../../pipeline/safety/redact.js';
import { decodedViews, normalise, stripInvisible } from '../../pipeline/safety/normalise.js';
import { loadSecretRuleSet, scanWithRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { ENCODINGS, encodable, vendorSecrets } from '../fixtures/secret-corpus.js';

beforeAll(async () => {
  await loadSecretRuleSet();
});

const SECRETS = vendorSecrets();

/** Every (vendor, encoding) pair in scope: encoded forms for token shapes, as written for context shapes. */
const CASES = SECRETS.flatMap((secret) =>
  ENCODINGS.filter((e) => encodable(secret) || e.name === 'plain' || e.name === 'ansi').map((encoding) => ({ secret, encoding })),
);

describe('redact: vendor token formats in every encoding', () => {
  it('covers at least 40 formats and 250 cases', () => {
    expect(SECRETS.length).toBeGreaterThanOrEqual(40);
    expect(CASES.length).toBeGreaterThanOrEqual(250);
  });

  it.each(CASES.map(({ secret, encoding }) => [`${secret.vendor} / ${encoding.name}`, secret, encoding] as const))('%s', (_, secret, encoding) => {
    const message = `error: ${secret.context.replace('{}', encoding.encode(secret.value))}`;
    const out = redact(message);
    expect(out).toContain('[REDACTED:');
    expect(out.includes(secret.value), out).toBe(false);
    for (const fragment of encoding.fragments(secret.value)) expect(out.includes(fragment), `${fragment} in ${out}`).toBe(false);
    // Idempotent: a second pass finds nothing new.
    expect(redact(out)).toBe(out);
  });
});

describe('redact: text around a secret is kept', () => {
  it.each([
    ['error: module not found: /usr/lib/python3/dist-packages/foo_bar.py line 12'],
    ['fatal: unable to access https://github.com/org/repo.git: 403'],
    ['commit 3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c failed'],
    ['error TS2307: Cannot find module @types/node or its corresponding type declarations'],
    ['mkdir -p build/output && cp -r dist build/output'],
    ['password authentication failed for user "deploy"'],
    ['session 0f8fad5b-d9cb-469f-a165-70867728950e expired'],
    ['AttributeError: module numpy has no attribute float128'],
    ['E   ModuleNotFoundError: No module named requests_toolbelt.adapters'],
    ['KEYBOARD_LAYOUT=us'],
  ])('%s', (message) => {
    expect(redact(message)).toBe(message);
  });

  it('replaces only the secret, keeping the key name', () => {
    const value = SECRETS.find((s) => s.vendor === 'env-numbered')!.value;
    expect(redact(`error: API_KEY_2=${value} expired`)).toBe('error: API_KEY_2=[REDACTED:secret] expired');
  });
});

describe('redact: hostile input stays linear', () => {
  const HOSTILE = [
    'A'.repeat(900_000),
    `error: ab ${'A'.repeat(300_000)}`,
    'A_'.repeat(200_000),
    'AUTH '.repeat(100_000),
    'x:'.repeat(200_000) + '@',
    'a@'.repeat(200_000),
    'Cookie: a=b'.repeat(50_000),
    'mysql '.repeat(50_000) + '-p',
    '%41'.repeat(30_000),
    '\\u0041'.repeat(20_000),
    ('ab1Cd2Ef3\n').repeat(20_000),
    Buffer.from('x'.repeat(40_000)).toString('base64'),
  ];
  it.each(HOSTILE.map((s, i) => [i, s] as const))('hostile input #%i', (_i, s) => {
    const start = performance.now();
    redact(s);
    expect(performance.now() - start).toBeLessThan(3000);
  });
});

describe('normalise', () => {
  it('removes ANSI codes, zero-width and bidi characters', () => {
    expect(stripInvisible('\u001b[31mre\u200bd\u202e\u001b[0m')).toBe('red');
  });

  it('removes tag characters and supplementary variation selectors: a token spelled in them is stored nowhere', () => {
    const tags = (ascii: string) => [...ascii].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const text = `push failed ${tags(token)} see log\u{e0101}`;
    expect(stripInvisible(text)).toBe('push failed  see log');
    expect(redact(text)).not.toMatch(/[\u{e0000}-\u{e01ef}]/u);
    // Other astral characters (emoji, CJK extension B) are text and stay.
    expect(stripInvisible('ok \u{1f600} \u{20000}')).toBe('ok \u{1f600} \u{20000}');
  });

  it('folds full-width and look-alike letters to ASCII for detectors', () => {
    expect(normalise('ｆｏｒｃｅ ignоre')).toBe('force ignore');
  });

  it('reads JSON escapes, percent codes and base64 runs as views mapped back to the text', () => {
    const text = 'a\\u0041b %41%42 ' + Buffer.from('hello base64 world').toString('base64');
    const views = decodedViews(text).map((v) => v.text);
    expect(views[0]).toContain('aAb AB');
    expect(views).toContain('hello base64 world');
  });
});

describe('the secretlint rule set, run synchronously', () => {
  it('finds what @secretlint/core lintSource finds on the corpus (comments aside)', async () => {
    const config = { rules: [{ id: preset.meta.id, rule: preset, rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }] }] };
    for (const secret of SECRETS) {
      const content = secret.context.replace('{}', secret.value);
      const result = await lintSource({ source: { content, filePath: '/log.txt', contentType: 'text' }, options: { config: config as never, noPhysicFilePath: true } });
      const ours = scanWithRuleSet(content).map((f) => `${f.start}-${f.end}`).sort();
      const theirs = result.messages.map((m) => `${m.range[0]}-${m.range[1]}`).sort();
      expect(ours, secret.vendor).toEqual(theirs);
    }
  });

  it('ignores secretlint-disable comments, which an attacker writes in log text', async () => {
    const token = SECRETS.find((s) => s.vendor === 'github-classic')!.value;
    const content = `// secretlint-disable\n${token}`;
    const result = await lintSource({ source: { content, filePath: '/log.txt', contentType: 'text' }, options: { config: { rules: [{ id: preset.meta.id, rule: preset }] } as never, noPhysicFilePath: true } });
    expect(result.messages.filter((m) => m.type === 'message' && m.severity === 'error')).toHaveLength(0);
    expect(scanWithRuleSet(content).length).toBeGreaterThan(0);
    expect(redact(content)).not.toContain(token);
  });
});

describe('stripInvisible on ASCII (read by character code before any pattern)', () => {
  it('drops every C0 control but tab and line breaks, and DEL; keeps every printable character', () => {
    for (let c = 0; c < 128; c += 1) {
      const ch = String.fromCharCode(c);
      const kept = c === 9 || c === 10 || c === 13 || (c >= 0x20 && c < 0x7f);
      expect(stripInvisible(`a${ch}b`), `code ${c}`).toBe(kept ? `a${ch}b` : 'ab');
    }
    expect(stripInvisible('ls -la \u001b[31mred\u001b[0m')).toBe('ls -la red');
  });
});
