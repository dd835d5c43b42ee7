import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { IngestFold, type FoldSegment, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { clustersByTemplate } from '../../pipeline/ingest/by-template.js';
import { mergePartial, rangeFold, settledBy, toPartial } from '../../pipeline/ingest/merge.js';
import { SessionSecrets } from '../../pipeline/ingest/session-secrets.js';
import { SplitSecretTracker } from '../../pipeline/ingest/split-secrets.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import type { TelemetryEvent } from '../../pipeline/telemetry/event.js';
import { TemplateMiner } from '../../pipeline/templates/miner.js';
import { BASE, splitLines } from '../helpers/night-log.js';
import { body } from '../fixtures/attacks/parts.js';

/**
 * A value the redactor recognised as a secret in one event of a session (`db login --password x`, where
 * the flag marks it) is removed from the session's other events too, where nothing marks it
 * (`error: cached credential x expired`): from the later ones as they are folded, and from what was kept
 * of the earlier ones once the night is read.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const SETTINGS: FoldSettings = { sample_size: 5, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
const SEGMENT: FoldSegment = { file: 'logs/telemetry.jsonl', cutoff: null };

/** A pronounceable password of lower-case letters: no shape, no randomness, nothing marks it but its flag. */
function letters(seed: string, pairs = 6): string {
  const c = 'bdfgklmnprstvz';
  const v = 'aeiou';
  const picks = body(`session-secrets-${seed}`, pairs * 2, '0123456789abcdefghijklmnopqrstuvwxyz');
  let out = '';
  for (let i = 0; i < pairs; i += 1) out += c[picks.charCodeAt(i * 2) % c.length]! + v[picks.charCodeAt(i * 2 + 1) % v.length]!;
  return out;
}

interface Call {
  session?: string;
  fails: boolean;
  summary?: string;
  message?: string;
  tool?: string;
}

function night(calls: Call[]): string {
  return `${calls
    .map((c, i) =>
      JSON.stringify({
        timestamp: new Date(BASE + i * 1000).toISOString(),
        tool_name: c.tool ?? 'Bash',
        input_hash: `h${i}`,
        exit_code: c.fails ? 1 : 0,
        duration_ms: 10,
        ...(c.fails ? { error_category: 'db_error', error_message: c.message ?? 'error: exit 1' } : {}),
        ...(c.session ? { session_id: c.session } : {}),
        ...(c.summary ? { input_summary: c.summary } : {}),
      }),
    )
    .join('\n')}\n`;
}

/** Everything the night keeps: clusters (templates, evidence, signatures, what worked next) and the templates for state. */
function kept(text: string): string {
  const fold = new IngestFold(SETTINGS, {});
  for (const line of splitLines(text, 1 << 16)) fold.line(line, SEGMENT);
  const miner = new TemplateMiner();
  const clusters = clustersByTemplate(fold.builder, miner, fold.limits, fold.settleSecrets());
  return JSON.stringify({ clusters, templates: miner.toState() });
}

const failure = (session: string | undefined, fields: Partial<TelemetryEvent>): TelemetryEvent =>
  ({ timestamp: '2026-11-20T10:00:00Z', tool_name: 'Bash', input_hash: 'h', exit_code: 1, duration_ms: 1, ...(session ? { session_id: session } : {}), ...fields }) as TelemetryEvent;

describe('a secret a session gave away, in its other events', () => {
  const pw = letters('next');

  it('leaves the next event of the session, given away by a successful call', () => {
    const text = night([
      { session: 'nx-1', fails: false, summary: `db login --password ${pw}` },
      { session: 'nx-1', fails: true, summary: 'db query', message: `error: cached credential ${pw} expired` },
      { session: 'nx-1', fails: true, summary: 'db query', message: `error: cached credential ${pw.toUpperCase()} expired` },
      { session: 'nx-1', fails: true, summary: 'db query', message: `error: cached credential ${pw} expired` },
    ]);
    const out = kept(text);
    expect(out.toLowerCase()).not.toContain(pw);
    // The failure is still a cluster, its template with a marker where the password was.
    expect(out).toContain('cached credential');
  });

  it('leaves what was kept of an earlier event after a flood of 1,100 other values learnt first', () => {
    const early = letters('flood');
    const text = night([
      ...[0, 1, 2].map(() => ({ session: 'fl-early', fails: true, summary: 'db query', message: `error: cached credential ${early} expired` })),
      ...Array.from({ length: 1_100 }, (_, i) => ({ session: `fl-${i}`, fails: true, summary: `app login --password Flood${i}zQ`, message: 'error: login failed' })),
      { session: 'fl-late', fails: true, summary: `db login --password ${early}`, message: 'error: login failed' },
    ]);
    expect(kept(text)).not.toContain(early);
  });

  it('leaves what was kept of an earlier event of the session (the copy came first)', () => {
    const text = night([
      { session: 'nx-2', fails: true, summary: 'db query', message: `error: cached credential ${pw} expired` },
      { session: 'nx-2', fails: true, summary: 'db query', message: `error: cached credential ${pw} expired` },
      { session: 'nx-2', fails: true, summary: `db use ${pw}`, message: `error: cached credential ${pw} expired` },
      { session: 'nx-2', fails: false, summary: `db use ${pw} now` },
      { session: 'nx-2', fails: false, summary: `db login --password ${pw}` },
    ]);
    expect(kept(text).toLowerCase()).not.toContain(pw);
  });

  it('leaves a call shape (what worked next) that would cite it', () => {
    const text = night([
      { session: 'sh', fails: false, summary: `db login --password ${pw}` },
      ...[1, 2, 3].flatMap(() => [
        { session: 'sh', fails: true, tool: 'db', summary: 'db query', message: 'error: not connected' },
        { session: 'sh', fails: false, tool: 'db', summary: `db connect ${pw}` },
      ]),
    ]);
    const out = kept(text);
    expect(out.toLowerCase()).not.toContain(pw);
    expect(out).toContain('"shape":"db connect"');
  });

  it('stays in another session that never gave it away, and in the session before it is known', () => {
    const tracker = new SplitSecretTracker();
    const copy = `error: cached credential ${pw} expired`;
    expect(tracker.follow(failure('a', { error_message: copy })).error_message).toBe(copy);
    tracker.follow(failure('a', { input_summary: `db login --password ${pw}`, error_message: 'error: denied' }));
    expect(tracker.follow(failure('a', { error_message: copy })).error_message).toBe('error: cached credential [REDACTED:secret] expired');
    expect(tracker.follow(failure('b', { error_message: copy })).error_message).toBe(copy);
  });

  it('for any order of calls, sessions and copies: no value a session gave away is kept (seeded)', () => {
    const sessions = ['s1', 's2', 's3', undefined] as const;
    const value = (s: string | undefined) => letters(`prop-${s ?? 'none'}`, 5);
    const callArb = fc.record({
      session: fc.constantFrom(...sessions),
      kind: fc.constantFrom('give-success', 'give-failure', 'copy', 'copy-upper', 'copy-call', 'plain', 'plain-success'),
    });
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 1, maxLength: 40 }), (calls) => {
        const rows: Call[] = calls.map(({ session, kind }) => {
          const v = value(session);
          switch (kind) {
            case 'give-success': return { session, fails: false, summary: `db login --password ${v}` };
            case 'give-failure': return { session, fails: true, summary: `db login --password ${v}`, message: 'error: login refused' };
            case 'copy': return { session, fails: true, summary: 'db query', message: `error: cached credential ${v} expired` };
            case 'copy-upper': return { session, fails: true, summary: 'db query', message: `FATAL: ${v.toUpperCase()} is not valid` };
            case 'copy-call': return { session, fails: false, summary: `db use ${v}` };
            case 'plain': return { session, fails: true, summary: 'db query', message: 'error: table missing' };
            default: return { session, fails: false, summary: 'db status' };
          }
        });
        const out = kept(night(rows)).toLowerCase();
        const given = new Set(calls.filter((c) => c.kind.startsWith('give')).map((c) => c.session));
        for (const session of given) expect(out).not.toContain(value(session));
      }),
      { seed: 20_261_128, numRuns: 120 },
    );
  });
});

describe('SessionSecrets bounds', () => {
  it('keeps the latest 64 values of a session: an older one gives way', () => {
    const memory = new SessionSecrets();
    for (let i = 0; i < 70; i += 1) memory.learn('s', [`value-${String(i).padStart(3, '0')}-x`]);
    const values = memory.of('s');
    expect(values).toHaveLength(64);
    expect(values).not.toContain('value-000-x');
    expect(values).toContain('value-069-x');
  });

  it('forgets the session that learnt least recently past 10,000 sessions', () => {
    const memory = new SessionSecrets();
    for (let i = 0; i <= 10_000; i += 1) memory.learn(`s-${i}`, [`secret-${i}-value`]);
    expect(memory.of('s-0')).toEqual([]);
    expect(memory.of('s-1')).toEqual(['secret-1-value']);
    expect(memory.of('s-10000')).toEqual(['secret-10000-value']);
    // Every value stays for the scrub of what was kept before them (a flood of values pushes none out).
    expect(memory.night()).toHaveLength(10_001);
  });

  it('keeps the night\'s values for the scrub up to a million characters of them, the first ones learnt', () => {
    const memory = new SessionSecrets();
    for (let i = 0; i < 2_100; i += 1) memory.learn(`s-${i % 50}`, [`${'v'.repeat(500)}-${i}`]);
    const night = memory.night();
    expect(night.length).toBeGreaterThan(1_900);
    expect(night.length).toBeLessThan(2_100);
    expect(night).toContain(`${'v'.repeat(500)}-0`);
    expect(night).not.toContain(`${'v'.repeat(500)}-2099`);
  });

  it('ignores values too short or too long to carry (as within an event)', () => {
    const memory = new SessionSecrets();
    memory.learn('s', ['abc', 'x'.repeat(513)]);
    expect(memory.empty).toBe(true);
  });

  it('keys a very long session id by its hash, so ids cannot grow the memory', () => {
    const memory = new SessionSecrets();
    const id = 'z'.repeat(100_000);
    memory.learn(id, ['hunter-two-blue']);
    expect(memory.of(id)).toEqual(['hunter-two-blue']);
    expect(JSON.stringify(memory.toState()).length).toBeLessThan(1_000);
  });
});

describe('a night folded in two parts, with secrets given away', () => {
  const pw = letters('split');
  const outcome = (fold: IngestFold) => {
    const followUps = fold.settleSecrets();
    return { clusters: fold.builder.finish(), followUps: [...followUps] };
  };

  it('merges when the range reads no session that gave a value before it, and equals one fold', () => {
    const text = night([
      { session: 'a', fails: false, summary: `db login --password ${pw}` },
      { session: 'a', fails: true, message: `error: cached credential ${pw} expired` },
      { session: 'b', fails: true, message: `error: cached credential ${pw} expired` },
      { session: 'b', fails: true, message: 'error: table missing' },
    ]);
    const lines = splitLines(text, 4096);
    const whole = new IngestFold(SETTINGS, {});
    for (const line of lines) whole.line(line, SEGMENT);
    const main = new IngestFold(SETTINGS, {});
    const worker = rangeFold({ absolute: '/unused', segment: SEGMENT, settings: SETTINGS, maxLineBytes: 4096, baselines: {} }, settledBy(main));
    for (const line of lines.slice(2)) worker.line(line, SEGMENT);
    for (const line of lines.slice(0, 2)) main.line(line, SEGMENT);
    expect(mergePartial(main, structuredClone(toPartial(worker, 0)))).toBe(true);
    expect(outcome(main)).toEqual(outcome(whole));
    expect(JSON.stringify(outcome(main)).toLowerCase()).not.toContain(pw);
  });

  it('refuses when the range reads a session that gave a value before it (the main thread reads it again)', () => {
    const text = night([
      { session: 'a', fails: false, summary: `db login --password ${pw}` },
      { session: 'a', fails: true, message: 'error: table missing' },
      { session: 'a', fails: true, message: `error: cached credential ${pw} expired` },
    ]);
    const lines = splitLines(text, 4096);
    const main = new IngestFold(SETTINGS, {});
    const worker = rangeFold({ absolute: '/unused', segment: SEGMENT, settings: SETTINGS, maxLineBytes: 4096, baselines: {} }, settledBy(main));
    for (const line of lines.slice(2)) worker.line(line, SEGMENT);
    for (const line of lines.slice(0, 2)) main.line(line, SEGMENT);
    expect(mergePartial(main, structuredClone(toPartial(worker, 0)))).toBe(false);
    // Read in order instead, the copy goes.
    main.line(lines[2]!, SEGMENT);
    expect(JSON.stringify(outcome(main)).toLowerCase()).not.toContain(pw);
  });
});

describe('a marker the log already holds', () => {
  it('is no value of the session (an imported transcript was redacted once already)', () => {
    const tracker = new SplitSecretTracker();
    tracker.follow(failure('m', { error_message: 'error: author1 = [REDACTED:high_entropy](name=1)' }));
    expect(tracker.values.of('m')).toEqual([]);
    expect(tracker.follow(failure('m', { error_message: 'error: see [REDACTED:high_entropy] above' })).error_message).toBe('error: see [REDACTED:high_entropy] above');
  });
});

describe('which successful calls are read for values', () => {
  it('every call a context detector\'s gate admits passes the cheaper literal test (seeded)', async () => {
    const { CONTEXT_GATES, credentialContextMayMatch } = await import('../../pipeline/safety/secrets.js');
    const pieces = ['mysql', 'MariaDB', 'sshpass', 'docker', ' login', 'mongosh', 'redis-cli', 'sqlcmd', 'bcp', 'unzip', '7z', 'unrar', 'ldapsearch', 'mosquitto_pub', '-p', '-P', '-u', '-w', '--', 'Cookie', 'set-cookie', '@', 'user', 'creds', 'AUTH', 'PASS', 'pwd', 'pin', 'SALT', '<', 'value', ' = ', 'key', 'name=', 'x', ' ', ':', 'q', '--db-', 'requirepass', 'masterauth', 'Token', 'SECRET'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        return !CONTEXT_GATES.some((gate) => gate.test(text)) || credentialContextMayMatch(text);
      }),
      { seed: 20_261_128, numRuns: 5_000 },
    );
  });

  it('a context detector\'s gate admits every text its pattern matches (the gates look for literals first)', async () => {
    const { CONTEXT_DETECTORS } = await import('../../pipeline/safety/secrets.js');
    const pieces = ['mysql', 'MariaDB', 'mysqldump', 'sshpass', 'docker', ' login', 'mongosh', 'redis-cli', 'sqlcmd', 'bcp', 'unzip', '7z', 'unrar', 'ldapsearch', 'mosquitto_pub', '-p', '-P', '-u', '-w', '-a', '--', '--password', 'Cookie', 'set-cookie', '@', 'user', 'creds', 'AUTH', 'PASS', 'pwd', 'pin', 'SALT', '<', '>', '</', 'password', 'passphrase', 'value', 'Value', ' = ', '=', '"', "'", 'key', 'name=', 'id', 'property', 'x', ' ', ':', 'q', 'hunter2pw', 'S3cr3tValue9', '--db-', 'requirepass', 'masterauth', 'Token', 'SECRET', 'API_KEY', 'x-api-key', 'apikey', 'private-token'];
    const matched = new Set<number>();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 9 }), (parts) => {
        const text = parts.join('');
        CONTEXT_DETECTORS.forEach((detector, i) => {
          detector.pattern.lastIndex = 0;
          if (detector.gate === undefined || !detector.pattern.test(text)) return;
          matched.add(i);
          expect(detector.gate.test(text), `${detector.kind} #${i} matches ${JSON.stringify(text)}`).toBe(true);
        });
      }),
      { seed: 20_261_128, numRuns: 6_000 },
    );
    // The texts reach half of the gated detectors (the others need longer values than these pieces make).
    expect(matched.size).toBeGreaterThanOrEqual(12);
  });

  it('a call with a credential flag is read; a plain command is not redacted at all', async () => {
    const { mayGiveValueAway } = await import('../../pipeline/safety/cross-field.js');
    expect(mayGiveValueAway('db login --password bakotimu')).toBe(true);
    expect(mayGiveValueAway('mysql -uroot -pbakotimu')).toBe(true);
    expect(mayGiveValueAway("sed -n '435,470p' django/db/models/sql/query.py")).toBe(false);
    expect(mayGiveValueAway('python3 reproduce_issue.py')).toBe(false);
  });
});
