import { findFormatSecrets, formatMayMatch } from './credential-formats.js';
import { findMnemonics } from './mnemonic.js';
import { scanWithRuleSet } from './secrets-rule-set.js';
import { contextMayMatch, findContextSecrets, namesCredential } from './credential-contexts.js';
import { CLAUSE_WORDS, PROSE_WORDS } from './prose-words.js';
import { codeAt } from '../model/char-code.js';
import { mayEncode } from './normalise.js';
import { any, anyIgnoringCase, compileNeeds, type Clause } from './secret-prefilter.js';
import { nonEnglishPairs } from './english-pairs.js';

/**
 * Secret detectors that report ranges, run on a text and on each of its decoded views (normalise.ts):
 * the maintained rule set (secrets-rule-set.ts), vendor token shapes it lacks, and generic detectors
 * (random-looking tokens, long base64 runs, key bodies without their BEGIN line, credential contexts).
 * Every pattern is linear: a repeated class is anchored by a look-behind that excludes that class.
 */

export interface Finding {
  start: number;
  end: number;
  kind: string;
}

export interface Detector {
  readonly kind: string;
  readonly pattern: RegExp;
  /** The capture group that is the secret (default: the whole match). */
  readonly group?: number;
  /** A cheap test the text must pass before the pattern runs (most log lines hold none of the words): gateOf. */
  readonly gate?: Gate;
  /** Whether this match is a secret; `m` is the whole match (a key's name in a group of its own). */
  readonly accept?: (value: string, m: RegExpExecArray) => boolean;
}

/** Token characters; a vendor prefix may follow `_` or `-` (inside an identifier: `mcp__x__ghp_…`). */
const EDGE = '(?<![A-Za-z0-9])';
const TAIL = '(?![A-Za-z0-9])';

/**
 * Vendor prefixes documented by the vendors and by public secret scanners (gitleaks, GitHub secret
 * scanning, trufflehog), each followed by enough token characters to be a credential.
 */
const PREFIXED: readonly [string, string][] = [
  ['github_token', String.raw`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})`],
  ['gitlab_token', String.raw`(?:gl(?:pat|dt|rt|cbt|ptt|ft|imt|oas|soat)-[\w-]{20,}|glagent-[\w-]{30,}|GR1348941[\w-]{20,})`],
  ['npm_token', String.raw`npm_[A-Za-z0-9]{30,}`],
  ['pypi_token', String.raw`pypi-[\w-]{50,}`],
  ['aws_access_key', String.raw`(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}`],
  ['google_api_key', String.raw`AIza[\w-]{30,}`],
  ['google_oauth_token', String.raw`ya29\.[\w-]{20,}`],
  ['azure_client_secret', String.raw`[\w~.-]{3}\dQ~[\w~.-]{31,34}`],
  ['slack_token', String.raw`(?:xox[abposre]|xapp)-[\w-]{10,}`],
  ['stripe_key', String.raw`(?:[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})`],
  ['twilio_key', String.raw`(?:SK|AC)[0-9a-fA-F]{32}`],
  ['sendgrid_key', String.raw`SG\.[\w-]{16,}\.[\w-]{16,}`],
  ['mailgun_key', String.raw`key-[0-9a-zA-Z]{32}`],
  ['databricks_token', String.raw`dapi[0-9a-f]{32}(?:-\d)?`],
  ['notion_token', String.raw`(?:secret_[A-Za-z0-9]{40,}|ntn_[A-Za-z0-9]{40,})`],
  ['vault_token', String.raw`(?:hv[sbr]\.[\w-]{20,}|s\.[A-Za-z0-9]{24})`],
  ['shopify_token', String.raw`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`],
  ['discord_token', String.raw`[MNO][A-Za-z0-9_-]{23,25}\.[\w-]{6}\.[\w-]{27,40}`],
  ['telegram_token', String.raw`\d{8,10}:AA[A-Za-z0-9_-]{33}`],
  ['openai_key', String.raw`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`],
  ['anthropic_key', String.raw`sk-ant-[\w-]{20,}`],
  ['huggingface_token', String.raw`(?:hf_|api_org_)[A-Za-z0-9]{30,}`],
  ['groq_key', String.raw`gsk_[A-Za-z0-9]{40,}`],
  ['replicate_token', String.raw`r8_[A-Za-z0-9]{30,}`],
  ['linear_key', String.raw`lin_(?:api|oauth)_[A-Za-z0-9]{40,}`],
  ['atlassian_token', String.raw`ATATT3[\w=-]{40,}`],
  ['digitalocean_token', String.raw`do[opr]_v1_[a-f0-9]{64}`],
  ['doppler_token', String.raw`dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}`],
  ['postman_key', String.raw`PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`],
  ['sentry_token', String.raw`(?:sntrys_|sntryu_)[\w=+/]{30,}`],
  ['grafana_token', String.raw`(?:glsa_\w{32}_[a-fA-F0-9]{8}|glc_[\w+/=]{32,})`],
  ['supabase_token', String.raw`sbp_[a-f0-9]{40}`],
  ['planetscale_token', String.raw`pscale_(?:tkn|pw|oauth)_[\w.-]{30,}`],
  ['vercel_token', String.raw`vc[pkia]_[A-Za-z0-9]{24,}`],
  ['figma_token', String.raw`figd_[\w-]{30,}`],
  ['heroku_key', String.raw`HRKU-[\w-]{30,}`],
  ['age_secret_key', String.raw`AGE-SECRET-KEY-1[0-9A-Z]{58}`],
  ['mapbox_token', String.raw`[sp]k\.eyJ[\w-]{20,}\.[\w-]{20,}`],
  ['jwt', String.raw`eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]*`],
];

/** An OpenAI-looking `sk-…` always holds a digit; `sk-learn-…`-style words do not. */
const hasDigit = (value: string): boolean => /\d/.test(value);

/**
 * The vendor shapes as one alternation, one named group each, so a text is scanned once instead of
 * once per vendor (this runs per distinct string at ingest).
 */
const VENDOR = new RegExp(`${EDGE}(?:${PREFIXED.map(([, source], i) => `(?<v${i}>${source})`).join('|')})${TAIL}`, 'g');

export function runVendors(text: string, out: Finding[]): void {
  VENDOR.lastIndex = 0;
  for (let m = VENDOR.exec(text); m !== null; m = VENDOR.exec(text)) {
    const groups = m.groups!;
    const i = PREFIXED.findIndex((_, k) => groups[`v${k}`] !== undefined);
    const kind = PREFIXED[i]![0];
    if (kind === 'openai_key' && !hasDigit(m[0])) continue;
    out.push({ start: m.index, end: m.index + m[0].length, kind });
  }
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/**
 * A token nobody would type: upper and lower case letters and digits, high entropy, and none of the
 * shapes logs are full of that are not secrets (hex digests and input hashes, UUIDs, paths, dotted
 * names, words joined by `_` or `-`).
 */
export function looksLikeSecretToken(token: string): boolean {
  if (token.length < 24) return false;
  // A date and time in a name (`logs/build-2026-12-01T03-04-05Z.txt`) is digits and separators: the rest is judged.
  if (/\d{4}-\d\d-\d\dT\d\d/.test(token)) {
    // Cut out, its two sides joined: a token around it is judged whole (`<12 letters><date><12 letters>`).
    const rest = token.replace(TIMESTAMP, '');
    if (rest !== token) return looksLikeSecretToken(rest);
  }
  // Hex of both cases (`80bc3df4-A2675D8B-…`): a digest or an id is written in one case; none of
  // ../shared/data's hex runs of 24 or more mixes them.
  if (/^[0-9a-fA-F_-]+$/.test(token)) return /[a-f]/.test(token) && /[A-F]/.test(token) && (token.match(/\d/g)?.length ?? 0) >= 3 && entropy(token.replace(/[-_]/g, '')) >= 3.5;
  // Lower case and digits alone, not hex: base36 or lower-case base32 (a Twitch token, an Azure DevOps PAT),
  // also as the value of a name the run starts with (`pat=…`: `=` is a token character).
  const value = /^[A-Za-z_][\w.-]{0,40}=(?=[a-z0-9]{24,}$)/.test(token) ? token.slice(token.indexOf('=') + 1) : token;
  if (/^[a-z0-9]+$/.test(value)) return !/^[0-9a-f]+$/.test(value) && oneCaseRandom(value);
  // Words and hex or digit runs joined by separators (`build-3f9a1c…`, `telemetry-A1B2…`): ids, not keys.
  if (/[-_.]/.test(token) && token.split(/[-_.]+/).every((part) => /^[A-Za-z]*$/.test(part) || /^[0-9a-fA-F]+$/.test(part))) return false;
  if (/^(?:[A-Za-z]+[_.-])+[A-Za-z]+\d*$/.test(token)) return false;
  if (/\/[A-Za-z_.-]+\//.test(token) || token.startsWith('/')) return false;
  // Upper case and digits alone, long and random: base32 (a TOTP seed, an encoded token) or a key id
  // interleaved with digits. Shorter ones are ids (ULIDs have 26).
  // (Upper-case words with numbers, `INVALIDCONFIGURATIONVALUE2024FOR`, stay under 4 bits a character.)
  if (token.length >= 32 && /^[A-Z0-9]+=*$/.test(token)) return /\d/.test(token) && /[A-Z]/.test(token) && entropy(token.replace(/=+$/, '')) >= 4.2;
  if (!/[a-z]/.test(token) || !/[A-Z]/.test(token)) return false;
  // Both cases and no digit: base64 of text often has none (`TWoqRXFBJSVm…`); random when of high entropy
  // for its length (98 % of random runs of 24 letters reach 3.8 bits, of 32 4.2, of 48 4.6) and falling apart at its case
  // changes into pieces no word is (CamelCase names do not).
  if (!/\d/.test(token)) return entropy(token) >= Math.min(4.4, Math.log2(token.length) - 0.9) && caseNoise(token);
  // Word-like runs (CamelCase class names with a version) have long lower-case stretches.
  const lowerRuns = token.match(/[a-z]{6,}/g)?.join('').length ?? 0;
  if (lowerRuns > token.length / 2) return false;
  return entropy(token) >= (token.length >= 40 ? 4.2 : 3.9);
}

const TIMESTAMP = /[-_.]?\d{4}-\d\d-\d\dT\d\d(?:[-:]?\d\d){0,2}(?:[.,]\d+)?Z?[-_.]?/g;

/**
 * A run of lower-case letters and digits that is no id of words: 2 digits and 8 letters at least, the
 * entropy of random text, and letters that do not read as English: a fifth of the pairs of letters in a
 * row no English word has, or a tenth with few vowels. Names of words with numbers
 * (`microsoftvisualstudio2019enterprise`, `ubuntu2204jammyjellyfishamd64`) have at most 0.14 such pairs and a
 * third of vowels; random base36 or base32 has 0.22 or more in nine of ten. ../shared/data holds no
 * such run of 25 or more that is not hex.
 */
function oneCaseRandom(token: string): boolean {
  const digits = token.match(/\d/g)?.length ?? 0;
  if (digits < 2 || token.length - digits < 8 || entropy(token) < 3.6) return false;
  const runs = token.match(/[a-z]{2,}/g) ?? [];
  let pairs = 0;
  let foreign = 0;
  for (const run of runs) {
    pairs += run.length - 1;
    foreign += nonEnglishPairs(run);
  }
  const share = pairs === 0 ? 0 : foreign / pairs;
  const letters = token.length - digits;
  const vowels = (token.match(/[aeiou]/g)?.length ?? 0) / letters;
  return share >= 0.2 || (share >= 0.1 && vowels < 0.25);
}

/** Pieces at case changes that are no word (two letters or less, no vowel, four consonants in a row): four or more, and half. */
function caseNoise(token: string): boolean {
  const pieces = token.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? [];
  const odd = pieces.filter((piece) => piece.length <= 2 || !/[aeiouy]/i.test(piece) || /[^aeiouy]{4}/i.test(piece.slice(1))).length;
  return odd >= 4 && odd * 2 >= pieces.length;
}

/**
 * Vendor prefixes distinctive enough that a few random characters after them are a (cut) credential:
 * each ends in `_`, `-` or `.`, or is a documented fixed start (AWS key ids, Google API keys).
 */
export const TRUNCATED_PREFIXES = [
  'gh[pousr]_', 'github_pat_', 'gl(?:pat|dt|rt|ptt|cbt)-', 'npm_', 'pypi-', 'xox[abposre]-', 'xapp-', 'sk-ant-', 'sk-proj-',
  '[rs]k_(?:live|test)_', 'whsec_', 'hf_', 'glsa_', 'do[opr]_v1_', 'shp(?:at|ca|pa|ss)_', 'figd_', 'lin_(?:api|oauth)_', 'sntry[su]_',
  'sbp_', 'pscale_(?:tkn|pw|oauth)_', 'dckr_pat_', 'hv[sbr]\\.', 'gsk_', 'r8_', 'AKIA', 'ASIA', 'AIza', 'ya29\\.', 'ATATT3',
].join('|');

/** A random body with no words in it: every kind of character, and no run of five lower-case letters. */
function looksLikeShortSecret(token: string): boolean {
  const count = (re: RegExp): number => token.match(re)?.length ?? 0;
  // Letters of both cases alone, as a long one is read (looksLikeSecretToken): random for its length, falling apart at its case changes.
  if (count(/\d/g) === 0) return count(/[A-Z]/g) >= 2 && count(/[a-z]/g) >= 2 && entropy(token) >= Math.log2(token.length) - 0.9 && caseNoise(token);
  if (count(/\d/g) < 2 || count(/[A-Z]/g) < 2 || count(/[a-z]/g) < 2) return false;
  if (/[a-z]{5,}|[A-Z]{6,}|\d{6,}/.test(token)) return false;
  return entropy(token) >= 3.5;
}

/**
 * A part of an identifier (a session id, an input hash) that reads as a credential: a long random token,
 * or a short one (16 to 23 letters and digits) as the SHORT_TOKEN detector reads it in text.
 */
export function looksLikeSecretPart(part: string): boolean {
  if (looksLikeSecretToken(part)) return true;
  return part.length >= 16 && part.length <= 23 && /^[A-Za-z0-9]+$/.test(part) && looksLikeShortSecret(part);
}

/** Base64 key material: long, every kind of character, and few word-like stretches (paths are made of words). */
function looksLikeKeyMaterial(run: string): boolean {
  if (!/[a-z]/.test(run) || !/[A-Z]/.test(run) || !/\d/.test(run)) return false;
  const words = run.match(/[a-z]{4,}|[A-Z][a-z]{3,}/g)?.join('').length ?? 0;
  return words < run.length * 0.25 && entropy(run) >= 4.5;
}

/**
 * A vendor prefix with a body too short for its full shape: a token cut off (or split across events).
 * Run only on text with a run of 12 or more that holds a letter and a digit, both cases or a `_`/`-` (`runs.medium`).
 */
const CUT_VENDOR: Detector = {
  kind: 'secret',
  pattern: new RegExp(`${EDGE}(?:${TRUNCATED_PREFIXES})([A-Za-z0-9_-]{6,})`, 'g'),
  accept: (v) => /\d/.test(v) || (/[a-z]/.test(v) && /[A-Z]/.test(v)) || oneCaseBody(v),
};

/** A match of CUT_VENDOR whose body, behind a prefix no name starts with, is 8 letters or more of one case. */
function oneCaseBody(match: string): boolean {
  const prefix = UNWORDLIKE_PREFIX.exec(match);
  return prefix !== null && /^(?:[a-z]{8,}|[A-Z]{8,})$/.test(match.slice(prefix[0].length));
}

/**
 * The prefixes no name or word starts with: behind them a body of 8 letters of one case is a cut token
 * too (8 random characters of a 62-letter alphabet are all of one case once in 500). Left out: the
 * prefixes that start names (`npm_execpath`, `hf_transfer`, `ASIAPACIFIC`, `pypi-server`).
 */
const UNWORDLIKE_PREFIX = /^(?:gh[pousr]_|github_pat_|gl(?:pat|dt|rt|ptt|cbt)-|xox[abposre]-|sk-ant-|sk-proj-|[rs]k_(?:live|test)_|whsec_|glsa_|do[opr]_v1_|shp(?:at|ca|pa|ss)_|figd_|lin_(?:api|oauth)_|sntry[su]_|sbp_|pscale_(?:tkn|pw|oauth)_|dckr_pat_|hv[sbr]\.|ATATT3)/;

/** Key material on one line without its BEGIN line or DER prefix: a long base64 run that reads as random (`runs.keyRun`). */
const KEY_MATERIAL: Detector = {
  kind: 'private_key',
  pattern: /(?<![A-Za-z0-9+/=_])[A-Za-z0-9+/]{48,}={0,2}(?![A-Za-z0-9+/=_])/g,
  accept: (v, m) => looksLikeKeyMaterial(v) && !/sha(?:1|256|384|512)-$/i.test(m.input.slice(Math.max(0, m.index - 8), m.index)),
};

/** A short random token (16 to 23 letters and digits, `runs.shortToken`): a short API key, the half of a split token. */
const SHORT_TOKEN: Detector = { kind: 'high_entropy', pattern: /(?<![A-Za-z0-9_+/=.~%-])[A-Za-z0-9]{16,23}(?![A-Za-z0-9_+/=.~-])/g, accept: looksLikeShortSecret };

/**
 * A path's segment (a directory or file name, a URL's path part) that reads as a token: the token detectors
 * above take a run that starts at `/` for a path and leave it, so `/srv/cache/<token>` or `~/.x/<token>.json`
 * is read here segment by segment, by the same tests as a standalone token (its extension aside).
 */
const PATH_SEGMENT = /(?<=[/\\])[A-Za-z0-9_+=.~-]{16,}/g;
const EXTENSION = /\.[A-Za-z0-9]{1,6}$/;

export function findPathSegmentSecrets(text: string, out: Finding[]): void {
  PATH_SEGMENT.lastIndex = 0;
  for (let m = PATH_SEGMENT.exec(text); m !== null; m = PATH_SEGMENT.exec(text)) {
    const segment = m[0];
    const stem = segment.replace(EXTENSION, '');
    if (!hasRandomPart(stem)) continue;
    if (looksLikeSecretPart(segment) || (stem !== segment && looksLikeSecretPart(stem))) out.push({ start: m.index, end: m.index + stem.length, kind: 'high_entropy' });
  }
}

/**
 * A name made of words (`HarddiskVolumeShadowCopy2`, `Hadoop_2k.log_structured`, a macOS temporary folder's
 * `-private-var-folders-5b-…`) is not a token: one part of it, cut at `-`, `_` and `.`, must read as a token
 * itself, and not as CamelCase words with short numbers.
 */
function hasRandomPart(stem: string): boolean {
  return stem.split(/[-_.]+/).some((part) => !camelWords(part) && looksLikeSecretPart(part));
}

/**
 * Words of three or more lower-case letters (a capital before each, or not), upper-case runs and numbers of
 * at most four digits, with at least one such word (upper case and digits alone are no CamelCase). Read run
 * by run: the same as a pattern would, without its backtracking (nested quantifiers over a long upper-case
 * run took minutes).
 */
function camelWords(part: string): boolean {
  let lower = false;
  for (const [run] of part.matchAll(CASE_RUNS)) {
    const c = run.charCodeAt(0);
    if (c >= 97 && c <= 122) {
      if (run.length < 3) return false;
      lower = true;
    } else if (c >= 48 && c <= 57) {
      if (run.length > 4) return false;
    } else if (!(c >= 65 && c <= 90)) {
      return false;
    }
  }
  return lower;
}
const CASE_RUNS = /[A-Z]+|[a-z]+|\d+|[^A-Za-z\d]+/g;

/** Detectors of a token by its look: run only on text with a long run of token characters. */
const TOKEN_DETECTORS: readonly Detector[] = [
  // A key body without its BEGIN line: DER sequences start `MII` in base64.
  { kind: 'private_key', pattern: /(?<![A-Za-z0-9+/])MI[IGHJ][A-Za-z0-9+/]{60,}={0,2}/g },
  // Not right after a `%XX` code: that run is the rest of a percent-encoded text, read decoded in its view.
  { kind: 'high_entropy', pattern: /(?<![A-Za-z0-9_+/=.~%-])[A-Za-z0-9_+/=.~-]{24,}/g, accept: looksLikeSecretToken },
  // Key material split over lines: the run right after a line break that follows a redacted secret.
  { kind: 'secret', pattern: /\[REDACTED:[a-z0-9_]+\](?:\\[nr]|\r?\n)[ \t]*([A-Za-z0-9+/=_-]{8,})/dg, group: 1, accept: continuesSecret },
];

/**
 * The password of `user:password@host`. With a scheme (`https://u:p@h`) any value but a port-like number;
 * without one, a single lower-case word is a name before a host (`LeaseRenewer:msrabi@host:9000` in
 * Hadoop's logs), not a password.
 */
function urlPassword(value: string, m: RegExpExecArray): boolean {
  if (/^\d+$/.test(value) || value.startsWith('[REDACTED:')) return false;
  const scheme = /:\/\/$/.test(m.input.slice(Math.max(0, m.index - 3), m.index));
  return scheme || !/^[a-z]{1,16}$/.test(value);
}

/**
 * A gate as the prefilter's clauses (secret-prefilter.ts: literals, looked for without compiling a regex
 * on a process's first texts), then `regex` when the gate is more than its literals (`value[ \t]*=`).
 * Exact: every clause names what every match of the gate holds.
 */
function gateOf(needs: readonly Clause[], regex?: RegExp): Gate {
  const admits = compileNeeds(needs);
  return regex === undefined ? { test: admits } : { test: (text) => admits(text) && regex.test(text) };
}

/**
 * A program's gate (`mysql\w*|mariadb\w*`, `7z|7za|…`, `ldap\w+`): each alternative without its word
 * tail is a literal every match holds; the regex decides after them.
 */
function programGate(source: string): Gate {
  const literals = source.split('|').map((alternative) => alternative.replace(/\\w[*+]$/, ''));
  let regex: RegExp | undefined;
  const test = (text: string) => (regex ??= new RegExp(source, 'i')).test(text);
  if (!literals.every((literal) => /^[\w-]+$/.test(literal))) return { test };
  const admits = compileNeeds([anyIgnoringCase(...literals)]);
  return { test: (text) => admits(text) && test(text) };
}

/** What a detector's gate is asked: whether the text may hold its context. */
export interface Gate {
  test(text: string): boolean;
}

/** Flag names that end in a credential word (`--password-stdin` and `--token-limit` do not end in one). */
const FLAG_WORDS = 'passw(?:or)?d|passwd|pass|pwd|passphrase|storepass|keypass|secret|token|api[_-]?key|credentials?';
/**
 * Tried once per run of `-` and word characters (the look-behind: without it the gate is quadratic on
 * `-----…`); the `-` first, so the engine skips to each `-` instead of trying every position.
 */
const FLAG_GATE = gateOf([any('-'), anyIgnoringCase('pass', 'pwd', 'secret', 'token', 'key', 'credential')], /-(?<![\w-]-)[\w-]*?(?:pass|pwd|secret|token|api[_-]?key|credential)/i);
/** Flag names whose value is `user:password`. */
const USER_FLAG_WORDS = 'user|creds|credentials?|auth|login';
const USER_FLAG_GATE = gateOf([any('-'), anyIgnoringCase('user', 'creds', 'credential', 'auth', 'login', '-u')], /-(?<![\w-]-)[\w-]*?(?:user|creds|credential|auth|login)|-u/i);

/** A flag's value: quoted (group 2 inside the quotes) or bare, never the next flag or a redirection. */
const FLAG_VALUE = String.raw`(["']?)(?![-<>|$])([^\s"'\x60]{1,200})\1`;

/**
 * Programs whose short flag (or a long one of theirs) is a password, as documented by each: the MySQL
 * family's `-p<password>` (attached only: `mysql -p db` names a database), registry logins, sshpass,
 * MongoDB shells, redis-cli, SQL Server's tools, archivers, OpenLDAP's tools, mosquitto clients.
 * `[program, flags, what may stand between flag and value, the word the text must hold (default: the program)]`.
 */
const PASSWORD_FLAG_PROGRAMS: readonly [program: string, flags: string, spacing: string, gate?: string][] = [
  [String.raw`mysql\w*|mariadb\w*`, '-p', '(?![ \t])'],
  ['sshpass', '-p', '(?:[ \t]+)?'],
  [String.raw`(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|regctl|finch)\b[^\n|;&]{0,60}?\blogin`, '-p|--password', '(?:[ \t]+|=)', 'login'],
  [String.raw`mongo\w*`, '-p|--password', '(?:[ \t]+|=)'],
  ['redis-cli', '-a|--pass', '(?:[ \t]+)'],
  ['sqlcmd|bcp|osql|isql', '-P', '(?:[ \t]+)?'],
  ['zip|unzip', '-P|--password', '(?:[ \t]+)'],
  ['7z|7za|7zr|rar|unrar', '-p', '(?![ \t])'],
  [String.raw`ldap\w+`, '-w', '(?:[ \t]+)'],
  [String.raw`mosquitto_\w+`, '-P|--pw', '(?:[ \t]+)'],
];

/** A flag's value that is a credential: not a redaction already, not a reference to a variable. */
function flagValue(value: string): boolean {
  return !value.startsWith('[REDACTED:') && !/^\$\{?\w+\}?$/.test(value) && !/^(?:stdin|-)$/i.test(value);
}

/** Element and attribute names that hold a credential (`password`, `db_pwd`, `apiToken`, `client_secret`, `credentials`). */
const MARKUP_WORDS = 'passw(?:or)?d|passwd|pwd|passphrase|secret|token|(?:api|access|private|secret|signing|encryption|master)[_.-]?key|credentials?';

function markupValue(value: string): boolean {
  return value.trim() !== '' && !value.startsWith('[REDACTED:') && !/^\$\{[\w.]+\}$/.test(value);
}

/**
 * An element's text: up to its closing tag, or to the end of a cut text when it is one token (`<token>
 * at line 3` in a parser's complaint is prose about a tag, not a value).
 */
function elementValue(value: string, m: RegExpExecArray): boolean {
  return markupValue(value) && (m.input.startsWith('</', m.index + m[0].length) || !/\s/.test(value.trim()));
}

/**
 * Words after a credential word and a verb or sign that introduces its value (`is`, `was`, `set to`,
 * `:`, `=`): up to eight words, to the end of the clause (punctuation, or a word that goes on with the
 * sentence: "… for user root", "… and will expire"). The first word decides: one that describes the
 * password instead of being it ("is incorrect", "was not provided", "is too short") is prose.
 */
const PASSPHRASE = new RegExp(
  String.raw`\b(?:pass(?:word|phrase|wd|code)|pin)(?:[ \t]+(?:is|was|set[ \t]+to)|[ \t]*[:=])[ \t]+["']?((?:\[REDACTED:[a-z0-9_]+\]|[^\s,;()"'<>[\]]+)(?:[ \t]+(?!(?:${CLAUSE_WORDS})\b)[^\s,;()"'<>[\]]+){0,7})`,
  'dgi',
);
/** Two or more words, none of them prose first: a passphrase (one token is left to the pair rules). */
function passphraseValue(value: string): boolean {
  const words = value.split(/[ \t]+/);
  if (words.length < 2 || PROSE_WORDS.has(words[0]!.toLowerCase().replace(/[.!?:]+$/, ''))) return false;
  // The pair rules may have redacted the first word already (`password: [REDACTED:password] horse battery`).
  const rest = words[0]!.startsWith('[REDACTED:') ? words.slice(1) : words;
  return rest.every((w) => /^[A-Za-z0-9!@#$%^&*_+~-]+[.!?]?$/.test(w));
}

/** Detectors of a credential by its context (a key word, a flag, a header): run only on text with such a word. */
export const CONTEXT_DETECTORS: readonly Detector[] = [
  // `pass: x`, `pass=x`, `passwd=x` as a key of its own.
  { gate: gateOf([anyIgnoringCase('pass', 'pwd', 'pw')]), kind: 'password', pattern: /(?<![\w.-])(?:pass|passwd|pwd|pw)["']?[ \t]*[:=][ \t]*["']?([^\s"',;&]{3,200})/dgi, group: 1, accept: (v) => !/^\[REDACTED:/.test(v) && !/^[~/]/.test(v) },
  // `user:pass@host` with or without a scheme; the password may hold `@` (up to the last one before the host).
  // The look for a later `@` stops at 200 characters (a password is at most 200): unbounded, it made the
  // pattern quadratic on a line of `a:b@` repeated (4.3 s CPU at 120k characters; 17 ms bounded).
  // After the host: a port, a path, scp's `:path/` (`deploy:pw@git.internal:acme/app.git`) or the `: ` of a
  // message; not `host:9000,`.
  { gate: gateOf([any('@')]), kind: 'url_password', pattern: /(?<![\w.%+-])[\w.%+-]{1,64}:((?:[^\s:/?#"'<>@]|@(?=[^\s/?#"'<>]{0,200}@)){1,200})@(?=[\w-]+(?:\.[\w-]+)*(?::\d+)?(?:[/\s?#"']|:[\w.~-]+\/|:(?=\s|$)|$))/dg, group: 1, accept: urlPassword },
  // Cookie headers carry sessions: the whole value.
  { gate: gateOf([anyIgnoringCase('cookie')]), kind: 'cookie', pattern: /\b(?:set-)?cookie["']?[ \t]*[:=][ \t]*["']?([^\n"']{4,4000})/dgi, group: 1, accept: (v) => /=/.test(v) && !/^\[REDACTED:[a-z_]+\]$/.test(v) },
  // Headers named for a credential: `X-Api-Key: …`, `X-Auth-Token: …`, `Private-Token: …`.
  { gate: gateOf([anyIgnoringCase('x-', 'private-token', 'api-key', 'apikey')]), kind: 'authorization', pattern: /\b(?:x-[\w-]*(?:key|token|secret|auth)|private-token|api-key|apikey)["']?[ \t]*:[ \t]*["']?([^\s"',;]{6,})/dgi, group: 1, accept: (v) => !v.startsWith('[REDACTED:') },
  // `.env` lines and environment dumps: an upper-case name with a credential word (`API_KEY_2=…`, `DB_PASS_RO=…`).
  { gate: gateOf([any('PASS', 'PWD', 'SECRET', 'TOKEN', 'KEY', 'AUTH', 'CREDENTIAL', 'SALT')]), kind: 'secret', pattern: /(?<![\w.-])([A-Z][A-Z0-9_]{1,80})["']?[ \t]*[:=][ \t]*["']?([^\s"',;&]{1,400})/dg, group: 2, accept: (v, m) => ENV_NAME.test(m[1]!) && !(/^(?:OLD)?PWD$/.test(m[1]!) && /^[~/]/.test(v)) && !v.startsWith('[REDACTED:') && !/^\$\{?\w+\}?$/.test(v) },
  // `-p<password>` attached to a MySQL/MariaDB client's flag (`mysql -uroot -phunter2`).
  { gate: gateOf([anyIgnoringCase('mysql', 'mariadb')]), kind: 'password', pattern: /\b(?:mysql\w*|mariadb\w*)\b[^\n]{0,200}?[ \t]-p(?![ \t])(["']?)([^\s"']{1,200})\1/dgi, group: 2 },
  // A flag named for a credential, on any program: `--db-pass x`, `-storepass x`, `--api-key=x`, `--passphrase 'x'`.
  { gate: FLAG_GATE, kind: 'password', pattern: new RegExp(String.raw`(?<![\w-])--?[\w-]*?(?:${FLAG_WORDS})(?:[ \t]+|=)${FLAG_VALUE}`, 'dgi'), group: 2, accept: flagValue },
  // Programs whose short flag takes a password (`docker login -p x`, `sshpass -p x`, `7z -px`, `ldapsearch -w x`).
  ...PASSWORD_FLAG_PROGRAMS.map(([program, flags, spacing, gate]): Detector => ({
    gate: programGate(gate ?? program),
    kind: 'password',
    pattern: new RegExp(String.raw`(?<![\w-])(?:${program})(?![\w-])[^\n|;&]{0,200}?[ \t](?:${flags})${spacing}${FLAG_VALUE}`, 'dg'),
    group: 2,
    accept: flagValue,
  })),
  // Flags that take `user:password` (curl's `--proxy-user`, skopeo's `--src-creds`, `--auth`) or Samba's
  // `-U user%password`: the part after the first `:` or `%` (also when a shape redacted its start). All digits
  // is a uid:gid (`docker run -u 1000:1000`).
  { gate: USER_FLAG_GATE, kind: 'password', pattern: new RegExp(String.raw`(?<![\w-])(?:--?[\w-]*?(?:${USER_FLAG_WORDS})|-[uU])(?:[ \t]+|=)["']?[^\s:%"'@/=[\]]{1,64}[:%]["']?([^\s"']{1,200}?)["']?(?=[\s"')]|$)`, 'dg'), group: 1, accept: (v) => !/^\d+$/.test(v) && !/^\[REDACTED:[a-z0-9_]+\]$/.test(v) },
  // A quoted value right after a password word: `the passphrase 'amber pistol meadow' is wrong`.
  { gate: gateOf([anyIgnoringCase('pass')]), kind: 'password', pattern: /\b(?:password|passphrase|passwd|passcode)[ \t]+(["'])((?!\[REDACTED:)[^"'\n]{1,200})\1/dgi, group: 2 },
  // XML and HTML elements named for a credential: `<password>x</password>`, `<ns:ApiToken a="1">x</ns:ApiToken>`.
  { gate: gateOf([any('<'), anyIgnoringCase('pass', 'pwd', 'secret', 'token', 'key', 'credential')], /<(?:[\w.-]+:)?[\w.-]*?(?:pass|pwd|secret|token|key|credential)/i), kind: 'password', pattern: new RegExp(String.raw`<(?:[\w.-]+:)?[\w.-]*?(?:${MARKUP_WORDS})(?:[ \t][^<>]{0,200})?>[ \t]*([^<\n]{1,400}?)[ \t]*(?=</|$)`, 'dgi'), group: 1, accept: elementValue },
  // Attributes that name a credential and carry its value: `<add key="DbPassword" value="x"/>`, `<input type="password" value="x">`.
  { gate: gateOf([anyIgnoringCase('value'), any('=')], /value[ \t]*=/i), kind: 'password', pattern: new RegExp(String.raw`\b(?:key|name|id|type|property)[ \t]*=[ \t]*["'][^"'<>]*?(?:${MARKUP_WORDS})[^"'<>]*["'][^<>]{0,200}?\bvalue[ \t]*=[ \t]*(["'])([^"'\n]{1,400})\1`, 'dgi'), group: 2, accept: markupValue },
  // Elements whose key or name attribute names a credential and whose text is its value: Java properties XML
  // `<entry key="db.password">x</entry>`, Spring/Hibernate `<property name="connection.password">x</property>`.
  { gate: gateOf([anyIgnoringCase('key', 'name', 'id', 'property'), any('=')], /(?:key|name|id|property)[ \t]*=/i), kind: 'password', pattern: /<[\w.:-]+[ \t][^<>]*?\b(?:key|name|id|property)[ \t]*=[ \t]*["']([^"'<>]{1,200})["'][^<>]{0,200}?(?<!\/)>[ \t]*([^<\n]{1,400}?)[ \t]*(?=<\/)/dgi, group: 2, accept: (value, m) => namesCredential(m[1]!) && markupValue(value) },
  // A passphrase of words after a credential word: `passphrase is orbit velvet canyon`, `password: correct horse battery`.
  { gate: gateOf([anyIgnoringCase('pass', 'pwd', 'pin')], /pass|pwd|pin\b/i), kind: 'password', pattern: PASSPHRASE, group: 1, accept: passphraseValue },
  // `using password hunter2x`, `with password: x`, `AUTH x` (redis): a value with a digit or mixed case.
  { gate: gateOf([anyIgnoringCase('passw', 'passph')]), kind: 'password', pattern: /\b(?:password|passphrase|passwd)(?:[ \t]+(?:is|was))?[ \t]+["']?(?!\()([^\s"',;]{6,200})/dgi, group: 1, accept: credentialLike },
  { gate: gateOf([any('AUTH')]), kind: 'password', pattern: /\b(?:AUTH)[ \t]+(?:\w+[ \t]+)?["']?([^\s"',;]{6,200})/dg, group: 1, accept: credentialLike },
  // redis.conf's `requirepass <pw>` / `masterauth <pw>`: a directive whose one argument is the password, so a
  // word of lower-case letters is the password too (not the next word of a sentence).
  { gate: gateOf([any('requirepass', 'masterauth')]), kind: 'password', pattern: /\b(?:requirepass|masterauth)[ \t]+["']?([^\s"',;]{1,200})/dg, group: 1, accept: directiveValue },
];

/** The argument of a directive that takes a password: anything but a marker, a URL or a word that reads as prose about it. */
function directiveValue(value: string): boolean {
  return !value.startsWith('[REDACTED:') && !value.includes('://') && !/^(?:is|was|not|for|set|unset|required|missing|directive|option|must|should|\.\.\.|<\w+>)$/i.test(value);
}

/** An environment variable named for a credential: the word is a whole `_`-separated part of the name. */
const ENV_NAME = /(?:^|_)(?:PASS(?:WORD|WD|PHRASE)?|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?|SIGNING_?KEY|SALT)(?:_|\d|$)/;

/** The rest of a token after a line break: random-looking (letters and digits, or mixed case and long). */
function continuesSecret(run: string): boolean {
  return (/\d/.test(run) && /[A-Za-z]/.test(run)) || (run.length >= 16 && /[a-z]/.test(run) && /[A-Z]/.test(run));
}

/** A value after a credential word that reads as a credential, not as the next word of a sentence. */
function credentialLike(value: string): boolean {
  if (value.startsWith('[REDACTED:') || value.includes('://')) return false;
  if (/^(?:authentication|required|incorrect|invalid|expired|for|is|was|not|provided|mismatch|changed|reset|policy|prompt|please|must|should|will|has|does|did|YES|NO|\(using)$/i.test(value)) return false;
  return /\d/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)) || /[^\w]/.test(value.replace(/[.,:;!?)]+$/, ''));
}

/** What the gates need to know about a text's runs of token characters, read in one pass. */
export interface TokenRuns {
  /** A run of 15 or more: a vendor token or a random one may be there. */
  long: boolean;
  /** A run of 12 or more with a letter and a digit, both cases or a `_`/`-`: a cut vendor token may be there. */
  medium: boolean;
  /** A run of 16 or more with a letter and a digit, or a URL or key block: the rule set may find something. */
  ruleSet: boolean;
  /** A run of 24 or more that may encode something (normalise.ts mayEncode): a base64 run worth decoding may be there. */
  base64: boolean;
  /** A run of 48 or more of the base64 alphabet alone (`A-Za-z0-9+/`): key material may be there. */
  keyRun: boolean;
  /** A run of 16 to 23 letters and digits alone, with both cases: a short token may be there. */
  shortToken: boolean;
}

const isTokenCode = (c: number): boolean =>
  (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 43 || c === 47 || c === 61 || c === 126 || c === 45;

/**
 * One pass over the text, no allocation: the gates of findSecrets and of the base64 views. The token
 * gates read segments, runs cut at `/`, `.` and `:` as well: paths (`src/db/0042_add_orders.sql`) are
 * the long runs of most log lines, and a token has a long segment of its own.
 */
export function tokenRuns(text: string): TokenRuns {
  const runs: TokenRuns = { long: false, medium: false, keyRun: false, shortToken: false, ruleSet: text.includes('://') || text.includes('-----BEGIN') || text.includes('PRIVATE KEY'), base64: false };
  let length = 0;
  let segment = 0;
  let digit = false;
  let letter = false;
  let lower = false;
  let upper = false;
  let joined = false;
  let key = 0;
  let short = 0;
  let shortClasses = 0;
  const size = text.length;
  for (let i = 0; i <= size; i += 1) {
    const c = i < size ? codeAt(text, i) : 32;
    const token = isTokenCode(c);
    if (token && c !== 47 && c !== 46 && c !== 58) {
      segment += 1;
      if (c >= 48 && c <= 57) digit = true;
      else if (c >= 65 && c <= 90) letter = upper = true;
      else if (c >= 97 && c <= 122) letter = lower = true;
      else if (c === 95 || c === 45) joined = true;
    } else {
      if (segment >= 15) runs.long = true;
      if (segment >= 12 && letter && (digit || (lower && upper) || joined)) runs.medium = true;
      if (segment >= 16 && digit && letter) runs.ruleSet = true;
      segment = 0;
      digit = false;
      letter = false;
      lower = false;
      upper = false;
      joined = false;
    }
    if (token) {
      length += 1;
    } else {
      if (length >= 24) runs.base64 = runs.base64 || mayEncode(text.slice(i - length, i));
      length = 0;
    }
    // Runs of the base64 alphabet alone (a key) and of letters and digits alone (a short token).
    const alnum = c <= 122 && (c >= 97 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90));
    if (alnum || c === 43 || c === 47) {
      key += 1;
    } else {
      if (key >= 48) runs.keyRun = true;
      key = 0;
    }
    if (alnum) {
      short += 1;
      shortClasses |= c <= 57 ? 1 : c <= 90 ? 2 : 4;
    } else {
      if (short >= 16 && short <= 23 && (shortClasses & 6) === 6) runs.shortToken = true;
      short = 0;
      shortClasses = 0;
    }
  }
  return runs;
}

function run(detector: Detector, text: string, out: Finding[]): void {
  const re = detector.pattern;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex += 1;
    const group = detector.group ?? 0;
    const value = m[group];
    if (value === undefined || value === '') continue;
    if (detector.accept && !detector.accept(value, m)) continue;
    const start = group === 0 ? m.index : (m as RegExpExecArray & { indices: [number, number][] }).indices[group]![0];
    out.push({ start, end: start + value.length, kind: detector.kind });
  }
}

/**
 * The literals every match of a context detector holds, read off their gates (a gate's words, a
 * program's name; FLAG_GATE and the markup gate need a credential word): one alternation of literals.
 * Testing the gates themselves, one by one or as one alternation, cost 10 times more (lookbehinds and
 * lazy runs defeat the engine's literal search). test/unit/session-secrets.test.ts holds it to the gates.
 */
const CONTEXT_LITERALS = /@|x-|cookie|-u|user|creds|login|mysql|mariadb|sshpass|mongo|redis-cli|sqlcmd|bcp|osql|isql|zip|7z|rar|ldap|mosquitto_|pass|pwd|pw|pin|secret|token|key|auth|credential|salt|value|name|id|property|requirepass|masterauth/i;

/** The context detectors' gates, for the test that holds CONTEXT_LITERALS to them. */
export const CONTEXT_GATES: readonly Gate[] = CONTEXT_DETECTORS.map((detector) => detector.gate ?? /[\s\S]/);

/**
 * Whether a detector that finds a secret by its context (a key word, a flag, a program that takes a
 * password, `user:pass@`, a credential file's line) may find one in `text`: their gates and declared
 * needs, nothing more. A value found by its shape alone (a vendor prefix, a random-looking run) is
 * found again by that shape wherever a copy stands.
 */
export function credentialContextMayMatch(text: string): boolean {
  return CONTEXT_LITERALS.test(text) || contextMayMatch(text) || formatMayMatch(text);
}

/** Every secret the detectors and the rule set find in `text`, as ranges (may overlap). */
export function findSecrets(text: string, runs: TokenRuns = tokenRuns(text)): Finding[] {
  const out: Finding[] = [];
  if (runs.ruleSet) for (const f of scanWithRuleSet(text)) out.push(f);
  if (runs.medium) run(CUT_VENDOR, text, out);
  if (runs.keyRun) run(KEY_MATERIAL, text, out);
  if (runs.shortToken) run(SHORT_TOKEN, text, out);
  if (runs.long) {
    runVendors(text, out);
    for (const detector of TOKEN_DETECTORS) run(detector, text, out);
  }
  if ((runs.base64 || runs.shortToken) && (text.includes('/') || text.includes('\\'))) findPathSegmentSecrets(text, out);
  for (const detector of CONTEXT_DETECTORS) if (detector.gate === undefined || detector.gate.test(text)) run(detector, text, out);
  // Secrets read by a format's grammar (credential files, seed phrases), whatever their alphabet.
  findFormatSecrets(text, out);
  findContextSecrets(text, out);
  findMnemonics(text, out);
  return out;
}
