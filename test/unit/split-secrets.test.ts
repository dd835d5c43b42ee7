import { beforeAll, describe, expect, it } from 'vitest';
import { SplitSecretTracker } from '../../pipeline/ingest/split-secrets.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
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
    const sensitive = new SplitSecretTracker();
    sensitive.follow(failure('s-1', `error: auth header part two ${token.slice(20)}`));
    const plain = new SplitSecretTracker();
    plain.follow(failure('s-1', 'error: auth header part two missing'));
    const other = new SplitSecretTracker();
    other.follow(failure('s-2', `error: auth header part two ${token.slice(20)}`));
    expect(main.canAbsorb(sensitive.toState())).toBe(false);
    expect(main.canAbsorb(plain.toState())).toBe(true);
    expect(main.canAbsorb(other.toState())).toBe(true);
    expect(new SplitSecretTracker().canAbsorb(sensitive.toState())).toBe(true);
  });

  it('events without a session are one stream', () => {
    const tracker = new SplitSecretTracker();
    tracker.follow(failure(undefined, `error: key ${token.slice(0, 16)}`));
    expect(tracker.follow(failure(undefined, `error: rest ${token.slice(16)}`)).error_message).toBe('error: rest [REDACTED:secret]');
  });
});
