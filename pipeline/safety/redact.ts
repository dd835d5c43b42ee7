import { stripInvisible, wrapped } from './normalise.js';
import { netrcAcrossLines } from './credential-formats.js';
import { phraseAcrossLines } from './mnemonic.js';
import { redactFindings, redactSplitTokens } from './redact-findings.js';
import { holdsColumn } from './random-pieces.js';
import { any, anyIgnoringCase, ASSIGNS, compileNeeds, type Admits, type Needs } from './secret-prefilter.js';
import { RedactionMemo } from './redaction-memo.js';

/**
 * The one redactor. Every piece of untrusted log text passes through `redact` before it reaches a
 * rule, a report, state, stdout, a prompt or git (see ARCHITECTURE.md, "Principles").
 *
 * Design choices a maintainer should know:
 * - Rules run in a fixed order, most specific first, so a GitHub token inside a URL password is
 *   labelled `github_token`, not `url_password`.
 * - No rule matches a `[REDACTED:<kind>]` marker: a value that starts with one is skipped
 *   (`(?!\[REDACTED:)`) and no marker kind is a secret shape. `redact` also repeats its passes
 *   until nothing changes, so idempotence does not rest on that care alone.
 * - Every pattern that starts with a repeated character class is anchored by a look-behind that
 *   excludes the same class, so it is tried once per run of characters: hostile input cannot make it
 *   quadratic.
 */

/**
 * A secret shape. `render` returns the replacement, or undefined to leave this match alone. With
 * `rescan`, a declined match is not consumed: a declined `key: value` may hide a real pair inside it.
 * Rules whose declined match cannot hide one leave it off, which keeps hostile input linear.
 */
interface SecretRule {
  readonly kind: string;
  readonly pattern: RegExp;
  /** What a text needs before this rule can change it (see secret-prefilter.ts): required, so a new rule says. */
  readonly needs: Needs;
  readonly render?: (m: RegExpExecArray) => string | undefined;
  readonly rescan?: boolean;
}

const mark = (kind: string): string => `[REDACTED:${kind}]`;
const group = (m: RegExpExecArray, i: number): string => m[i] ?? '';

/** Words that make a neighbouring value a secret in `key=value` shapes (the key must end with one). */
const PAIR_KEY = String.raw`(?<![\w.-])([\w.-]*?(?:passw(?:or)?d|pwd|passphrase|[_.-]pass|secret|token|api[_.-]?key|secret[_.-]?(?:access[_.-]?)?key))`;
/**
 * `=`, `:`, `:=` or `=>`. The look-aheads keep it unambiguous: if `:=` could also be read as `:`, a
 * second pass would see `=` as the value and redact again.
 */
const ASSIGN = String.raw`(?:=>|:=|:(?!=)|=(?!>))`;
/**
 * A string literal's prefix before its opening quote (Python's `b'…'`, `r'…'`, `u'…'`, `rb'…'`, bash's
 * `$'…'`, SQL's national `N'…'`): taken with the separator, so the value is what the quotes hold (`{b'password': b'x'}`), never the
 * prefix letter alone. Either it is there and consumed, or it is not there: the value cannot start with it.
 */
const STRING_PREFIX = String.raw`(?:(?:[bBrRuU]{1,2}|N)(?=\\?["'])|\$(?=')|(?!(?:[bBrRuU]{1,2}|N)\\?["']|\$'))`;
/**
 * A YAML node's properties before its value: a tag (`!!str`, `!secret`, `!<tag:…>`) and an anchor (`&a`),
 * taken with the separator, so the value is what follows them (`client_secret: !!str Saffron-…`).
 */
const NODE_PROPERTIES = String.raw`(?:(?:!<[^>\s]{0,64}>|![\w!/.%-]{0,64}|&[\w-]{1,64})[ \t]+){0,2}`;
/** The assignment with the key's closing quote (plain or JSON-escaped), spaces, YAML node properties and a string prefix. */
const PAIR_SEP = String.raw`(\\?["']?[ \t]*${ASSIGN}[ \t]*${NODE_PROPERTIES}${STRING_PREFIX})`;
/** A quoted value, closed by the same quote, or cut off at the end of the line (truncated logs). */
const QUOTED_VALUE = String.raw`(\\?["'])(?!\[REDACTED:)((?:(?!\3)(?:\\.?|[^\\\n]))+)(\3|(?=\r?\n)|$)`;
/**
 * The look-ahead also skips `=[REDACTED:…]`: after `password:=` was redacted, a second pass reads
 * the separator as `:` and the value as `=[REDACTED:…]`.
 * An unquoted value ends at whitespace, a quote, or a `&` `,` `;` that starts the next pair
 * (`?token=a&page=2`, `Password=a;Server=b`); inside a value those characters are kept (`Tr0ub&3`).
 */
const BARE_VALUE = String.raw`(?!["'\\]|[=:>]*\[REDACTED:)((?:[^\s"'\`,;&]|[,;&](?=[^\s"'\`,;&])(?![\w.-]+[=:]))+)`;
/** Looser words for the entropy check: the key may merely contain one (`aws_key_id`, `authHeader`). */
const ENTROPY_WORDS = 'key|secret|token|credential|auth|passw|pwd|private|signature';
const ENTROPY_VALUE = String.raw`(?!\[REDACTED:)([\w+/.~-]{20,}={0,2})`;
const AUTH_SCHEMES = 'bearer|basic|token|bot|digest|negotiate';

export const SECRET_KINDS: readonly string[] = [
  'private_key', 'jwt', 'anthropic_key', 'openai_key', 'stripe_key', 'github_token', 'gitlab_token',
  'slack_webhook', 'slack_token', 'google_api_key', 'npm_token', 'aws_access_key', 'sendgrid_key',
  'huggingface_token', 'bearer_token', 'basic_auth', 'authorization', 'url_password', 'aws_secret_key',
  'password', 'secret', 'token', 'api_key', 'high_entropy',
];

/**
 * Cheap gate: text without any of these substrings (ASCII letters compared without case) cannot match a
 * rule, so it is returned as is. A prefilter clause (secret-prefilter.ts): the hook, which redacts a few
 * short texts, looks for them without compiling the regex of all of them.
 */
const TRIGGER = compileNeeds([
  anyIgnoringCase('AKIA', 'ASIA', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-', 'xox', 'xapp-', 'hooks.slack', 'sk-', 'rk_', 'sk_', 'AIza', 'npm_', 'eyJ', 'SG.', 'hf_', '-----BEGIN', '://', 'pass', 'pwd', 'secret', 'token', 'key', 'auth', 'bearer', 'credential', 'signature', 'private'),
]);

/** Whether some regex shape here may change `text` (the cheap gate above). */
export function shapesMayMatch(text: string): boolean {
  return TRIGGER(text);
}

/** Kind of a `key=value` pair, by the word the key ends with. */
function pairKind(key: string): string {
  const k = key.toLowerCase();
  if (/secret(?:[_.-]?(?:access[_.-]?)?key)?$/.test(k)) return 'secret';
  if (k.endsWith('token')) return 'token';
  if (/api[_.-]?key$/.test(k)) return 'api_key';
  return 'password';
}

/**
 * Passwords and secrets are always redacted. `token`/`api_key` followed by a bare `:` also occur in
 * ordinary parser errors ("Unexpected token: }"), so there the value must look like a credential.
 */
function isSecretPair(key: string, sep: string, value: string, quoted: boolean): boolean {
  const kind = pairKind(key);
  // `PWD=/repo` in an environment dump is the working directory, not a password.
  if (/^(?:old)?pwd$/i.test(key) && /^[~/]/.test(value)) return false;
  if (kind === 'password' || kind === 'secret' || quoted || sep.includes('=')) return true;
  return /[A-Za-z0-9]/.test(value) && (/\d/.test(value) || value.length >= 12);
}

function renderQuotedPair(m: RegExpExecArray): string | undefined {
  const [key, sep] = [group(m, 1), group(m, 2)];
  if (!isSecretPair(key, sep, group(m, 4), true)) return undefined;
  return `${key}${sep}${group(m, 3)}${mark(pairKind(key))}${group(m, 5)}`;
}

function renderBarePair(m: RegExpExecArray): string | undefined {
  const [key, sep, value] = [group(m, 1), group(m, 2), group(m, 3)];
  if (!isSecretPair(key, sep, value, false)) return undefined;
  return `${key}${sep}${mark(pairKind(key))}`;
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/** Random-looking: mixed character classes and high entropy. Paths are excluded: they are not secrets. */
function looksRandom(value: string): boolean {
  if (/^(?:~|\.\.?)?\/[\w.-]+\//.test(value)) return false;
  const mixed = /\d/.test(value) ? /[A-Za-z]/.test(value) : /[a-z]/.test(value) && /[A-Z]/.test(value);
  return value.length >= 20 && mixed && entropy(value) >= 3.5;
}

function renderEntropy(m: RegExpExecArray): string | undefined {
  return looksRandom(group(m, 3)) ? `${group(m, 1)}${group(m, 2)}${mark('high_entropy')}` : undefined;
}

function renderAuthorization(m: RegExpExecArray): string {
  const scheme = group(m, 3);
  const kind = { bearer: 'bearer_token', basic: 'basic_auth' }[scheme.toLowerCase()] ?? 'authorization';
  return `${group(m, 1)}${group(m, 2)}${scheme}${group(m, 4)}${mark(kind)}`;
}

/** The key words of PAIR_KEY (`[_.-]pass` and `passw(or)d` hold `pass`, `api[_.-]?key` holds `api`), and its assignment. */
const PAIR_NEEDS: Needs = [anyIgnoringCase('pass', 'pwd', 'secret', 'token', 'api'), ASSIGNS];
/** A space or tab between a word and its value. */
const BLANK = any(' ', '\t');
/** `--password value`: a dash, a key word, a blank. */
const FLAG_NEEDS: Needs = [anyIgnoringCase('pass', 'secret', 'token', 'api'), any('-'), BLANK];

const whole = (kind: string, source: string, needs: Needs, flags = 'g'): SecretRule => ({ kind, pattern: new RegExp(source, flags), needs });

const RULES: readonly SecretRule[] = [
  // A PEM block first: its base64 body would otherwise feed the generic rules. No END: to end of text.
  whole('private_key', String.raw`-----BEGIN[ A-Z0-9]*PRIVATE KEY[ A-Z]*(?:-----)?[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----|$)`, [any('-----BEGIN')]),
  whole('jwt', String.raw`\beyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]*`, [any('eyJ')]),
  whole('anthropic_key', String.raw`\bsk-ant-[\w-]{20,}`, [any('sk-ant-')]),
  // OpenAI keys always hold a digit; the check keeps words like "sk-learn-..." intact.
  { kind: 'openai_key', pattern: /\bsk-[\w-]{20,}/g, needs: [any('sk-')], render: (m) => (/\d/.test(m[0]) ? mark('openai_key') : undefined) },
  whole('stripe_key', String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`, [any('k_live_', 'k_test_')]),
  whole('github_token', String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})`, [any('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_')]),
  whole('gitlab_token', String.raw`\bglpat-[\w-]{20,}`, [any('glpat-')]),
  {
    kind: 'slack_webhook',
    pattern: /(https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[\w/+-]{8,}/gi,
    needs: [anyIgnoringCase('hooks.slack.com/')],
    render: (m) => `${group(m, 1)}${mark('slack_webhook')}`,
  },
  whole('slack_token', String.raw`\b(?:xox[abposr]|xapp)-[\w-]{10,}`, [any('xox', 'xapp-')]),
  whole('google_api_key', String.raw`\bAIza[\w-]{30,}`, [any('AIza')]),
  whole('npm_token', String.raw`\bnpm_[A-Za-z0-9]{30,}`, [any('npm_')]),
  whole('aws_access_key', String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, [any('AKIA', 'ASIA')]),
  whole('sendgrid_key', String.raw`\bSG\.[\w-]{16,}\.[\w-]{16,}`, [any('SG.')]),
  whole('huggingface_token', String.raw`\bhf_[A-Za-z0-9]{30,}`, [any('hf_')]),
  {
    // The scheme word is kept for the reader; a lone scheme word is never taken for the credential.
    kind: 'authorization',
    pattern: new RegExp(
      String.raw`\b((?:proxy-)?authorization)(\\?["']?[ \t]*[:=][ \t]*${STRING_PREFIX}\\?["']?)(?:(${AUTH_SCHEMES})([ \t]+))?(?!(?:${AUTH_SCHEMES})\b)(?![=:>]*\[REDACTED:)[^\s"'\\,;]+`,
      'gi',
    ),
    needs: [anyIgnoringCase('authorization'), ASSIGNS],
    render: renderAuthorization,
  },
  {
    kind: 'bearer_token',
    pattern: /\b(bearer[ \t]+)(?!\[REDACTED:)[\w.~+/=-]{8,}/gi,
    needs: [anyIgnoringCase('bearer')],
    // Real bearer tokens hold a digit or read as random (a letters-only token of both cases); prose
    // ("bearer authentication") does neither.
    render: (m) => (/\d/.test(m[0]) || looksRandom(m[0].slice(group(m, 1).length)) ? `${group(m, 1)}${mark('bearer_token')}` : undefined),
  },
  {
    kind: 'url_password',
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@"'<>]*:)(?!\[REDACTED:)[^\s@/?#"'<>]+@/gi,
    needs: [any('://'), any('@')],
    render: (m) => `${group(m, 1)}${mark('url_password')}@`,
  },
  {
    kind: 'aws_secret_key',
    pattern: new RegExp(String.raw`(?<![\w.-])([\w.-]+)${PAIR_SEP}\\?["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, 'g'),
    // The key must hold `secret` (both alternatives of the test below do) for a match to be replaced.
    needs: [anyIgnoringCase('secret'), ASSIGNS],
    render: (m) =>
      /aws.*secret|secret_?access_?key/i.test(group(m, 1))
        ? `${m[0].slice(0, m[0].length - group(m, 3).length)}${mark('aws_secret_key')}`
        : undefined,
    rescan: true,
  },
  { kind: 'password', pattern: new RegExp(PAIR_KEY + PAIR_SEP + QUOTED_VALUE, 'gi'), needs: PAIR_NEEDS, render: renderQuotedPair, rescan: true },
  { kind: 'password', pattern: new RegExp(PAIR_KEY + PAIR_SEP + BARE_VALUE, 'gi'), needs: PAIR_NEEDS, render: renderBarePair, rescan: true },
  {
    // Command-line flags: `--password hunter2`, `--token "abc"`.
    kind: 'password',
    pattern: new RegExp(String.raw`(?<![\w-])(--?[\w-]*?(?:passw(?:or)?d|secret|token|api[_-]?key))([ \t]+)(?!-)${BARE_VALUE}`, 'gi'),
    needs: FLAG_NEEDS,
    render: renderBarePair,
    rescan: true,
  },
  {
    kind: 'password',
    pattern: new RegExp(String.raw`(?<![\w-])(--?[\w-]*?(?:passw(?:or)?d|secret|token|api[_-]?key))([ \t]+)${QUOTED_VALUE}`, 'gi'),
    needs: FLAG_NEEDS,
    render: renderQuotedPair,
    rescan: true,
  },
  {
    // `curl -u user:pass`. All digits is `docker run -u 1000:1000`, a uid:gid, not a password.
    kind: 'password',
    pattern: /(?<![\w-])((?:-u|--user)(?:[ \t]+|=)["']?[^\s:"'@/=[\]]+:)(?!\[REDACTED:)([^\s"'@]+)/g,
    needs: [any('-u'), any(':')],
    render: (m) => (/^\d+$/.test(group(m, 2)) ? undefined : `${group(m, 1)}${mark('password')}`),
  },
  {
    kind: 'high_entropy',
    pattern: new RegExp(
      String.raw`(?<![\w.-])(?=[\w.-]*?(?:${ENTROPY_WORDS}))([\w.-]+)(\\?["']?[ \t]*${ASSIGN}[ \t]*\\?["']?)${ENTROPY_VALUE}`,
      'gi',
    ),
    needs: [anyIgnoringCase(...ENTROPY_WORDS.split('|')), ASSIGNS],
    render: renderEntropy,
    rescan: true,
  },
  {
    // "invalid token AbC123…": only when the word right before the value ends with a key-like name.
    kind: 'high_entropy',
    pattern: new RegExp(String.raw`(?<![\w.-])([\w.-]*?(?:key|secret|token|credentials?|auth|passw(?:or)?d|pwd))([ \t]+)${ENTROPY_VALUE}`, 'gi'),
    needs: [anyIgnoringCase('key', 'secret', 'token', 'credential', 'auth', 'passw', 'pwd'), BLANK],
    render: renderEntropy,
    rescan: true,
  },
];

/** Applies one rule to the whole text. */
function applyRule(text: string, rule: SecretRule): string {
  const re = rule.pattern;
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const replacement = rule.render ? rule.render(m) : mark(rule.kind);
    if (replacement === undefined) {
      re.lastIndex = rule.rescan === true ? m.index + 1 : m.index + m[0].length;
      continue;
    }
    out += text.slice(last, m.index) + replacement;
    last = m.index + m[0].length;
    re.lastIndex = last;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** One shape as the prefilter's property test reads it: its needs, and the rule applied to a text whatever it holds. */
export interface ShapeDetector {
  readonly kind: string;
  readonly needs: Needs;
  readonly apply: (text: string) => string;
}

export function shapeDetectors(): readonly ShapeDetector[] {
  return RULES.map((rule) => ({ kind: rule.kind, needs: rule.needs, apply: (text: string) => applyRule(text, rule) }));
}

/** Each rule's needs, compiled once (see secret-prefilter.ts). */
const ADMITS: readonly Admits[] = RULES.map((rule) => compileNeeds(rule.needs));

export function redactOnce(text: string): string {
  let out = text;
  // A rule is tried only on a text that holds what it needs: one that does not cannot change it.
  for (let i = 0; i < RULES.length; i += 1) if (ADMITS[i]!(out)) out = applyRule(out, RULES[i]!);
  return out;
}

/**
 * A redaction can complete a shape that an earlier rule read differently: in `token: password::` the
 * token rule declines a word-like value, but once its tail is a marker it reads as a credential.
 * Repeating the passes until nothing changes makes idempotence hold by construction. Real text
 * settles in one or two passes; the cap only bounds hostile input.
 */
const MAX_PASSES = 4;

/** The regex shapes above, pass after pass until nothing changes (see MAX_PASSES). */
function redactShapes(text: string): string {
  if (!TRIGGER(text)) return text;
  let current = text;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const next = redactOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Replaces every secret in `text` with `[REDACTED:<kind>]`. Pure, deterministic and idempotent.
 * Invisible characters and ANSI codes go first (they split a token from the patterns); then the regex
 * shapes above; then the detectors of secrets.ts (the maintained rule set once loaded, vendor shapes,
 * generic ones) on the text and on its decoded views (normalise.ts), each finding replacing the run of
 * the text it came from.
 *
 * Every shape and detector is line-local except key blocks and key material wrapped over lines, so a
 * text without those is redacted line by line, each line memoised: tool output repeats lines (hints,
 * banners, stack frames) across thousands of messages that differ in one number.
 */
export function redact(text: string): string {
  if (SHORT_HEX.test(text)) return text;
  return TEXT_MEMO.get(text, redactWhole);
}

/**
 * A text of 1 to 23 lower-case hex digits (an input hash, a short digest: thousands of distinct ones a
 * night, each listed with its cluster) is returned as it is, unread: no shape or detector can change
 * it. By construction, each needs something such a text lacks:
 * - a character outside `[0-9a-f]`: every literal of TRIGGER (the shapes' gate) and of the rule set's,
 *   the vendor prefixes and the context gates, the credential formats and contexts (`:`, `$`, `{`, key
 *   words) holds a letter past `f`, an upper-case letter, `_`, `-`, `.`, `@` or `<`; the rule set's one
 *   BYPASS (gcp) reads only `.p12` and `.json` sources, and ours have no extension;
 * - both cases (the short random token, SHORT_TOKEN) or an upper-case prefix (Twilio's `AC`/`SK`, AWS);
 * - 24 characters or more: the random-looking token (24+), key material (48+), a seed phrase (24+), a
 *   base64 view (a run of 24+);
 * - an escape, percent, reference, non-ASCII or spread-out character for a decoded view, a line break for
 *   a wrapped one.
 * test/unit/short-hex.property.test.ts holds it to the full redactor (redactUnmemoised) on every length.
 */
const SHORT_HEX = /^[0-9a-f]{1,23}$/;

/** The redactor without its memo or shortcut: what the shortcut above is tested against. */
export function redactUnmemoised(text: string): string {
  return redactWhole(text);
}

function redactWhole(text: string): string {
  try {
    const stripped = stripInvisible(text);
    const redacted = redactStripped(stripped);
    return OVERRIDE.test(text) ? withoutOverrideRuns(text, redacted) : redacted;
  } catch (error) {
    // Fail closed: a text the detectors could not read to its end (a single run of megabytes overflows a
    // pattern's stack) may hold a secret anywhere, so none of it is kept. Only that kind of failure.
    if (!(error instanceof RangeError)) throw error;
    return '[REDACTED:unreadable]';
  }
}

/**
 * Whole texts, memoised as they are given: one failure's message is read by several consumers (its
 * fields checked against each other, its signature, its error line, its samples), and agents repeat
 * their messages and session names. A hit skips even the per-line work (invisible characters, the
 * line-locality checks, the split), which on a night of repeated failures is most of what is left.
 */
const TEXT_MEMO = new RedactionMemo<string>(4_096, 16_384, 1_000_000, (text, redacted) => text.length + redacted.length);

function redactStripped(stripped: string): string {
  if (!stripped.includes('\n')) return redactLine(stripped);
  if (!isLineLocal(stripped)) return redactText(stripped);
  const lines = stripped.split('\n');
  for (let i = 0; i < lines.length; i += 1) lines[i] = redactLine(lines[i]!);
  return lines.join('\n');
}

/** A bidi override (LRO, RLO): the characters after it, up to its PDF or the paragraph's end, are shown in a forced order. */
const OVERRIDE = /[\u202d\u202e]/;
const OVERRIDE_RUN = /[\u202d\u202e]([^\u202c\n\r\u0085\u2029\u001c-\u001e]*)/g;

/**
 * A run under a bidi override reads one way on screen (`git push --force`) and is stored the other
 * (`ecrof-- hsup tig`): no check can judge both as the same text, so neither is kept. The run is
 * replaced by `<*>`, a value the log held, after redaction (a secret split by an override is found
 * whole first, and then its redaction marker stands where the run was).
 */
function withoutOverrideRuns(raw: string, redacted: string): string {
  let out = redacted;
  for (const match of raw.matchAll(OVERRIDE_RUN)) {
    const run = stripInvisible(match[1]!).trim();
    // A run that reads the same both ways (one character, a palindrome) hides nothing.
    if (run === [...run].reverse().join('') || !out.includes(run)) continue;
    out = out.replaceAll(run, '<*>');
  }
  return out;
}

/**
 * Whether every secret in `text` lies within one line: no key block, no key material wrapped over
 * lines, no seed phrase or .netrc entry over lines. Then a line of it redacts as it would in the whole text (ingest redacts just the error line).
 */
export function isLineLocal(text: string): boolean {
  return !(text.includes('-----BEGIN') || text.includes('PRIVATE KEY')) && !wrapped(text) && !phraseAcrossLines(text) && !netrcAcrossLines(text) && !holdsColumn(text);
}

const LINE_MEMO = new RedactionMemo(20_000, 1_000, Number.POSITIVE_INFINITY);

function redactLine(line: string): string {
  return LINE_MEMO.get(line, redactText);
}

/** Split tokens are read in texts up to this length (as the decoded views are). */
const MAX_SPLIT_CHARS = 65_536;

function redactText(stripped: string): string {
  let current = redactShapes(stripped.length <= MAX_SPLIT_CHARS ? redactSplitTokens(stripped) : stripped);
  // A finding can complete a shape (and the reverse), as between the shapes' own passes; the shapes
  // settled already, so this loop is short, and bounded for hostile input.
  for (let pass = 0; pass < FINDING_PASSES; pass += 1) {
    const found = redactFindings(current, redactShapes);
    if (found === current) break;
    current = redactShapes(found);
  }
  return current;
}

const FINDING_PASSES = 3;
/** Keys whose whole string value is a secret, whatever it looks like (`{"password": "x"}`). */
const SECRET_KEY = /(?:passw(?:or)?d|pwd|passphrase|[_.-]pass|secret|token|api[_.-]?key|secret[_.-]?(?:access[_.-]?)?key)$/i;
const ENTROPY_KEY = new RegExp(ENTROPY_WORDS, 'i');

function redactValue(value: string, key: string | undefined): string {
  if (key !== undefined && value !== '' && !value.startsWith('[REDACTED:')) {
    if (SECRET_KEY.test(key) && isSecretPair(key, '=', value, true)) return mark(pairKind(key));
    if (ENTROPY_KEY.test(key) && looksRandom(value)) return mark('high_entropy');
  }
  return redact(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function redactNode(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return redactValue(value, key);
  if (Array.isArray(value)) return value.map((item: unknown) => redactNode(item, key));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactNode(v, k)]));
  }
  return value;
}

/**
 * Returns a copy of JSON-like data with every string redacted. Unlike `redact` on each string, it sees
 * the property name, so `{password: "x"}` loses its value even though "x" alone looks harmless.
 * Other objects (Date, Map, class instances) are returned as they are.
 */
export function redactDeep<T>(value: T): T {
  return redactNode(value, undefined) as T;
}
