import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { redact, shapeDetectors } from '../../pipeline/safety/redact.js';
import { BYPASS, compileAnyOf, compileNeeds, LITERAL_CALLS, type Needs } from '../../pipeline/safety/secret-prefilter.js';
import { RULE_SET_NEEDS, RULE_SET_VERSION } from '../../pipeline/safety/rule-set-needs.js';
import { loadSecretRuleSet, ruleSetDetectors, scanWithRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { vendorSecrets } from '../fixtures/secret-corpus.js';

/**
 * The prefilter's one promise: a detector is skipped only on a text it could not have changed. Texts are
 * built from the detectors' own shapes (every vendor prefix and key word of every declaration, tokens
 * in each rule's alphabet and length, the secret corpus in its contexts), cut, re-cased and joined with
 * the separators the patterns read (`=`, `:`, quotes, blanks, `://`, `@`), so near misses are as common
 * as hits. Every detector must fire on some of them, or the test would prove nothing.
 */

const SEED = 20_261_127;
const RUNS = 4000;

beforeAll(async () => {
  await loadSecretRuleSet();
});

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;

const run = (alphabet: string, min: number, max: number) => fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });

/** Every literal any declaration names: each is a shape a detector starts from. */
function literals(needs: readonly Needs[]): string[] {
  return [...new Set(needs.flatMap((n) => (n === BYPASS ? [] : n.flatMap((clause) => clause.anyOf))))];
}

const SHAPES = shapeDetectors();
const ALL_LITERALS = literals([...SHAPES.map((s) => s.needs), ...Object.values(RULE_SET_NEEDS)]);
/** A 1Password service account token's body: base64 of a JSON object, padded so it ends in `fQ==` (`}`). */
function onePasswordBody(secret: string): string {
  let json = `{"secretKey":"${secret}","deviceUuid":"x","email":"a@b.c","signInAddress":"my.1password.com"`;
  while ((json.length + 1) % 3 !== 1) json += ' ';
  return Buffer.from(`${json}}`).toString('base64');
}

/** Whole tokens as the vendors (and the rule set's patterns) shape them. */
const tokenArb = fc.oneof(
  fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_', 'npm_'), run(ALNUM, 30, 40)).map(([p, t]) => p + t),
  run(ALNUM, 82, 82).map((t) => `github_pat_${t}`),
  fc.tuple(fc.constantFrom('glpat-', 'figd_', 'dckr_pat_'), run(B64URL, 20, 45)).map(([p, t]) => p + t),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA', 'A3TX', 'AGPA', 'AROA'), run('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 16, 16)).map(([p, t]) => p + t),
  run(ALNUM, 52, 52).map((t) => `gsk_${t}`),
  run(B64URL, 27, 27).map((t) => `dckr_pat_${t}`),
  run('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 34, 34).map((t) => `hf_${t}`),
  fc.tuple(fc.constantFrom('gsk_', 'hf_', 'lin_api_', 'vcp_', 'vck_', 'shpat_', 'shpss_', 'glc_', 'sk_live_', 'rk_test_'), run(ALNUM, 30, 56)).map(([p, t]) => p + t),
  fc.tuple(run('0123456789', 11, 11), run(ALNUM, 35, 35)).map(([d, t]) => `ntn_${d}${t}`),
  fc.tuple(run(ALNUM, 32, 32), run(HEX, 8, 8)).map(([a, h]) => `glsa_${a}_${h}`),
  fc.tuple(fc.constantFrom('hvs.', 'hvr.'), run(B64URL, 90, 100)).map(([p, t]) => p + t),
  run(HEX, 32, 32).map((h) => `dapi${h}`),
  fc.tuple(run(B64URL, 22, 22), run(B64URL, 43, 43)).map(([a, b]) => `SG.${a}.${b}`),
  fc.tuple(run(ALNUM, 20, 20), run(ALNUM, 20, 20)).map(([a, b]) => `sk-${a}T3BlbkFJ${b}`),
  run(B64URL, 93, 93).map((t) => `sk-ant-api03-${t}AA`),
  fc.tuple(fc.constantFrom('sk-', 'sk-proj-', 'AIza', 'xoxb-', 'xapp-', 'eyJ', 'glpat-'), run(B64URL, 10, 50)).map(([p, t]) => p + t),
  fc.tuple(run(ALNUM, 10, 10), run(ALNUM, 10, 10)).map(([a, b]) => `eyJ${a}.eyJ${b}.sig`),
  run(B64, 24, 30).map((t) => `ops_${onePasswordBody(t)}`),
  fc.tuple(fc.constantFrom('xoxb', 'xoxp', 'xapp'), run('0123456789', 1, 12), run(ALNUM, 1, 24)).map(([p, d, t]) => `${p}-${d}-${t}`),
  run(B64, 100, 140).map((body) => `-----BEGIN RSA PRIVATE KEY-----\nMI${body}\n-----END RSA PRIVATE KEY-----`),
  run(B64, 40, 40),
  run('0123456789', 12, 12).map((d) => `${d.slice(0, 4)}-${d.slice(4, 8)}-${d.slice(8)}`),
);

/** What credentials stand next to: scheme URLs, key words, headers, flags. */
const contextArb = fc.oneof(
  fc.constantFrom('https://', 'http://', 'ftp://', 'mongodb://', 'mongodb+srv://', 'postgres://', 'postgresql://', 'mysql://', 'jdbc:mysql://', 'https://hooks.slack.com/services/'),
  fc.constantFrom('aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY', 'aws_account_id', 'AccountId', 'password', 'passwd', 'PASS', 'pwd', 'db_pass', 'secret', 'api_key', 'apiKey', 'token', 'auth_token', 'credentials', 'private', 'signature'),
  fc.constantFrom('Authorization', 'proxy-authorization', 'Bearer', 'bearer', 'Basic', '--password', '-p', '--token', '--api-key', '-u', '--user', 'x-oauth-basic', '_authToken', 'user', 'deploy', 'host.com', 'github.com', 'db.internal'),
);

/** Whole credential phrases: a flag and its quoted value, `-u user:pass`, a URL with a password. */
const phraseArb = fc.oneof(
  fc.tuple(fc.constantFrom('--password', '--token', '-secret', '--api-key'), fc.constantFrom('"', "'"), run(ALNUM, 1, 16)).map(([flag, q, v]) => `${flag} ${q}${v}${q}`),
  fc.tuple(fc.constantFrom('-u ', '--user ', '--user='), run(ALNUM, 1, 8), run(ALNUM, 1, 12)).map(([flag, user, pass]) => `${flag}${user}:${pass}`),
  fc.tuple(fc.constantFrom('https', 'ftp', 'mongodb', 'postgres', 'mysql', 'redis'), run(ALNUM, 2, 8), run(`${ALNUM}-_`, 4, 16), fc.constantFrom('db.example.com', 'host.io', 'github.com/')).map(([scheme, user, pass, host]) => `${scheme}://${user}:${pass}@${host}`),
);

const separatorArb = fc.constantFrom('', ' ', '  ', '\t', '=', ':', ': ', ' = ', ':=', '=>', '"', "'", '\\"', '@', ':', '/', '.', '-', '_', '\n', ', ', ';', '&', '(', ')');

const CORPUS = vendorSecrets().map((secret) => secret.context.replace('{}', secret.value));

/** A piece of a text: a shape whole, cut short, re-cased, or with one character changed (a near miss). */
const pieceArb = fc.oneof(
  { arbitrary: tokenArb, weight: 4 },
  { arbitrary: contextArb, weight: 4 },
  { arbitrary: phraseArb, weight: 2 },
  { arbitrary: fc.constantFrom(...ALL_LITERALS), weight: 3 },
  { arbitrary: fc.constantFrom(...CORPUS), weight: 2 },
  { arbitrary: run(ALNUM, 1, 30), weight: 2 },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
);

const variedArb = fc.tuple(pieceArb, fc.nat(3), fc.nat(), fc.nat(), fc.constantFrom(...'aA0_-.:=')).map(([piece, how, at, seed, ch]) => {
  if (piece.length === 0) return piece;
  const i = at % piece.length;
  if (how === 1) return piece.slice(0, i) + piece.slice(i + 1);
  if (how === 2) return piece.slice(0, i) + ch + piece.slice(i + 1);
  if (how === 3) return [...piece].map((c, k) => ((seed >> k % 31) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
  return piece;
});

const textArb = fc.array(fc.tuple(fc.oneof({ arbitrary: pieceArb, weight: 3 }, { arbitrary: variedArb, weight: 2 }), separatorArb), { minLength: 1, maxLength: 6 }).map((parts) => parts.map(([p, s]) => p + s).join(''));

describe('the secret prefilter never skips a detector that would have changed the text', () => {
  it('redaction shapes (redact.ts): a rule that changes a text is admitted by its needs', () => {
    const admits = SHAPES.map((shape) => compileNeeds(shape.needs));
    const fired = new Map<number, number>();
    fc.assert(
      fc.property(textArb, (text) => {
        SHAPES.forEach((shape, i) => {
          if (shape.apply(text) === text) return;
          fired.set(i, (fired.get(i) ?? 0) + 1);
          expect(admits[i]!(text), `${shape.kind} changed ${JSON.stringify(text)} but its needs say it could not`).toBe(true);
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const silent = SHAPES.map((shape, i) => (fired.has(i) ? null : `${i}:${shape.kind}`)).filter((s) => s !== null);
    expect(silent, 'shapes the generated texts never triggered (the property says nothing about them)').toEqual([]);
  });

  it('the secretlint rule set: a rule that reports is admitted by its needs, and the prefiltered scan equals every rule run', () => {
    const rules = ruleSetDetectors();
    const admits = rules.map((rule) => compileNeeds(rule.needs));
    const anyRule = compileAnyOf(rules.map((rule) => rule.needs));
    const fired = new Map<string, number>();
    fc.assert(
      fc.property(textArb, (text) => {
        const all = rules.flatMap((rule, i) => {
          const found = rule.scan(text);
          if (found.length > 0) {
            fired.set(rule.id, (fired.get(rule.id) ?? 0) + 1);
            expect(admits[i]!(text), `${rule.id} reports in ${JSON.stringify(text)} but its needs say it could not`).toBe(true);
            expect(anyRule(text)).toBe(true);
          }
          return found;
        });
        expect(scanWithRuleSet(text)).toEqual(all);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const silent = rules.filter((rule) => rule.needs !== BYPASS && !fired.has(rule.id)).map((rule) => rule.id);
    expect(silent, 'rules the generated texts never triggered (the property says nothing about them)').toEqual([]);
  });

  it('on ordinary error lines, ids and the corpus, redact gives what it gave before: secrets redacted, the rest kept', () => {
    // The end-to-end view of the two properties above, on the corpus itself.
    for (const text of CORPUS) expect(redact(text)).toContain('[REDACTED:');
    for (const id of ['38a907d090402c80', 's-2026-10-01-1-7da284', '0f8fad5b-d9cb-469f-a165-70867728950e']) expect(redact(id)).toBe(id);
  });
});

describe('a compiled test looks for its literals before it compiles them (the hook never compiles one)', () => {
  const NEEDS: readonly Needs[] = [...SHAPES.map((s) => s.needs), ...Object.values(RULE_SET_NEEDS)].filter((n) => n !== BYPASS);
  /** The regex a clause stood for before: its literals, escaped, `i` when it ignores case. */
  const regexAdmits = (needs: Needs) => (text: string) =>
    needs === BYPASS || needs.every((clause) => new RegExp(clause.anyOf.map((l) => l.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|'), clause.ignoreCase ? 'i' : '').test(text));

  it('answers as the regex does on ASCII text, before and after it moves to the regex', () => {
    const tests = NEEDS.map((needs) => ({ admits: compileNeeds(needs), regex: regexAdmits(needs) }));
    const texts = fc.sample(textArb, { seed: SEED, numRuns: 3 * LITERAL_CALLS }).filter((text) => /^[\x00-\x7f]*$/.test(text));
    expect(texts.length).toBeGreaterThan(2 * LITERAL_CALLS);
    let admitted = 0;
    for (const text of texts) {
      for (const { admits, regex } of tests) {
        expect(admits(text), JSON.stringify(text)).toBe(regex(text));
        if (regex(text)) admitted += 1;
      }
    }
    expect(admitted).toBeGreaterThan(0);
  });

  it('never admits fewer texts than the regex: a non-ASCII letter that lower-cases to ASCII (the Kelvin sign) is admitted, never refused', () => {
    const needs: Needs = [{ anyOf: ['key'], ignoreCase: true }];
    const admits = compileNeeds(needs);
    const regex = regexAdmits(needs);
    for (const text of ['api_KEY=1', 'a \u212aey', 'kEy', '\u0130key', 'none']) expect(admits(text) || !regex(text)).toBe(true);
    expect(compileNeeds(needs)('\u212aey')).toBe(true);
    expect(compileAnyOf([needs, [{ anyOf: ['ghp_'] }]])('x ghp_ y')).toBe(true);
    expect(compileAnyOf([needs, [{ anyOf: ['ghp_'] }]])('x GHP_ y')).toBe(false);
  });
});

describe('the rule set table', () => {
  it('was read off the installed preset version, and names every rule it loads', () => {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve('@secretlint/secretlint-rule-preset-recommend').replace(/module[\\/]index\.js$/, 'package.json');
    expect(JSON.parse(readFileSync(manifest, 'utf8')).version, 'a new preset: read its rules again and update rule-set-needs.ts').toBe(RULE_SET_VERSION);
    expect(ruleSetDetectors().map((rule) => rule.id).filter((id) => !Object.hasOwn(RULE_SET_NEEDS, id))).toEqual([]);
  });

  it('runs a rule the table does not know on every text', () => {
    expect(compileNeeds(BYPASS)('')).toBe(true);
    expect(compileAnyOf([[{ anyOf: ['x'] }], BYPASS])('nothing')).toBe(true);
  });
});
