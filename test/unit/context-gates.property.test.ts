import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyContextGate, contextGates } from '../../pipeline/safety/secrets.js';
import { SECRET_CASES } from '../fixtures/secrets.js';
import { vendorSecrets } from '../fixtures/secret-corpus.js';

/**
 * findSecrets asks one union of the context detectors' gates before asking each gate: skipping them all
 * is sound only if the union passes exactly when some gate does. Held here on random text built from
 * the gates' own words and characters (so near misses are common), on random ASCII and Unicode, and on
 * the secret corpora and the sample log, never on a sample of them.
 */

const SEED = 20_261_128;
const gates = contextGates();
const someGate = (text: string): boolean => gates.some((gate) => gate.test(text));

/** Words and characters the gates read, in both cases, and their neighbours. */
const PIECES = [
  'pass', 'PASS', 'Pass', 'pwd', 'PWD', 'pw', 'pin', 'PIN', 'pin ', 'pinch', '@', 'cookie', 'Cookie', 'x-', 'X-', 'private-token', 'api-key', 'apikey', 'ApiKey',
  'SECRET', 'TOKEN', 'KEY', 'AUTH', 'auth', 'CREDENTIAL', 'SALT', 'mysql', 'mariadb', 'MySQL', 'sshpass', 'login', 'mongo', 'mongosh', 'redis-cli', 'sqlcmd', 'bcp', 'osql',
  'isql', 'zip', 'unzip', '7z', 'rar', 'ldap', 'ldapsearch', 'mosquitto_pub', 'mosquitto', '-', '--', '-u', '-U', 'user', 'creds', 'credential', '<', '</', '>', ':', 'ns:',
  'value', 'value=', 'value =', 'key', 'name', 'id', 'property', '=', ' ', '\t', '\n', '_', '.', 'requirepass', 'masterauth', 'passw', 'passph', 'token', 'secret',
  'a', 'Z', '0', '9', 'é', 'ﬁ', '\u0000',
];

const pieced = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(''));

describe('the union of the context gates', () => {
  it('passes exactly when some gate passes, on text built from the gates\' words', () => {
    fc.assert(fc.property(pieced, (text) => anyContextGate(text) === someGate(text)), { seed: SEED, numRuns: 20_000 });
  });

  it('passes exactly when some gate passes, on random ASCII and Unicode', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => anyContextGate(text) === someGate(text)), { seed: SEED, numRuns: 5_000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => anyContextGate(text) === someGate(text)), { seed: SEED, numRuns: 5_000 });
  });

  it('passes exactly when some gate passes, on every secret of the corpora and every line of the sample log', () => {
    const texts = [
      ...SECRET_CASES.flatMap((c) => Object.values(c).filter((v): v is string => typeof v === 'string')),
      ...vendorSecrets().flatMap((s) => [s.value, s.context, s.context.replace('{}', s.value)]),
      ...readFileSync(new URL('../../logs/telemetry.jsonl', import.meta.url), 'utf8').split('\n'),
    ];
    expect(texts.length).toBeGreaterThan(100);
    let admitted = 0;
    for (const text of texts) {
      expect(anyContextGate(text), text).toBe(someGate(text));
      if (someGate(text)) admitted += 1;
    }
    // Both answers occur, or the comparison proves nothing.
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(texts.length);
  });
});
