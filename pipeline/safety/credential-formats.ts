import { any, anyIgnoringCase, compileNeeds, type Admits, type Needs } from './secret-prefilter.js';

/**
 * Credential-bearing file formats, read by their documented grammar rather than by how the secret looks:
 * a line of such a file that a tool prints back (a parse error, a permissions warning) carries its secret
 * whatever its alphabet, so a letters-only password is found as surely as a random token.
 * - `.pgpass` (PostgreSQL docs, "The Password File"): `hostname:port:database:username:password`, `*` for
 *   any field but the password, `\:` and `\\` escaped. The last field is the password.
 * - `.netrc` (GNU inetutils, curl): `machine <host>` (or `default`) then `login`, `password`, `account`
 *   tokens in any order, on one line or several. `password` and `account` carry secrets.
 * - Password hashes as htpasswd and `/etc/shadow` store them (Apache's htpasswd docs, crypt(5)):
 *   `$apr1$salt$hash`, `$1$`, `$5$`, `$6$`, bcrypt `$2y$10$…`, yescrypt `$y$…`, argon2 `$argon2id$v=…`,
 *   `{SHA}`/`{SSHA}` base64. A hash is not the password, but it is the password's equivalent offline.
 * Other formats are covered by the key-value shapes already (.npmrc `_authToken=`, docker `"auth":`, kube
 * config `token:`, cargo `token = "…"`, pip.conf URLs with `user:password@`).
 * Each detector declares what a text needs before it can match (secret-prefilter.ts's contract).
 */

export interface FormatDetector {
  readonly kind: string;
  readonly pattern: RegExp;
  /** The capture group that is the secret (the `d` flag gives its offsets). */
  readonly group: number;
  readonly needs: Needs;
  readonly accept?: (value: string, m: RegExpExecArray) => boolean;
}

/** A field of a .pgpass line: no blank, no unescaped `:`; `\` escapes the next character. */
const PG_FIELD = String.raw`(?:[^\s:\\"'<>]|\\.){1,128}`;

/**
 * A .pgpass line: a host (a name with a letter, an IPv4 address or `*`: not a number, so IPv6 groups
 * and MAC addresses are not hosts), a port (digits or `*`), database and user, then the password, which
 * ends the token (a sixth `:` field makes it something else: `0:0:0:0:0:0:0:0:2181`). The line must start the text or follow a blank, a
 * quote or `:` + blank (`… permissions should be u=rw: db:5432:app:user:pw`), never a path (`src/a.c:1:2:`).
 */
const PGPASS: FormatDetector = {
  kind: 'password',
  pattern: new RegExp(String.raw`(?<![^\s"'(\[,;=])(?:(?=[\w-]*[A-Za-z_-])[\w-]+(?:\.[\w-]+)*|\d{1,3}(?:\.\d{1,3}){3}|\*):(?:\d{1,5}|\*):${PG_FIELD}:${PG_FIELD}:(${PG_FIELD})(?=[\s"'<>,;)\]]|$)`, 'dg'),
  group: 1,
  // Every line holds its port: `:` then a digit or `*` (an error's `: ` does not).
  needs: [any(':0', ':1', ':2', ':3', ':4', ':5', ':6', ':7', ':8', ':9', ':*')],
  accept: pgpassPassword,
};

/**
 * A password, not a compiler's `file.c:12:5:warning:unused` (a severity word where the user would be) or a
 * timestamp's last number; a password of digits alone is left too (`12:30:45:100:200`, a time).
 */
function pgpassPassword(value: string, m: RegExpExecArray): boolean {
  if (/^\d+$/.test(value) || value.startsWith('[REDACTED:')) return false;
  const fields = m[0].slice(0, m[0].length - value.length - 1).split(':');
  const user = fields[3] ?? '';
  return !/^(?:error|warning|note|info|debug|fatal|trace|notice|hint)$/i.test(user);
}

/** `password` or `account` followed by its value, inside a .netrc entry (see netrcEntry). */
const NETRC: FormatDetector = {
  kind: 'password',
  pattern: /(?<![\w-])(?:password|account)[ \t]*\r?\n?[ \t]*(?![[]REDACTED:)([^\s"'<>]{1,200})/dg,
  group: 1,
  needs: [any('machine', 'default'), any('password', 'account')],
  accept: netrcEntry,
};

/** An entry begins with `machine <name>` or `default` within the 300 characters before the token. */
function netrcEntry(_value: string, m: RegExpExecArray): boolean {
  const before = m.input.slice(Math.max(0, m.index - 300), m.index);
  return /\bmachine[ \t\r\n]+\S+[ \t\r\n]/.test(before) || /(?:^|\s)default[ \t\r\n]+(?:login|password|account)\b/.test(before + m[0]);
}

/** Modular crypt format hashes and LDAP-style `{SCHEME}` hashes (htpasswd, shadow, slapd). */
const PASSWORD_HASH: FormatDetector = {
  kind: 'password_hash',
  pattern: new RegExp(
    [
      String.raw`\$(?:apr1|1|5|6|md5)\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{20,}`,
      String.raw`\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}`,
      String.raw`\$y\$[./A-Za-z0-9]{1,12}\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{20,}`,
      String.raw`\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}`,
      String.raw`\{(?:SHA|SSHA|SHA256|SSHA256|SHA512|SSHA512|SMD5|MD5|CRYPT|PBKDF2[\w-]*)\}[A-Za-z0-9+/.$=]{16,}`,
    ]
      .map((source) => `(${source})`)
      .join('|')
      .replace(/^/, '(?:')
      .concat(')'),
    'dgi',
  ),
  group: 0,
  needs: [anyIgnoringCase('$', '{')],
};

export const FORMAT_DETECTORS: readonly FormatDetector[] = [PGPASS, NETRC, PASSWORD_HASH];

const ADMITS: readonly Admits[] = FORMAT_DETECTORS.map((detector) => compileNeeds(detector.needs));

export interface FormatFinding {
  start: number;
  end: number;
  kind: string;
}

/** One detector applied to a text whatever it holds (the prefilter's property test reads it this way). */
export function runFormat(detector: FormatDetector, text: string, out: FormatFinding[]): void {
  const re = detector.pattern;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const value = m[detector.group];
    if (value === undefined || value === '') continue;
    if (detector.accept && !detector.accept(value, m)) continue;
    const start = detector.group === 0 ? m.index : (m as RegExpExecArray & { indices: [number, number][] }).indices[detector.group]![0];
    out.push({ start, end: start + value.length, kind: detector.kind });
  }
}

/** Every credential-file secret in `text`; a detector runs only on a text that holds what it needs. */
/** Whether some file format's detector may find a secret in `text` (its declared needs). */
export function formatMayMatch(text: string): boolean {
  return ADMITS.some((admits) => admits(text));
}

export function findFormatSecrets(text: string, out: FormatFinding[]): void {
  for (let i = 0; i < FORMAT_DETECTORS.length; i += 1) if (ADMITS[i]!(text)) runFormat(FORMAT_DETECTORS[i]!, text, out);
}

/**
 * Whether a .netrc entry may run over lines (`machine x` on one, `password y` on the next): such a text
 * is redacted whole, not line by line (redact.ts isLineLocal), so the entry's start is seen.
 */
export function netrcAcrossLines(text: string): boolean {
  return (text.includes('machine') || text.includes('default')) && /\b(?:machine|default)\b[\s\S]*\n[\s\S]*\b(?:password|account)\b/.test(text);
}
