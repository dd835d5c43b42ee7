import fc from 'fast-check';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { findPathSegmentSecrets, type Finding } from '../../pipeline/safety/secrets.js';

/**
 * Tokens hidden inside structure (the sixth probe's class, issue 14 item 2): a token as one segment of a path
 * or a URL, raw or hex/base64-encoded, with noise around it; and a vendor token cut into pieces by any
 * separator, alone, in prose or one piece per directory. The detectors read a run that starts at `/` as a
 * path and left it whole, and pieces too short for any detector. Each test lists the variants that leak,
 * so a failure says how many and which; the paths of real file systems and logs stay as they were.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const SEED = Number(process.env.SC4_SEED ?? 20261128);
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const DIGITS = '0123456789';
const bodies = (n: number, chars: string, runs: number): string[] =>
  fc.sample(fc.array(fc.constantFrom(...chars), { minLength: n, maxLength: n }).map((a) => a.join('')), { numRuns: runs, seed: SEED + n + chars.length });
const body = (() => {
  const pool = new Map<string, string[]>();
  let next = 0;
  return (n: number, chars = ALNUM): string => {
    const key = `${n}:${chars}`;
    if (!pool.has(key)) pool.set(key, bodies(n, chars, 64));
    next += 1;
    return pool.get(key)![next % 64]!;
  };
})();

/** Documented vendor shapes (GitHub, GitLab, npm, PyPI-free ones kept short: their bodies are long and random). */
const VENDORS: Record<string, () => string> = {
  github: () => `ghp_${body(36)}`,
  githubFine: () => `github_pat_${body(22)}_${body(59)}`,
  gitlab: () => `glpat-${body(20)}`,
  npm: () => `npm_${body(36)}`,
  slack: () => `xoxb-${body(11, DIGITS)}-${body(13, DIGITS)}-${body(24)}`,
  stripe: () => `sk_live_${body(24)}`,
  aws: () => `AKIA${body(16, UPPER)}`,
  google: () => `AIza${body(35)}`,
  huggingface: () => `hf_${body(34)}`,
  anthropic: () => `sk-ant-api03-${body(93)}AA`,
};

/** Whether 8 characters in a row of the token's body (after its vendor prefix) appear in `out`, ignoring separators. */
function bodyLeaks(out: string, token: string): boolean {
  const plain = out.replace(/[^A-Za-z0-9]/g, '');
  const core = token.replace(/^(?:ghp_|github_pat_|glpat-|npm_|xoxb-|sk_live_|AKIA|AIza|hf_|sk-ant-api03-)/, '').replace(/[^A-Za-z0-9]/g, '');
  for (let i = 0; i + 8 <= core.length; i += 1) if (plain.includes(core.slice(i, i + 8))) return true;
  return false;
}

/** Whether 16 characters in a row of an encoded value appear in `out`. */
function encodedLeaks(out: string, encoded: string): boolean {
  for (let i = 0; i + 16 <= encoded.length; i += 1) if (out.includes(encoded.slice(i, i + 16))) return true;
  return false;
}

describe('a token as a segment of a path or a URL', () => {
  const ENCODINGS: Record<string, (s: string) => string> = {
    raw: (s) => s,
    hex: (s) => Buffer.from(s).toString('hex'),
    'HEX (upper case)': (s) => Buffer.from(s).toString('hex').toUpperCase(),
    base64: (s) => Buffer.from(s).toString('base64'),
    base64url: (s) => Buffer.from(s).toString('base64url'),
  };
  const PLACES: Record<string, string> = {
    'a directory': '/srv/cache/{v}/index',
    'the file name': '/srv/cache/{v}',
    'a file name with an extension': '/home/dev/.config/app/{v}.json',
    'a name with a prefix': '/var/tmp/cache-{v}.bin',
    'a URL path': 'GET https://cdn.example.com/u/{v}/avatar.png 404',
    'a Windows path': String.raw`C:\Users\dev\AppData\{v}\state`,
    'a relative path in a command': 'cat ./secrets/{v} | head',
    'a home path': 'Read ~/.cache/{v}: no such file',
  };
  const cases: [name: string, text: string, token: string, encoded: string][] = [];
  for (const [encoding, encode] of Object.entries(ENCODINGS)) {
    for (const [place, frame] of Object.entries(PLACES)) {
      for (const [vendor, make] of Object.entries(VENDORS)) {
        const token = make();
        // Base64 of a token holds `/` at random: a path keeps one segment per name, so those are written as base64url.
        const encoded = encode(token);
        if (encoding === 'base64' && encoded.includes('/')) continue;
        cases.push([`${vendor}, ${encoding}, as ${place}`, frame.replace('{v}', encoded), token, encoded]);
      }
    }
  }

  it(`no 8 characters of the token, nor 16 of its encoding, are left (${cases.length} variants)`, () => {
    const leaked = cases.filter(([, text, token, encoded]) => bodyLeaks(redact(text), token) || (encoded !== token && encodedLeaks(redact(text), encoded)));
    expect(leaked.map(([name, text]) => `${name}: ${text} → ${redact(text)}`), `${leaked.length} of ${cases.length} leak`).toEqual([]);
  });

  it('an unknown random token the redactor takes alone is taken as a path segment too', () => {
    const tokens = [...bodies(24, ALNUM, 20), ...bodies(40, ALNUM, 20), ...bodies(18, ALNUM, 20)].filter((t) => redact(`x ${t} y`) !== `x ${t} y`);
    expect(tokens.length).toBeGreaterThan(40);
    const leaked = tokens.map((t) => `/srv/cache/${t}/x`).filter((text) => redact(text).includes(text.slice(11, 27)));
    expect(leaked, `${leaked.length} of ${tokens.length} leak`).toEqual([]);
  });
});

describe('a vendor token cut into pieces by a separator', () => {
  const SEPARATORS = ['~', '+', '.', '/', ':', ',', '|', ' ', '*', '#', '^', ';', ' | ', '--', ', ', '\t', '    ', ' ~~ ', ' — '];
  const cut = (token: string, sizes: readonly number[], separator: string): string => {
    const pieces: string[] = [];
    let i = 0;
    for (let k = 0; i < token.length; k += 1) {
      const size = sizes[k % sizes.length]!;
      pieces.push(token.slice(i, i + size));
      i += size;
    }
    return pieces.join(separator);
  };
  const SIZES = [[4], [8], [6, 9, 5], [12, 3], [16]];
  const FRAMES = ['{v}', 'fatal: bad token {v} for origin', '/srv/{v}/x', 'export TOKEN_PARTS="{v}"', 'deploy-{v} expired at 2026-11-28T10:00:00Z'];
  const cases: [name: string, text: string, token: string][] = [];
  for (const separator of SEPARATORS) {
    for (const [vendor, make] of Object.entries(VENDORS)) {
      const sizes = SIZES[cases.length % SIZES.length]!;
      const frame = FRAMES[cases.length % FRAMES.length]!;
      const token = make();
      cases.push([`${vendor} cut every ${sizes.join('/')} by ${JSON.stringify(separator)} in ${JSON.stringify(frame)}`, frame.replace('{v}', cut(token, sizes, separator)), token]);
    }
  }

  it(`no 8 characters of the token's body are left, separators aside (${cases.length} variants)`, () => {
    const leaked = cases.filter(([, text, token]) => bodyLeaks(redact(text), token));
    expect(leaked.map(([name, text]) => `${name}: ${text} → ${redact(text)}`), `${leaked.length} of ${cases.length} leak`).toEqual([]);
  });

  it('keeps names that start like a vendor prefix and text that names the prefixes', () => {
    const kept = [
      'npm_config_cache=/home/dev/.npm npm_lifecycle_event=test',
      'hf_hub_download(repo_id, filename) failed: 404',
      'GitHub tokens start with ghp_, gho_ or ghs_ (see the docs)',
      'AKIA is the prefix of an access key id; ASIA of a temporary one',
      'sk_live_ and sk_test_ keys: use the test key in CI',
    ];
    expect(kept.filter((line) => redact(line) !== line).map((line) => `${line} → ${redact(line)}`)).toEqual([]);
  });
});

describe('real paths stay as they were', () => {
  /** Every path-like string in ../shared/data's logs and transcripts, and the files npm installed. */
  function realPaths(): string[] {
    const out = new Set<string>();
    const PATH = /(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[/\\][\w.+~=@%-]+){2,}[/\\]?/g;
    const walk = (dir: string, visit: (path: string) => void, budget: { files: number }): void => {
      for (const entry of readdirSync(dir)) {
        if (budget.files <= 0) return;
        const path = join(dir, entry);
        const stat = statSync(path, { throwIfNoEntry: false });
        if (stat === undefined) continue;
        if (stat.isDirectory()) walk(path, visit, budget);
        else {
          budget.files -= 1;
          visit(path);
        }
      }
    };
    const data = resolve(__dirname, '../../../shared/data');
    if (statSync(data, { throwIfNoEntry: false })?.isDirectory()) {
      walk(data, (path) => {
        if (statSync(path).size > 30e6) return;
        for (const m of readFileSync(path, 'utf8').matchAll(PATH)) if (out.size < 100_000) out.add(m[0]);
      }, { files: 10_000 });
    }
    walk(resolve(__dirname, '../../node_modules'), (path) => out.add(path), { files: 60_000 });
    return [...out];
  }

  it('the path-segment reader takes no more than 1 in 10,000 real paths (each one listed)', () => {
    // Base64 blobs in the data match the path pattern too (`/w59W18TJc1e3…+…/…`): they are random, not paths.
    const paths = realPaths().filter((path) => !/[+=]/.test(path) && path.length < 400);
    expect(paths.length).toBeGreaterThan(10_000);
    const taken = paths.filter((path) => {
      const out: Finding[] = [];
      findPathSegmentSecrets(path, out);
      return out.length > 0;
    });
    expect(taken.length, `${taken.length} of ${paths.length} taken:\n${taken.join('\n')}`).toBeLessThanOrEqual(paths.length / 10_000);
  });
});
