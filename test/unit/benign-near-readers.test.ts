import { beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { BENIGN_NEAR_READERS } from '../fixtures/benign-near-readers.js';
import { SECRET_OUTSIDE10_BENIGN } from '../fixtures/attacks/secrets-outside10.js';

beforeAll(async () => {
  await loadSecretRuleSet();
});

/**
 * Lines an agent's tools print that sit near the secret readers (the NATO alphabet in lists and callsigns,
 * grouped numbers, ISO times in file names, CamelCase exceptions), written by two helpers to find
 * over-redaction. The ones still redacted are listed: each is a known over-redaction, and the list only shrinks.
 */
const STILL_REDACTED = new Set([
  'METAR KJFK 011851Z 31012KT 10SM FEW250 M02/M17 A3036',
  'Primary key fingerprint: 4ED7 78F5 39E3 634C 779C  87C6 D700 3E4F 1A2B 3C4D',
  'Key fingerprint = 8CBC F2F2 E6F1 2D95 A7C4  4B64 34A8 9A54 6B07 1C11',
  'Deleted: sha256:3f2a9c1b7e4d 8a1b2c3d4e5f 0c9d8e7f6a5b 1b2c3d4e5f60',
  'Untagged: 0a1b2c3d4e5f 1b2c3d4e5f6a 2c3d4e5f6a7b 3d4e5f6a7b8c',
  'ssh-keygen -l: 256 SHA256:qj7p4N2b8sT9gVwK3fLmZ1xR6cYdHeU0aIoPnBtQ5Ws user@host (ED25519)',
  'KeyError: HTTPSConnectionPoolMaxRetryError',
  'migrations/20261201030405_AddUserPreferencesTable.cs',
  'Switched to a new branch feature/PROJ-1234-add-login',
]);

describe('benign lines near the secret readers', () => {
  it('are kept as they are, but for the listed over-redactions', () => {
    const changed = [...BENIGN_NEAR_READERS, ...SECRET_OUTSIDE10_BENIGN].filter((line) => redact(line) !== line);
    expect(changed.filter((line) => !STILL_REDACTED.has(line)).map((line) => `${line} -> ${redact(line)}`)).toEqual([]);
    // A fixed one leaves the list.
    expect([...STILL_REDACTED].filter((line) => !changed.includes(line))).toEqual([]);
  });
});
