import { isProseWord } from './prose-words.js';
import { any, anyIgnoringCase, compileAnyOf, compileNeeds, type Admits, type Needs } from './secret-prefilter.js';

/**
 * Credential contexts whose value may be letters only: the syntax around the value says it is a
 * credential, so it is redacted whatever it looks like (no digit, no randomness needed).
 * - SQL's account statements (MySQL, MariaDB, Oracle, PostgreSQL, SQL Server, Snowflake docs): `IDENTIFIED
 *   [WITH <plugin>] BY [PASSWORD] <v>` (quoted, or bare as Oracle takes it), `PASSWORD [=] [N]'<v>'`,
 *   `PASSWORD('<v>')`, `SET PASSWORD FOR <account> = '<v>'`.
 * - PowerShell's `ConvertTo-SecureString <v> -AsPlainText`: the plain text is its first positional
 *   argument or `-String`'s, whatever switches stand before it.
 * - A password prompt and the answer typed after it, as a captured terminal shows them: `[sudo] password
 *   for u: <v>`, `Password for 'https://u@host': <v>`, `Enter passphrase for key '/k': <v>`, `Enter PEM
 *   pass phrase: <v>`, `Password (again): <v>`. A reply that is prose ("Sorry, try again.") is kept.
 * - Name/value pairs (HAR headers and params, Kubernetes and ECS environments, CloudFormation parameters,
 *   Postman variables): an object whose name member names a credential (`{"name":"x-api-key", …}`) has its
 *   value member (`"value":"…"`) redacted, in either order, at any nesting (each innermost object is read).
 * Each detector declares what a text needs before it can match (secret-prefilter.ts's contract); the
 * JSON-escaped forms are read in the decoded view (normalise.ts), like every detector.
 */

export interface ContextDetector {
  readonly kind: string;
  readonly pattern: RegExp;
  /** The capture groups that may hold the value (a quoted and a bare form): the first one matched is it. */
  readonly groups: readonly number[];
  readonly needs: Needs;
  readonly accept?: (value: string, m: RegExpExecArray) => boolean;
}

export interface ContextFinding {
  start: number;
  end: number;
  kind: string;
}

/** A value that is a redaction already, a reference to a variable or a template, or a mask: nothing to hide. */
function notAValue(value: string): boolean {
  return value.startsWith('[REDACTED:') || /^(?:\$\{?[\w.:]+\}?|\{\{[^}]*\}\}|%\w+%|\*+|<[\w -]+>)$/.test(value.trim()) || value.trim() === '';
}

/** A bare value: a credential, not the next word of a sentence (`identified by the token`). */
const bareValue = (value: string): boolean => !notAValue(value) && !isProseWord(value);

/** A quoted SQL value (either quote), or a bare one: groups 2 and 3. */
const SQL_VALUE = String.raw`(?:(['"])((?:(?!\1)[^\n]){1,200})\1|([^\s'";,()]{1,200}))`;
const SQL_QUOTED = String.raw`(['"])((?:(?!\1)[^\n]){1,200})\1`;

/** A bare value is a password only inside an account statement ("a user identified by email" is prose). */
const SQL_STATEMENT = /\b(?:CREATE|ALTER)[ \t]+(?:USER|ROLE|LOGIN)\b|\bGRANT\b/i;

const SQL_IDENTIFIED: ContextDetector = {
  kind: 'password',
  pattern: new RegExp(String.raw`\bIDENTIFIED(?:[ \t]+WITH[ \t]+["'\x60]?[\w-]{1,64}["'\x60]?)?[ \t]+BY(?:[ \t]+(?:PASSWORD|VALUES)(?![\w-]))?[ \t]+${SQL_VALUE}`, 'dgi'),
  groups: [2, 3],
  needs: [anyIgnoringCase('identified')],
  accept: (value, m) => (m[2] !== undefined ? !notAValue(value) : bareValue(value) && SQL_STATEMENT.test(m.input.slice(Math.max(0, m.index - 200), m.index))),
};

/**
 * `PASSWORD '<v>'`, `PASSWORD = N'<v>'`, `PASSWORD('<v>')`, `OLD_PASSWORD = N'<v>'`, and `SET PASSWORD FOR <account> = '<v>'`:
 * quoted values only (a bare word after "password" is prose as often as not).
 */
const SQL_PASSWORD: ContextDetector = {
  kind: 'password',
  pattern: new RegExp(String.raw`(?<![A-Za-z])PASSWORD(?:[ \t]+FOR[ \t]+[^\s=]{1,200}?)?(?:[ \t]*=[ \t]*(?:PASSWORD[ \t]*\()?|[ \t]*\(|[ \t]+)[ \t]*N?${SQL_QUOTED}`, 'dgi'),
  groups: [2],
  needs: [anyIgnoringCase('password')],
  accept: (value) => !notAValue(value),
};

/** `ConvertTo-SecureString [-AsPlainText] [-Force] [-String] <v>`: the switches may stand before the value. */
const SECURE_STRING: ContextDetector = {
  kind: 'password',
  pattern: /\bConvertTo-SecureString\b(?:[ \t]+-(?:AsPlainText|Force)\b(?::\$?\w+)?)*[ \t]+(?:-String[ \t]+)?(?:(['"])((?:(?!\1)[^\n]){1,200})\1|(?![-$(@:])([^\s'"|;(){}]{1,200}))/dgi,
  groups: [2, 3],
  needs: [anyIgnoringCase('securestring')],
  accept: (value) => !notAValue(value),
};

/** What a prompt names after `for`: a quoted thing (a URL, a key's path) or a bare word, up to three of them. */
const PROMPT_OBJECT = String.raw`(?:'[^'\n]{1,200}'|"[^"\n]{1,200}"|[^\s:'"]{1,100})`;
/** Replies a terminal shows after a prompt that are not what was typed. */
const PROMPT_REPLIES = /^(?:sorry|permission|access|login|remote|fatal|warning|timeout|timed|aborted|cancelled|canceled|interrupted)$/i;

const PROMPT: ContextDetector = {
  kind: 'password',
  pattern: new RegExp(
    String.raw`(?<![\w-])(?:pass(?:word|phrase|wd|code)|pass[ \t]+phrase)(?:,[ \t]+try[ \t]+again)?(?:[ \t]+for[ \t]+${PROMPT_OBJECT}(?:[ \t]+${PROMPT_OBJECT}){0,2})?(?:[ \t]*\([^()\n]{1,60}\))?[ \t]*:[ \t]+(['"]?)([^\s'"]{1,200})\1`,
    'dgi',
  ),
  groups: [2],
  needs: [anyIgnoringCase('pass'), any(':')],
  accept: (value) => bareValue(value) && !value.endsWith(':') && !PROMPT_REPLIES.test(value.replace(/[.,;!?]+$/, '')),
};

/** An innermost object (`{…}` holding no brace), on one line: each is read on its own, so nesting does not matter. */
const OBJECT = /\{([^{}\n]{1,2000})\}/dg;
/** A member of it: a key (quoted or not) and a value (a string in either quote, or a bare run up to `,` or `}`). */
const MEMBER = /(["']?)([A-Za-z_][\w-]{0,64})\1[ \t]*:[ \t]*(?:"((?:[^"\\]|\\.){0,2000})"|'((?:[^'\\]|\\.){0,2000})'|([^,\s][^,]{0,2000}?))[ \t]*(?=,|$)/dg;
/** Members that name the pair and members that hold its value. */
const NAME_KEY = /^(?:name|key|id|field|header|variable|param|parameter|parameter_?key|label)$/i;
const VALUE_KEY = /^(?:parameter_?)?value$/i;
/** Words of a name that make it a credential (`x-api-key`, `DB_PASSWORD`, `X-Auth-Token`, `apiKey`, `client_secret`). */
const CREDENTIAL_WORDS = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase', 'passcode', 'secret', 'token', 'apikey', 'authorization', 'auth', 'cookie', 'credential', 'credentials', 'privatekey', 'accesskey']);
const KEY_QUALIFIERS = new Set(['api', 'private', 'access', 'signing', 'encryption', 'master']);

/** Words after a credential word that make the name one about the credential, not it (`token_count`, `password_policy`). */
const ABOUT_WORDS = new Set(['count', 'counts', 'limit', 'length', 'len', 'size', 'type', 'kind', 'expiry', 'expires', 'expiration', 'ttl', 'url', 'uri', 'endpoint', 'name', 'id', 'path', 'file', 'filename', 'env', 'policy', 'hint', 'prompt', 'required', 'enabled', 'min', 'max', 'format', 'usage', 'used']);

/** Whether a name names a credential: one of its words (split at separators and case changes) does, and no word after it says it is about it. */
export function namesCredential(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  return words.some((word, i) => (CREDENTIAL_WORDS.has(word) || (word === 'key' && KEY_QUALIFIERS.has(words[i - 1] ?? ''))) && !words.slice(i + 1).some((w) => ABOUT_WORDS.has(w)));
}

/** Needs: an object and a value member. */
const PAIR_NEEDS: Needs = [any('{'), anyIgnoringCase('value')];

/** The value members of each object whose name member names a credential. */
function runPairs(text: string, out: ContextFinding[]): void {
  OBJECT.lastIndex = 0;
  for (let o = OBJECT.exec(text); o !== null; o = OBJECT.exec(text)) {
    const body = o[1]!;
    const offset = (o as RegExpExecArray & { indices: [number, number][] }).indices[1]![0];
    let named = false;
    const values: [number, number][] = [];
    MEMBER.lastIndex = 0;
    for (let m = MEMBER.exec(body); m !== null; m = MEMBER.exec(body)) {
      const group = m[3] !== undefined ? 3 : m[4] !== undefined ? 4 : 5;
      const value = m[group] ?? '';
      const key = m[2]!;
      if (NAME_KEY.test(key) && namesCredential(value)) named = true;
      else if (VALUE_KEY.test(key) && !notAValue(value)) {
        const [start, end] = (m as RegExpExecArray & { indices: [number, number][] }).indices[group]!;
        values.push([offset + start, offset + end]);
      }
      // A member's match ends before its `,`: step over it.
      MEMBER.lastIndex = m.index + m[0].length + 1;
    }
    if (named) for (const [start, end] of values) out.push({ start, end, kind: 'password' });
  }
}

/**
 * Words after a credential word that make a blank-separated key one about the credential, beyond
 * ABOUT_WORDS (`authMethod password`, `tokenStore vault`, `secretKeyRef db`): a key=value line would say
 * the same, but without the `=` only the key tells a setting from a sentence.
 */
const BLANK_ABOUT_WORDS = new Set(['method', 'methods', 'mode', 'provider', 'providers', 'scheme', 'store', 'manager', 'helper', 'source', 'ref', 'refs', 'reference', 'plugin', 'strategy', 'header', 'field', 'fields', 'prefix', 'suffix', 'attempts', 'retries', 'timeout', 'age', 'version', 'algorithm', 'algo', 'hash', 'cache', 'backend', 'service', 'server', 'command', 'cmd', 'var', 'variable', 'dir', 'directory', 'location', 'status', 'state', 'error', 'errors', 'check', 'changed', 'reset', 'rotation']);

/**
 * A key that names a credential as a setting does, never as a sentence's word: two words or more
 * (`mavenPassword`, `db.password`, `DB_PASSWORD`, `client-secret`), one a credential word, none after it
 * about it. A lone `password` or `Token` is the subject of prose ("password reset link sent").
 */
function settingKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  if (words.length < 2 || !namesCredential(key)) return false;
  const at = words.findIndex((word, i) => CREDENTIAL_WORDS.has(word) || (word === 'key' && KEY_QUALIFIERS.has(words[i - 1] ?? '')));
  return !words.slice(at + 1).some((word) => BLANK_ABOUT_WORDS.has(word) || ABOUT_WORDS.has(word));
}

/** A value of a blank-separated pair: not prose, not a credential word, not a path, a number of a few digits or a placeholder. */
function blankPairValue(value: string): boolean {
  if (!bareValue(value) || namesCredential(value)) return false;
  if (/^(?:[~.]{0,2}\/|[a-z][\w+.-]*:\/\/)/i.test(value) || /^[\w./-]+\.(?:properties|ya?ml|json|xml|conf|cfg|ini|env|toml|java|kt|js|ts|py|rb|go)(?::\d+)*$/i.test(value)) return false;
  return !/^\d{1,5}$/.test(value) && !/^(?:true|false|yes|no|on|off|null|nil|none|undefined|default|changeme|\.\.\.|\?+)$/i.test(value);
}

/**
 * A properties, INI or environment line that separates its key from its value by blanks (Java
 * `.properties` allow a blank as well as `=` or `:`; csh's `setenv KEY value`; a Dockerfile's legacy
 * `ENV KEY value`): `mavenPassword v`. Read as a line, not as a sentence: the pair starts a line (after
 * its indentation), follows the `: ` of a log prefix (`gradle.properties: line 4: mavenPassword v`), a
 * quote, or `setenv`/`ENV`; the key is a setting's (settingKey); the value is one token that ends the
 * line (or its quote), and not prose ("userPassword must be …", "apiToken expired").
 */
export const BLANK_PAIR: ContextDetector = {
  kind: 'password',
  pattern: new RegExp(
    String.raw`(?:^|(?<=[\n:'"])|(?<=(?:^|[\s:])(?:setenv|ENV|set[ \t]+-[gxU]{1,3}))[ \t])[ \t]*([A-Za-z_][\w.-]{0,100}[A-Za-z0-9])[ \t]+(?:(['"])([^'"\n]{1,200})\2|([^\s'"]{1,200}))(?=[ \t]*(?:\r?\n|$|['"]))`,
    'dg',
  ),
  groups: [3, 4],
  needs: [anyIgnoringCase('pass', 'pwd', 'secret', 'token', 'auth', 'cookie', 'credential', 'key')],
  // A quoted value is one whatever its words (`db.password "correct horse"`); a bare one must not read as prose.
  accept: (value, m) => settingKey(m[1]!) && (m[3] !== undefined ? !notAValue(value) : blankPairValue(value)),
};

export const CONTEXT_DETECTORS: readonly ContextDetector[] = [SQL_IDENTIFIED, SQL_PASSWORD, SECURE_STRING, PROMPT, BLANK_PAIR];
const ADMITS: readonly Admits[] = CONTEXT_DETECTORS.map((detector) => compileNeeds(detector.needs));
const ADMITS_PAIRS = compileNeeds(PAIR_NEEDS);
/** One scan for the group (most texts hold none of the words): then each detector's own needs. */
const ADMITS_ANY = compileAnyOf([...CONTEXT_DETECTORS.map((detector) => detector.needs), PAIR_NEEDS]);

/** One detector applied to a text whatever it holds (the needs test reads it this way). */
export function runContext(detector: ContextDetector, text: string, out: ContextFinding[]): void {
  const re = detector.pattern;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const group = detector.groups.find((g) => m[g] !== undefined);
    if (group === undefined) continue;
    const value = m[group]!;
    if (detector.accept && !detector.accept(value, m)) continue;
    const start = (m as RegExpExecArray & { indices: [number, number][] }).indices[group]![0];
    out.push({ start, end: start + value.length, kind: detector.kind });
  }
}

/** The name/value pairs as a detector with needs, for the same test. */
export const PAIR_DETECTOR = { needs: PAIR_NEEDS, run: runPairs } as const;

/** Whether some detector here may find a secret in `text` (what it declares it needs). */
export function contextMayMatch(text: string): boolean {
  return ADMITS_ANY(text);
}

/** Every credential-context secret in `text`; a detector runs only on a text that holds what it needs. */
export function findContextSecrets(text: string, out: ContextFinding[]): void {
  if (!ADMITS_ANY(text)) return;
  for (let i = 0; i < CONTEXT_DETECTORS.length; i += 1) if (ADMITS[i]!(text)) runContext(CONTEXT_DETECTORS[i]!, text, out);
  if (ADMITS_PAIRS(text)) runPairs(text, out);
}
