import { beforeAll, describe, expect, it } from 'vitest';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { redact } from '../../pipeline/safety/redact.js';
import { identifierProblem } from '../../pipeline/safety/identifier.js';
import { randomPieceFindings } from '../../pipeline/safety/random-pieces.js';
import { body } from '../fixtures/attacks/parts.js';

/**
 * A token cut into pieces with nothing to name it (pipeline/safety/random-pieces.ts): no vendor prefix, the
 * pieces in any order, any separator, a column of lines. Measured as a rate over tokens generated from
 * seeds (every alphabet a vendor uses), and against lines of logs and code that must stay as they are.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const ALPHABETS = {
  base62: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  base36: 'abcdefghijklmnopqrstuvwxyz0123456789',
  base32: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  hex: '0123456789abcdef',
};
const SEPARATORS = [' ', ':', ', ', '.', '~', ' | ', '/', '\n'];

const groups = (text: string, size: number): string[] => text.match(new RegExp(`[^]{1,${size}}`, 'g'))!;

/** Whether 12 characters in a row of the split form survive (the attack corpus's test), or all of a shorter one. */
function survives(out: string, split: string): boolean {
  if (split.length <= 12) return out.includes(split);
  for (let i = 0; i + 12 <= split.length; i += 1) if (out.includes(split.slice(i, i + 12))) return true;
  return false;
}

describe('a token cut into pieces, with no prefix', () => {
  it('is redacted, in every alphabet, size of piece, order and separator (rate over generated tokens)', () => {
    const missed: string[] = [];
    const missedBy: Record<string, number> = {};
    for (const [name, alphabet] of Object.entries(ALPHABETS)) {
      const length = name === 'hex' ? 40 : 36;
      for (let i = 0; i < 40; i += 1) {
        const token = body(`rp-${name}-${i}`, length, alphabet);
        const size = 4 + (i % 5);
        const separator = SEPARATORS[i % SEPARATORS.length]!;
        const pieces = groups(token, size);
        if (i % 3 === 0) pieces.reverse();
        const split = pieces.join(separator);
        const text = separator === '\n' ? `error: token rejected\n${split}` : `error: token rejected: ${split} (retry later)`;
        if (survives(redact(text), split)) missed.push(`${name}: ${JSON.stringify(split)}`), (missedBy[name] = (missedBy[name] ?? 0) + 1);
      }
    }
    // A statistical reading: some random tokens read like names or numbers. Measured (of 40 each): base62 0,
    // base64url 0, base36 11, base32 6, hex 1. Lower-case-and-digit and upper-case alphabets hold fewer classes
    // of character to tell them from names by; these bounds only keep that from getting worse.
    const bound: Record<string, number> = { base62: 1, base64url: 1, base36: 13, base32: 8, hex: 3 };
    for (const name of Object.keys(ALPHABETS)) expect(missedBy[name] ?? 0, `${name}\n${missed.join('\n')}`).toBeLessThanOrEqual(bound[name]!);
  });

  it('takes a hex token cut into groups (Twilio, Shopify, Supabase bodies) but not digests in a table', () => {
    // Measured 9 of 10: a group of digits alone at the end can leave the rest under 32 hex digits.
    const taken = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter((i) => {
      const split = `SK${groups(body(`rp-twilio${i}`, 32, ALPHABETS.hex), 6).join(' ')}`;
      return !survives(redact(`error: 401 ${split}`), split);
    });
    expect(taken.length).toBeGreaterThanOrEqual(8);
    const kept = '| `HDFS/HDFS_2k.log_structured.csv` | `dd61d0952749` | 405 KiB | `729df59774e3dde9` | 2000 log lines |';
    expect(randomPieceFindings(kept)).toEqual([]);
  });

  it('takes the rest of a token a shape took the head of, right after its marker', () => {
    expect(redact('error: 401 [REDACTED:secret] 1a62 0b94 e18e a')).not.toMatch(/1a62|0b94|e18e/);
    expect(redact('denied [REDACTED:secret], retry in 30 seconds')).toBe('denied [REDACTED:secret], retry in 30 seconds');
  });

  it('takes pairs of random characters, and a column of a token wrapped at 6', () => {
    const pairs = groups(body('rp-pairs', 24), 2).join(' ');
    expect(survives(redact(`error: key ${pairs} rejected`), pairs)).toBe(false);
    const column = groups(body('rp-column', 36), 6).join('\n');
    expect(survives(redact(`String to replace not found in file.\nString: ${column}`), column)).toBe(false);
  });

  it('leaves names, words, numbers, versions, paths, addresses and escapes as they are', () => {
    const lines = [
      '349,03-17,16:13:47.931,2227,2227,V,PhoneStatusBar,setLightsOn(true),E123,setLightsOn(true)',
      'Function=int IdoTransportMgr::SendPacket(IdoUdpMgr*, BglCtlPavTrace*)',
      'PrepareForService shutting down Node card(mLctn(R10-M1-N2), mCardSernum(203231503833343000000000594c31304b34323934303257), mLp(FF:F2:9F:16:E0:DA:00:0D:60:E9:1F:25), mIp(10.1.1.164), mType(4))',
      'ciod: Error creating node map from file /p/gb2/welcome3/32k_128x256x1_8x4x4.map: Bad file descriptor',
      'ciod: generated 128 core files for program /g/g90/glosli/src/ddcMD/ddcMD1.1.18a/bin/ddcMDbglV',
      'called (stack @0x7fed806eb5d @0x7fef9fb9b6d @0x7fef9f8358f @0xff83e97c @0xff83d799 @0xff83db2f)',
      'probe new device 0x1028:0x0013:0x1028:0x016c: bus 2:slot 14:func 0',
      '8,17/06/09,20:10:41,INFO,slf4j.Slf4jLogger,Slf4jLogger started,E28,Slf4jLogger started',
      '"-dNOPAUSE", "-sDEVICE=png16m"],',
      '"\\u192c\\u3a09\\u14fa\\u373d\\u1b45\\u1713\\u19df\\u1660\\u3a09\\u38a3"',
      'I am on it so we go to be at the x86_64 arm64 build v1.2.3 now',
      '2001:0db8:85a3:0000:0000:8a2e:0370:7334 unreachable',
      'SIGTERM SIGKILL SIGSEGV STDERR LDFLAGS CFLAGS CPPFLAGS',
      'FAILED tests/test_api.py::TestLogin::test_expired_token - AssertionError: assert 401 == 200',
      'npm ERR! code ERESOLVE unable to resolve dependency tree while resolving react-dom@18.2.0',
    ];
    for (const line of lines) expect(randomPieceFindings(line), line).toEqual([]);
  });
});

describe('a vendor prefix without its punctuation, the body cut into pieces of mixed sizes', () => {
  it('is redacted for short bodies too (GitLab 20, Slack 24), whatever their letters repeat (rate over generated tokens)', () => {
    const missed: string[] = [];
    const cases = [['glpat', 20], ['ghp', 36], ['xoxb', 24], ['sk live', 24]] as const;
    const sizes = [[2, 2, 5], [3, 5], [2, 4], [5, 2, 2, 3]];
    for (const [prefix, length] of cases) {
      for (let i = 0; i < 30; i += 1) {
        const token = body(`lv-${prefix}-${i}`, length, ALPHABETS.base62);
        const cut = sizes[i % sizes.length]!;
        const pieces: string[] = [];
        for (let at = 0, k = 0; at < token.length; k += 1) pieces.push(token.slice(at, (at += cut[k % cut.length]!)));
        const split = pieces.join(' ');
        if (survives(redact(`error: ${prefix} ${split} expired`), split)) missed.push(`${prefix} ${split}`);
      }
    }
    // Measured: 1 of 120 (`glpat v6 6z Bormy Qq y1 zqryp KK`: repeats and a word); before the entropy for its
    // length, English letter pairs and the body's last short number: 8, all of them GitLab's 20 characters.
    expect(missed.length, missed.join("\n")).toBeLessThanOrEqual(2);
  });
});

describe('a random part of an identifier, under the 16 a whole short token needs', () => {
  it('refuses a session id or category that carries one; keeps the usual names', () => {
    // 15 random characters: under the 16 a short token needs; read as a random part most of the time (measured 9 of 10).
    const refused = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter((i) => identifierProblem('session_id', `run-${body(`rp-sid${i}`, 15)}-0`) === 'secret');
    expect(refused.length).toBeGreaterThanOrEqual(8);
    expect(identifierProblem('error_category', `auth_${body('rp-cat', 11, ALPHABETS.hex)}`)).toBe('secret');
    for (const [field, name] of [['session_id', 's-2026-11-15-a'], ['session_id', 'django__django-11099'], ['session_id', 'astropy__astropy-12907'], ['error_category', 'ModuleNotFoundError'], ['error_category', 'validation_error'], ['tool_name', 'mcp__github__list_pull_requests'], ['tool_name', 'NotebookEdit']] as const) {
      expect(identifierProblem(field, name), name).toBeNull();
    }
  });
});
