import { beforeAll, describe, expect, it } from 'vitest';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { BASE } from '../helpers/night-log.js';
import { keptOfNight } from '../helpers/night-kept.js';
import { body } from '../fixtures/attacks/parts.js';

/**
 * A token cut between an identifier and the event's texts: the category (or tool name, session id) holds a
 * piece the identifier grammar refuses as a token's (`auth_<11 hex>`), and the rest stands in the message
 * in groups too short for any reading alone. The refusal anchors the rest: the event's texts are read as
 * right after a secret, and its session's next failure too.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const HEX = '0123456789abcdef';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface Failure {
  category?: string;
  tool?: string;
  session?: string;
  message: string;
  summary?: string;
}

function night(failures: Failure[]): string {
  return `${failures
    .map((f, i) =>
      JSON.stringify({
        timestamp: new Date(BASE + i * 1000).toISOString(),
        tool_name: f.tool ?? 'Bash',
        input_hash: `h${i}`,
        exit_code: 1,
        duration_ms: 10,
        error_category: f.category ?? 'auth_error',
        error_message: f.message,
        session_id: f.session ?? 's-1',
        ...(f.summary ? { input_summary: f.summary } : {}),
      }),
    )
    .join('\n')}\n`;
}

const kept = keptOfNight;

const groups = (text: string, size: number): string[] => text.match(new RegExp(`[^]{1,${size}}`, 'g'))!;

describe('the rest of a token whose piece an identifier held', () => {
  it('leaves the message when the category held hex digits of it, for any cut of the rest (seeded)', () => {
    for (let i = 0; i < 12; i += 1) {
      const token = body(`refused-hex-${i}`, 32, HEX);
      const rest = groups(token.slice(11), 4 + (i % 3));
      const out = kept(night([0, 1, 2].map(() => ({ category: `auth_${token.slice(0, 11)}`, message: `error: 401 ${rest.join(' ')}` }))));
      for (const piece of rest.filter((p) => p.length >= 4)) expect(out, `${i}: ${piece}`).not.toContain(piece);
      // The failure is still kept: a cluster whose template says what failed.
      expect(out).toContain('error: ');
    }
  });

  it('leaves the call and the message, and the session\'s next failure, when the session id held a random part', () => {
    const token = body('refused-session', 36, BASE62);
    const rest = groups(token.slice(16), 4);
    const out = kept(
      night([
        { session: `run-${token.slice(0, 16)}`, message: `error: auth rejected ${rest.slice(0, 2).join('.')}`, summary: `deploy --key-part ${rest.slice(2, 4).join('-')}` },
        { session: `run-${token.slice(0, 16)}`, message: `error: auth rejected ${rest.slice(4).join('.')}` },
        { session: `run-${token.slice(0, 16)}`, message: 'error: auth rejected again' },
      ]),
    );
    for (const piece of rest) expect(out, piece).not.toContain(piece);
  });

  it('keeps the words, names, versions and units of such an event', () => {
    const message = 'TypeError: handler is undefined in worker v12 after 100ms (sha256 check)';
    const out = kept(night([0, 1, 2].map(() => ({ category: `auth_${body('refused-words', 11, HEX)}`, message }))));
    for (const word of ['TypeError', 'handler is undefined', 'v12', '100ms', 'sha256']) expect(out, word).toContain(word);
  });

  it('reads a message as it is when no identifier held a secret, or one was refused for its grammar', () => {
    const message = 'error: build 4f2a9c1 e3b0c44 failed at step 3a7f';
    for (const failure of [{ message }, { tool: 'Bash --force', message }, { category: 'see https://example.com', message }]) {
      const out = kept(night([failure, failure, failure]));
      expect(out, JSON.stringify(failure)).toContain('4f2a9c1');
    }
  });
});
