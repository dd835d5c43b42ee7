import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SplitSecretTracker } from '../../pipeline/ingest/split-secrets.js';
import { crossFieldRedact, redactedRuns } from '../../pipeline/safety/cross-field.js';
import { safeIdentifier } from '../../pipeline/safety/identifier.js';
import { redact } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';

/**
 * A value the redactor removes from one field of an event (by its context: a password flag, a
 * `KEY=value`, a JSON member) must not stay bare in another field, nor on another line of the message.
 * Contexts and bare sites are generated; the property holds for any context the redactor reads.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const RUNS = { numRuns: Number(process.env.XF_RUNS ?? 300), seed: Number(process.env.XF_SEED ?? 20261128) };
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Passwords people pick: letters and digits, some with a symbol; 8–24 characters. */
const password = fc
  .tuple(fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 7, maxLength: 22 }), fc.constantFrom('', '!', '_', '.', '#'))
  .map(([body, symbol]) => `${body.slice(0, 1).toUpperCase()}${body.slice(1)}${symbol}`)
  .filter((v) => /[a-z]/.test(v));

/** Where the redactor knows the value is a secret. */
const contexts: ((v: string) => string)[] = [
  (v) => `mysql -u root -p${v} appdb`,
  (v) => `PGPASSWORD=${v} psql -h db -U app`,
  (v) => `curl -u deploy:${v} https://ci.internal/api`,
  (v) => `{"user":"app","password":"${v}"}`,
  (v) => `export DB_PASSWORD=${v}`,
  (v) => `login --password ${v}`,
  (v) => `git clone https://bot:${v}@git.internal/org/repo.git`,
];
/** Where it is only a word. */
const bare: ((v: string) => string)[] = [
  (v) => `Access denied for user 'root'@'localhost' (${v})`,
  (v) => `error: ${v} rejected by server`,
  (v) => `cannot open /tmp/${v}.lock: No such file or directory`,
  (v) => `unknown argument ${v}`,
  (v) => `warning: value '${v}' looks wrong`,
];

function leaked(event: TelemetryEvent, value: string): string[] {
  return Object.entries(event).filter(([, field]) => typeof field === 'string' && field.includes(value)).map(([key]) => key);
}

describe('cross-field redaction: a value redacted anywhere in an event leaves all of its fields', () => {
  const base = { timestamp: 0, tool_name: 'Bash', input_hash: 'h1', exit_code: 1, duration_ms: 1, session_id: 's-1' };
  const known = (context: (v: string) => string, v: string) => !redact(context(v)).includes(v);

  it('call → message: the password of the command, echoed bare by the error', () => {
    fc.assert(
      fc.property(password, fc.constantFrom(...contexts), fc.constantFrom(...bare), (v, context, site) => {
        fc.pre(known(context, v));
        const event = { ...base, input_summary: context(v), error_message: site(v) } as TelemetryEvent;
        const kept = new SplitSecretTracker().follow(event);
        expect(leaked(kept, v), JSON.stringify(kept)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('message → call, and one line of the message → another', () => {
    fc.assert(
      fc.property(password, fc.constantFrom(...contexts), fc.constantFrom(...bare), (v, context, site) => {
        fc.pre(known(context, v));
        const event = { ...base, input_summary: `retry ${v}`, error_message: `${site(v)}\n  at step 2\n${context(v)}` } as TelemetryEvent;
        const kept = new SplitSecretTracker().follow(event);
        expect(leaked(kept, v), JSON.stringify(kept)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('an identifier that holds the value is stored as its placeholder', () => {
    fc.assert(
      fc.property(password.filter((v) => /^[A-Za-z0-9]+$/.test(v)), fc.constantFrom(...contexts), (v, context) => {
        fc.pre(known(context, v));
        const event = { ...base, session_id: `s-${v}`, error_category: v, input_summary: context(v), error_message: 'error: failed' } as TelemetryEvent;
        // As stored: after cross-field, through the identifier grammar (which replaces and counts what it refuses itself).
        const kept = crossFieldRedact(event);
        const stored = { ...kept, session_id: safeIdentifier('session_id', kept.session_id!), error_category: safeIdentifier('error_category', kept.error_category!) };
        expect(leaked(stored, v), JSON.stringify(stored)).toEqual([]);
        expect(stored.session_id).toMatch(/^session-[0-9a-f]{6}$/);
        expect(stored.error_category).toMatch(/^category-[0-9a-f]{6}$/);
      }),
      RUNS,
    );
  });

  it('leaves events without a secret exactly as they were (the same object)', () => {
    for (const [summary, message] of [
      ['npm test', 'Error: Cannot find module ./FooBar'],
      ['git push origin main', "error: failed to push some refs to 'origin'"],
      ['python3 -m pytest tests/test_parser.py', 'FAILED tests/test_parser.py::test_empty - AssertionError'],
    ] as const) {
      const event = { ...base, input_summary: summary, error_message: message } as TelemetryEvent;
      expect(crossFieldRedact(event)).toBe(event);
    }
  });

  it('does not spread a key word or a short value: only the secret leaves', () => {
    const event = { ...base, input_summary: 'curl -H "Authorization: Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a"', error_message: 'Authorization failed: Bearer token expired (token ghp_16C7e42F292c6912E7710c838347Ae178B4a)' } as TelemetryEvent;
    const kept = crossFieldRedact(event);
    expect(kept.error_message).toContain('Authorization failed: Bearer token expired');
    expect(kept.error_message).not.toContain('ghp_16C7');
  });

  it('finds the runs a marker stands for, and refuses what it cannot align', () => {
    expect(redactedRuns('a password=abc123xyz b', 'a password=[REDACTED:password] b')).toEqual(['abc123xyz']);
    expect(redactedRuns('x=1 y=2', 'x=[REDACTED:a] y=[REDACTED:b]')).toEqual(['1', '2']);
    expect(redactedRuns('plain', 'plain')).toEqual([]);
    expect(redactedRuns('abc', 'zzz [REDACTED:a]')).toBeNull();
  });
});

describe('cross-field redaction: copies in another case', () => {
  const base = { timestamp: 0, tool_name: 'Bash', input_hash: 'h1', exit_code: 1, duration_ms: 1, session_id: 's-1' };
  it('an upper-cased, lower-cased or capitalised copy is the same secret', () => {
    fc.assert(
      fc.property(password, fc.constantFrom(...contexts), fc.constantFrom(...bare), fc.constantFrom((v: string) => v.toUpperCase(), (v: string) => v.toLowerCase(), (v: string) => v[0]!.toUpperCase() + v.slice(1).toLowerCase()), (v, context, site, recase) => {
        fc.pre(!redact(context(v)).includes(v));
        const event = { ...base, input_summary: context(v), error_message: site(recase(v)) } as TelemetryEvent;
        const kept = crossFieldRedact(event);
        expect(kept.error_message!.toLowerCase(), JSON.stringify(kept)).not.toContain(v.toLowerCase());
      }),
      RUNS,
    );
  });
});

describe('cross-field redaction: copies only a decoding shows', () => {
  const base = { timestamp: 0, tool_name: 'Bash', input_hash: 'h1', exit_code: 1, duration_ms: 1, session_id: 's-1' };
  const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');
  const encodings: ((v: string) => string)[] = [
    (v) => [...v].map((c) => `\\u${hex(c)}`).join(''),
    (v) => `${v.slice(0, 2)}${[...v.slice(2, 6)].map((c) => `\\u${hex(c)}`).join('')}${v.slice(6)}`,
    (v) => [...v].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
    (v) => [...v].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  ];
  const decoded = (text: string) => text.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/%([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));

  it('a JSON-escaped, percent-encoded or character-referenced copy is the same secret', () => {
    fc.assert(
      fc.property(password, fc.constantFrom(...contexts), fc.constantFrom(...encodings), (v, context, encode) => {
        fc.pre(!redact(context(v)).includes(v));
        const event = { ...base, input_summary: context(v), error_message: `{"error":"denied","user":"${encode(v)}"}` } as TelemetryEvent;
        const kept = crossFieldRedact(event);
        expect(decoded(kept.error_message!).toLowerCase(), JSON.stringify(kept)).not.toContain(v.toLowerCase());
        expect(kept.error_message).toContain('"error":"denied"');
      }),
      RUNS,
    );
  });
});

describe('cross-field redaction: hostile runs', () => {
  it('a redacted run far longer than any password is left to its own shape, and the event is still read', () => {
    const message = 'password='.repeat(90_000);
    const event = { timestamp: 0, tool_name: 'Bash', input_hash: 'h1', exit_code: 1, duration_ms: 1, error_message: message, input_summary: 'login' } as TelemetryEvent;
    expect(() => crossFieldRedact(event)).not.toThrow();
  });
});
