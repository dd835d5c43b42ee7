import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SplitSecretTracker } from '../../pipeline/ingest/split-secrets.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { redact } from '../../pipeline/safety/redact.js';
import { endsWithSecret } from '../../pipeline/safety/split-secret.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { body, p } from '../fixtures/attacks/parts.js';

beforeAll(async () => {
  await loadSecretRuleSet();
});

const failure = (session: string | undefined, message: string): TelemetryEvent =>
  ({ timestamp: '2026-11-20T10:00:00Z', tool_name: 'Bash', input_hash: 'h', exit_code: 1, duration_ms: 1, ...(session ? { session_id: session } : {}), error_message: message }) as TelemetryEvent;

const token = `${p('gh', 'p_')}${body('split-secrets-test', 36)}`;

describe('SplitSecretTracker', () => {
  it('reads ordinary failures as they are, in a session that never ended with a secret', () => {
    const tracker = new SplitSecretTracker();
    for (const message of ['error: build 4f2a9c1e failed', 'TypeError: Cannot read properties of undefined (reading a1B2c3D4)', 'error: exit 2']) {
      expect(tracker.follow(failure('s', message)).error_message).toBe(message);
    }
  });

  it('a split night merges only when the range reads as the one-thread night would', () => {
    const main = new SplitSecretTracker();
    main.follow(failure('s-1', `error: auth header part one ${token.slice(0, 20)}`));
    // The trackers of the ranges after it (a worker's: they note the sessions they read).
    const sensitive = new SplitSecretTracker(true);
    // The rest alone is too short to read as a secret (a longer one is redacted in its own event).
    sensitive.follow(failure('s-1', `error: auth header part two ${token.slice(20, 32)}`));
    const plain = new SplitSecretTracker(true);
    plain.follow(failure('s-1', 'error: auth header part two missing'));
    const other = new SplitSecretTracker(true);
    other.follow(failure('s-2', `error: auth header part two ${token.slice(20, 32)}`));
    expect(main.canAbsorb(sensitive.toState())).toBe(false);
    // The first part was redacted, so s-1 gave a value away: a range that reads s-1 at all may hold a copy.
    expect(main.canAbsorb(plain.toState())).toBe(false);
    expect(main.canAbsorb(other.toState())).toBe(true);
    expect(new SplitSecretTracker().canAbsorb(sensitive.toState())).toBe(true);
  });

  it('events without a session are one stream', () => {
    const tracker = new SplitSecretTracker();
    tracker.follow(failure(undefined, `error: key ${token.slice(0, 16)}`));
    expect(tracker.follow(failure(undefined, `error: rest ${token.slice(16)}`)).error_message).toBe('error: rest [REDACTED:secret]');
  });
});

describe('endsWithSecret', () => {
  // The reading before it went by character codes: a regex test per character, and the end pattern alone.
  const TRAILING = /[\s.,;:!?)"'\]}>\u2026]/;
  const TOKEN_CHAR = /[A-Za-z0-9+/=_-]/;
  const ENDS_REDACTED = /\[REDACTED:[a-z0-9_]+\][\s.,;:!?)"'\]}>\u2026]*$/;
  function reference(text: string): boolean {
    if (ENDS_REDACTED.test(text.length > 600 ? text.slice(-600) : text)) return true;
    let end = text.length;
    while (end > 0 && TRAILING.test(text[end - 1]!)) end -= 1;
    let start = end;
    while (start > 0 && end - start < 400 && TOKEN_CHAR.test(text[start - 1]!)) start -= 1;
    const run = text.slice(start, end);
    if (run.length < 8 || !(/[A-Za-z]/.test(run) && (/\d/.test(run) || (/[a-z]/.test(run) && /[A-Z]/.test(run))))) return false;
    return ENDS_REDACTED.test(redact(text.slice(Math.max(text.lastIndexOf('\n', end - 1) + 1, end - 2000), end)));
  }

  it('reads a text as the per-character patterns did (Unicode spaces, surrogates, markers, tokens)', () => {
    const piece = fc.oneof(
      fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\ud83d', '\ude00', '.', ',', ';', ':', ')', '"', "'", ']', '[', '>', '@', '%'),
      fc.constantFrom('[REDACTED:secret]', '[REDACTED:github_token]', 'error: ', token, 'a1B2c3D4e5', 'AbCdEfGhIjKl', 'plainwords', '=', '/', '+', '_', '-'),
      fc.string({ unit: fc.constantFrom(...'aZ09+/=_-xQ'), maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(endsWithSecret(text)).toBe(reference(text));
      }),
      { numRuns: 2000, seed: 20_261_127 },
    );
  });
});

describe('the rest of a token a failure or two later in its session', () => {
  const B36 = 'abcdefghijklmnopqrstuvwxyz0123456789';

  it('is redacted with other failures between, in the message or the call; then the session moves on', () => {
    const rest = body('split-later-rest', 16, B36);
    const tracker = new SplitSecretTracker();
    tracker.follow(failure('s-1', `error: auth failed ${token.slice(0, 24)}`));
    expect(tracker.follow({ ...failure('s-1', 'error: file not found'), tool_name: 'Read' }).error_message).toBe('error: file not found');
    expect(tracker.follow(failure('s-1', `error: continued ${rest} at step 2`)).error_message).toBe('error: continued [REDACTED:secret] at step 2');
    // The rest found, the session's next failure is read as it is (a copy of the rest aside: the session gave it away).
    expect(tracker.follow(failure('s-1', 'error: build 4f2a9c1e7b failed')).error_message).toBe('error: build 4f2a9c1e7b failed');
    expect(tracker.follow(failure('s-1', `error: again ${rest}`)).error_message).toBe('error: again [REDACTED:secret]');

    const inCall = new SplitSecretTracker();
    inCall.follow(failure('s-2', `error: auth failed ${token.slice(0, 24)}`));
    inCall.follow(failure('s-2', 'error: exit 1'));
    const kept = inCall.follow({ ...failure('s-2', 'error: exit 2'), input_summary: `deploy --rest ${rest}` });
    expect(kept.input_summary).toBe('deploy --rest [REDACTED:secret]');
  });

  it('is looked for in three failures, not further', () => {
    const rest = body('split-later-far', 16, B36);
    const tracker = new SplitSecretTracker();
    tracker.follow(failure('s-1', `error: auth failed ${token.slice(0, 24)}`));
    for (const message of ['error: one', 'error: two', 'error: three']) tracker.follow(failure('s-1', message));
    expect(tracker.follow(failure('s-1', `error: continued ${rest}`)).error_message).toContain(rest);
  });

  it('after the next failure, names of words stay: error names, versions, units, architectures', () => {
    const names = 'TypeError SyntaxError ModuleNotFoundError getElementById NullPointerException FileNotFoundError readFileSync sha256sum x86_64 UnicodeDecodeError JSONDecodeError OSError HTTPError useEffect addEventListener OAuth2Client python3 es2022 Float32Array Uint8Array arm64 aarch64 100ms getUserById ERR_MODULE_NOT_FOUND';
    const tracker = new SplitSecretTracker();
    tracker.follow(failure('s-1', `error: auth failed ${token.slice(0, 24)}`));
    tracker.follow(failure('s-1', 'error: exit 1'));
    expect(tracker.follow(failure('s-1', `error: ${names}`)).error_message).toBe(`error: ${names}`);
  });

  it('a name read as a rest in the next failure is redacted there only, never remembered as the session\'s secret', () => {
    const tracker = new SplitSecretTracker();
    tracker.follow(failure('s-1', `error: auth failed ${token.slice(0, 24)}`));
    expect(tracker.follow(failure('s-1', 'SyntaxError: bad input')).error_message).toBe('[REDACTED:secret]: bad input');
    expect(tracker.follow(failure('s-1', 'error: SyntaxError: bad input at step 2')).error_message).toBe('error: SyntaxError: bad input at step 2');
  });

  it('the stricter reading still takes the rests of random tokens: base62 and base36 rests of 16', () => {
    let missed = 0;
    for (let i = 0; i < 400; i += 1) {
      const rest = body(`split-later-rate-${i}`, 16, i % 2 === 0 ? undefined : B36);
      const tracker = new SplitSecretTracker();
      tracker.follow(failure('s', `error: auth failed ${token.slice(0, 24)}`));
      tracker.follow(failure('s', 'error: exit 1'));
      if (tracker.follow(failure('s', `error: continued ${rest}`)).error_message!.includes(rest)) missed += 1;
    }
    // Measured: 0.05 % of base62 and 0.06 % of base36 rests of 16 read as names (20,000 each).
    expect(missed).toBeLessThanOrEqual(2);
  });

  it('a split night counts the failures a range read against a cut before it', () => {
    const main = new SplitSecretTracker();
    main.follow(failure('s-1', `error: auth failed ${token.slice(0, 24)}`));
    const range = new SplitSecretTracker(true);
    range.follow(failure('s-1', 'error: exit 1'));
    range.follow(failure('s-1', 'error: exit 2'));
    const state = range.toState();
    // s-1 gave a value away, so this range cannot merge; the count is what absorb would take.
    expect(state.read).toEqual([['s-1', 2]]);
    const plain = new SplitSecretTracker();
    plain.follow(failure('s-3', 'error: auth failed to pick a branch'));
    const after = new SplitSecretTracker(true);
    after.follow(failure('s-4', 'error: exit 1'));
    expect(plain.canAbsorb(after.toState())).toBe(true);
  });
});

describe('a head that ends its text behind punctuation or a line break', () => {
  it('marks its session: `!`, `…`, a JSON body\'s `"}`, a trailing newline', () => {
    for (const end of ['!', '…', '"}', '\n', '?\n\n']) {
      const tracker = new SplitSecretTracker();
      tracker.follow(failure('s', `error: {"token": "${token.slice(0, 20)}${end}`));
      const rest = token.slice(20, 32);
      expect(tracker.follow(failure('s', `error: part two ${rest}`)).error_message, JSON.stringify(end)).toBe('error: part two [REDACTED:secret]');
    }
  });
});
