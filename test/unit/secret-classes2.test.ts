import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SplitSecretTracker } from '../../pipeline/ingest/split-secrets.js';
import { SignatureCounter } from '../../pipeline/ingest/signature-counter.js';
import { BIP39_ENGLISH } from '../../pipeline/safety/bip39-words.js';
import { FORMAT_DETECTORS, runFormat, type FormatFinding } from '../../pipeline/safety/credential-formats.js';
import { findMnemonics } from '../../pipeline/safety/mnemonic.js';
import { redact } from '../../pipeline/safety/redact.js';
import { compileNeeds } from '../../pipeline/safety/secret-prefilter.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { splitAcrossFields } from '../../pipeline/safety/split-secret.js';
import { fenceEvidence } from '../../pipeline/synth/fence.js';
import { signatureKey } from '../../pipeline/templates/signature.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { leaks } from '../helpers/secret-leak.js';

/**
 * The secret classes the second pass of issue 14 items 1-2 closed, each on generated variants (fast-check):
 * credential-bearing file formats read by their grammar, BIP-39 seed phrases, credentials inside string
 * literal wrappers, a secret split between the two texts of one event, and signatures kept as masked
 * templates. Values are letters only where the format allows: no digit for a randomness rule to see.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

// A fixed seed: low-entropy halves (`AAAAAAAAAAAf`) that no detector should call random turn up about once in 50,000
// runs; CI must not fail on them by chance. SC2_SEED and SC2_RUNS explore further.
const RUNS = { numRuns: Number(process.env.SC2_RUNS ?? 200), seed: Number(process.env.SC2_SEED ?? 20261127) };
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const letters = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...LETTERS), minLength: min, maxLength: max });
/** A password a person picks for a file: letters with both cases, or any printable run without blanks or quotes. */
const password = fc.oneof(letters(8, 30).filter((v) => /[a-z]/.test(v) && /[A-Z]/.test(v)), fc.stringMatching(/^[A-Za-z0-9!@#%^*_+=.~\/-]{8,28}$/));
const WORDS = BIP39_ENGLISH.split(' ');


function expectGone(text: string, value: string): void {
  const out = redact(text);
  expect(leaks(out, value, text), `${JSON.stringify(text)} → ${JSON.stringify(out)}`).toBe(false);
}

describe('credential-bearing file formats: the secret field by the format, whatever its alphabet', () => {
  const host = fc.constantFrom('db.internal', 'localhost', '*', '10.20.0.5', 'pg-primary.prod.example.com');
  const intro = fc.constantFrom('', 'psql: warning: ignoring invalid line 3 of password file "/root/.pgpass": ', 'error: bad entry ', '"', 'libpq: ');

  it('.pgpass lines (host:port:db:user:password, wildcards, escaped colons)', () => {
    fc.assert(
      fc.property(intro, host, fc.constantFrom('5432', '*', '6543'), fc.constantFrom('app', '*', 'orders'), fc.constantFrom('postgres', 'svc_app', '*'), password, (pre, h, port, db, user, pw) => {
        expectGone(`${pre}${h}:${port}:${db}:${user}:${pw}`, pw);
      }),
      RUNS,
    );
    expectGone('pg_dump: error: could not parse entry "db:5432:app:app:AbCdEfGh\\:IjKlMnOp"', 'AbCdEfGh\\:IjKlMnOp');
  });

  it('.netrc entries on one line or several, password and account', () => {
    fc.assert(
      fc.property(fc.constantFrom('machine api.example.com', 'machine ftp.internal', 'default'), fc.constantFrom(' ', '\n  '), fc.constantFrom('password', 'account'), password, (machine, gap, key, pw) => {
        expectGone(`error: bad entry in ~/.netrc: ${machine}${gap}login ci${gap}${key} ${pw}`, pw);
      }),
      RUNS,
    );
  });

  it('password hashes as htpasswd, shadow and LDAP store them', () => {
    const salt = fc.stringMatching(/^[./A-Za-z0-9]{8}$/);
    const hash = (n: number) => fc.stringMatching(new RegExp(`^[./A-Za-z]{${n}}$`));
    fc.assert(
      fc.property(salt, hash(22), hash(53), hash(43), (s, h22, h53, h43) => {
        for (const value of [`$apr1$${s}$${h22}`, `$2y$10$${h53}`, `$6$${s}$${h43}`, `{SSHA}${h22}==`]) expectGone(`AH01618: password mismatch in .htpasswd line deploy:${value}`, value);
      }),
      { numRuns: 100 },
    );
  });

  it('each format detector finds nothing in a text that lacks what it declares it needs', () => {
    const text = fc.oneof(fc.string({ maxLength: 80 }), fc.tuple(fc.constantFrom('machine x login y password ', 'db:5432:a:b:', '$apr1$abcdefgh$', '{SHA}', 'account '), password).map(([a, b]) => a + b));
    for (const detector of FORMAT_DETECTORS) {
      const admits = compileNeeds(detector.needs);
      fc.assert(
        fc.property(text, (t) => {
          const out: FormatFinding[] = [];
          runFormat(detector, t, out);
          return admits(t) || out.length === 0;
        }),
        { numRuns: 500 },
      );
    }
  });

  it('keeps ordinary text with colons readable (compiler positions, times, IPv6, MAC addresses)', () => {
    for (const line of [
      'src/a.c:12:5:warning:unused variable',
      'main.c:12:5: error: expected expression',
      '0:0:0:0:0:0:0:0:2181 Notification time out: 60000',
      'DHCPACK on 10.100.4.251 to 00:11:43:e3:8b:12 via eth1',
      '2015-10-18 18:01:47,978 INFO [main] started',
      'password authentication failed for user "app"',
    ]) expect(redact(line)).toBe(line);
  });
});

describe('BIP-39 seed phrases: list words in a row', () => {
  const phrase = (n: number) => fc.array(fc.constantFrom(...WORDS), { minLength: n, maxLength: n });
  const sep = fc.constantFrom(' ', ', ', '-', '\n', ' \n');
  const frame = fc.constantFrom('Error: invalid mnemonic: "$" checksum failed', '{"seed":"$"}', 'ValueError: bad checksum for $', 'cast wallet import --mnemonic \'$\' failed', 'error: $');

  it('12 to 24 words, any separator, any case, any frame', () => {
    fc.assert(
      fc.property(fc.constantFrom(12, 15, 18, 21, 24), sep, frame, fc.boolean(), (n, s, f, title) => {
        const words = fc.sample(phrase(n), 1)[0]!.map((w) => (title ? w[0]!.toUpperCase() + w.slice(1) : w));
        const text = f.replace('$', words.join(s));
        const out = redact(text);
        // Every four words in a row of the phrase are gone (single common words may stand elsewhere in the frame).
        for (let i = 0; i + 4 <= n; i += 1) expect(out.includes(words.slice(i, i + 4).join(s)), `${text} → ${out}`).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('a phrase cut short (6 words or more) right after a seed word', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 11 }), fc.constantFrom('mnemonic: ', 'seed phrase ', 'recovery words: "', '--seed '), (n, intro) => {
        const words = fc.sample(phrase(n), 1)[0]!;
        const out = redact(`error: ${intro}${words.join(' ')}`);
        expect(out).toContain('[REDACTED:mnemonic]');
      }),
      { numRuns: 100 },
    );
  });

  it('numbered lists of words', () => {
    const words = WORDS.slice(100, 112);
    const out = redact(`wallet: ${words.map((w, i) => `${i + 1}. ${w}`).join(' ')}`);
    for (const w of words.slice(1)) expect(out).not.toContain(` ${w}`);
  });

  it('keeps prose: no English sentence of the real logs makes 12 list words in a row', () => {
    for (const line of [
      'You can also use this when they have a good idea about the next item in the list',
      'seed the database before you run the migration tests again',
      'Error: Cannot find module, please check your install and try again with a clean cache',
      'warning: the following paths are ignored by one of your gitignore files',
    ]) {
      const out: { start: number; end: number; kind: string }[] = [];
      findMnemonics(line, out);
      expect(out, line).toEqual([]);
    }
  });
});

describe('credentials inside string literal wrappers', () => {
  const prefix = fc.constantFrom("b'", "u'", "r'", "rb'", 'b"', "B'");
  it('bytes, raw and unicode literals around a header, a key or a token field', () => {
    fc.assert(
      fc.property(prefix, fc.constantFrom('Authorization', 'X-Api-Key', 'token', 'password', 'client_secret', 'X-Auth-Token'), letters(24, 40).filter((v) => /[a-z]/.test(v) && /[A-Z]/.test(v)), (p, key, value) => {
        const q = p.at(-1)!;
        const shown = key === 'Authorization' ? `Bearer ${value}` : value;
        expectGone(`requests.exceptions.HTTPError: 401 headers={${p}${key}${q}: ${p}${shown}${q}}`, value);
      }),
      RUNS,
    );
  });

  it("bash's $'' quoting and JSON-escaped JSON around a bearer header", () => {
    fc.assert(
      fc.property(letters(24, 40).filter((v) => /[a-z]/.test(v) && /[A-Z]/.test(v)), (value) => {
        expectGone(`curl -H $'Authorization: Bearer ${value}' https://api.example.com`, value);
        expectGone(`error: body "{\\"headers\\":{\\"Authorization\\":\\"Bearer ${value}\\"}}"`, value);
        expectGone(`error: 401 for header 'Bearer ${value}'`, value);
      }),
      RUNS,
    );
  });

  it('keeps prose about bearer tokens and plain bytes literals', () => {
    for (const line of ["error: bearer authentication required", "TypeError: a bytes-like object is required, not 'str' (got b'hello world')", "ValueError: invalid literal u'abc' for int()"]) expect(redact(line)).toBe(line);
  });
});

describe('a secret split between the fields of one event', () => {
  const half = letters(12, 18).filter((v) => /[a-z]/.test(v) && /[A-Z]/.test(v));
  const shapes = fc.constantFrom(
    (a: string, b: string) => ({ input_summary: `deploy --token ${a}`, error_message: `error: token ${b} rejected` }),
    (a: string, b: string) => ({ input_summary: `curl -H "Authorization: Bearer ${a}`, error_message: `${b}" failed: curl: (22) 401` }),
    (a: string, b: string) => ({ input_summary: `API_TOKEN=${a}`, error_message: `${b}: command not found` }),
    (a: string, b: string) => ({ input_summary: `login --key ${a}`, error_message: `error: key rejected ...${b}` }),
    (a: string, b: string) => ({ error_message: `error: refused key=${a}`, input_summary: `retry ${b}` }),
  );

  it('both halves are redacted in the event the fold keeps', () => {
    fc.assert(
      // Two different halves: one value written in both fields is no split (see the note on repeated values below).
      fc.property(shapes, half, half, (shape, a, b) => {
        fc.pre(a.toLowerCase() !== b.toLowerCase());
        const fields = shape(a, b);
        const event = { timestamp: 0, tool_name: 'Bash', input_hash: 'h', exit_code: 1, duration_ms: 1, session_id: 's', ...fields } as TelemetryEvent;
        const kept = new SplitSecretTracker().follow(event);
        const text = `${kept.input_summary}\n${kept.error_message}`;
        const out = redact(text);
        expect(leaks(out, a, `${fields.input_summary}\n${fields.error_message}`) || leaks(out, b, `${fields.input_summary}\n${fields.error_message}`), `${JSON.stringify(fields)} → ${out}`).toBe(false);
      }),
      RUNS,
    );
  });

  it('leaves ordinary calls and errors as they are', () => {
    for (const [summary, message] of [
      ['npm test', 'Error: Cannot find module ./FooBar'],
      ['python3 -m pytest tests/TestParser.py', 'FAILED tests/TestParser.py::TestParser::test_empty - AssertionError'],
      ['git push origin main', "error: failed to push some refs to 'origin'"],
      ['cat src/components/UserProfile.tsx', 'cat: src/components/UserProfile.tsx: No such file or directory'],
    ] as const) {
      expect(splitAcrossFields(summary, message)).toEqual([summary, message]);
    }
  });
});

describe("the model's prompt carries signatures as masked templates, never the line", () => {
  it('a token the detectors do not know, inside a URL with digits, does not reach the prompt', () => {
    const token = 'UMcZzTabcdefGHIJKLmnopqrstuvwxyz-_abcdefghijklQRSTUVWXYZabcdefghijklmnopq';
    const counter = new SignatureCounter(32);
    for (let i = 0; i < 3; i += 1) counter.count(signatureKey(`requests.exceptions.HTTPError: 401 Client Error for url: https://discord.com/api/webhooks/1187654321098765432/${token}`)!);
    const cluster = { tool_name: 'python', kind: 'failure', error_category: null, count: 3, carried_over: 0, distinct_inputs: 1, sessions: ['s'], first_seen: 'a', last_seen: 'b', baseline_ms: null, signatures: counter.top(), samples: [] };
    const prompt = fenceEvidence(cluster as never, 'NonceNonce12');
    expect(prompt).toContain('requests.exceptions.HTTPError: <*> Client Error for url: <*>');
    expect(leaks(prompt, token, token)).toBe(false);
  });
});
