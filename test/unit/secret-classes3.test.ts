import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_DETECTORS, PAIR_DETECTOR, runContext, type ContextFinding } from '../../pipeline/safety/credential-contexts.js';
import { identifierProblem } from '../../pipeline/safety/identifier.js';
import { findKeywordPhrases } from '../../pipeline/safety/mnemonic.js';
import { compileNeeds } from '../../pipeline/safety/secret-prefilter.js';
import { redact } from '../../pipeline/safety/redact.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';
import { leaks } from '../helpers/secret-leak.js';

/**
 * The secret classes the second outside corpus still got through (issue 14 items 1-2, third pass), each
 * written as a class before its defence and measured on many variants: credential contexts whose value
 * is letters only (SQL, PowerShell, a password prompt and its answer, JSON name/value pairs), octal and
 * CSS escapes, identifiers that read as a random mixed-case run, and passphrase words after a seed
 * keyword. Each test lists the variants that leak, so a failure says how many and which.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SEED = Number(process.env.SC3_SEED ?? 20261128);
/** Letters-only values of both cases (no digit for a randomness rule to see), drawn with a fixed seed. */
const lettersOnly = (min: number, max: number) =>
  fc.array(fc.constantFrom(...LETTERS), { minLength: min, maxLength: max }).map((a) => a.join('')).filter((v) => /[a-z]/.test(v) && /[A-Z]/.test(v));
const VALUES = fc.sample(lettersOnly(10, 28), { numRuns: 6, seed: SEED });
/** And ones a person types: lower-case words run together. */
const TYPED = ['hunterbluesky', 'correcthorsebattery', 'sunflowermorning'];


/** Whether `length` characters in a row of `value` appear in `out` at all. */
function appears(out: string, value: string, length = 8): boolean {
  for (let i = 0; i + length <= value.length; i += 1) if (out.includes(value.slice(i, i + length))) return true;
  return false;
}

/** The templates (`{v}` stands for the value) for which some value survives redaction, with what came out. */
function leaking(templates: readonly string[], values: readonly string[] = [...VALUES, ...TYPED]): string[] {
  const out: string[] = [];
  for (const template of templates) {
    for (const value of values) {
      const text = template.replaceAll('{v}', value);
      const redacted = redact(text);
      if (leaks(redacted, value, text)) {
        out.push(`${text} → ${redacted}`);
        break;
      }
    }
  }
  return out;
}

/** Templates whose whole text must come out as it went in (ordinary error text). */
const changed = (lines: readonly string[]): string[] => lines.filter((line) => redact(line) !== line).map((line) => `${line} → ${redact(line)}`);

describe('credential contexts whose value is letters only', () => {
  const SQL = [
    "ERROR 1396 (HY000): Operation CREATE USER failed for app: CREATE USER app IDENTIFIED BY '{v}'",
    'CREATE USER \'app\'@\'%\' IDENTIFIED BY "{v}";',
    'ORA-01935: missing user or role name: CREATE USER scott IDENTIFIED BY {v} DEFAULT TABLESPACE users',
    'ALTER USER app IDENTIFIED BY {v};',
    "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{v}'",
    "ALTER USER 'root'@'localhost' IDENTIFIED WITH 'caching_sha2_password' BY '{v}';",
    "GRANT ALL PRIVILEGES ON db.* TO 'u'@'%' IDENTIFIED BY '{v}' WITH GRANT OPTION",
    "SET PASSWORD FOR 'app'@'%' = PASSWORD('{v}')",
    "ERROR 1064 (42000): SET PASSWORD FOR 'app'@'%' = '{v}'",
    "SET PASSWORD = '{v}'",
    "ERROR:  syntax error at or near \"PASSWORD\" LINE 1: CREATE ROLE app LOGIN PASSWORD '{v}'",
    "ALTER ROLE app WITH ENCRYPTED PASSWORD '{v}'",
    "Msg 15118, Level 16: Password validation failed. CREATE LOGIN app WITH PASSWORD = '{v}'",
    "ALTER LOGIN sa WITH PASSWORD = N'{v}' OLD_PASSWORD = N'{v}'",
    "CREATE MASTER KEY ENCRYPTION BY PASSWORD = '{v}';",
    "sqlalchemy.exc.ProgrammingError: (psycopg2.errors.SyntaxError) CREATE USER \"app\" PASSWORD '{v}' VALID UNTIL 'infinity'",
    "create user app identified by '{v}'",
    "mysql> CREATE USER bob@localhost IDENTIFIED BY '{v}' REQUIRE SSL;",
    'CREATE USER app IDENTIFIED BY "{v}" PASSWORD EXPIRE',
    "snowflake.connector.errors.ProgrammingError: ALTER USER app SET PASSWORD = '{v}' MUST_CHANGE_PASSWORD = FALSE",
    "CREATE USER app IDENTIFIED BY PASSWORD '{v}'",
  ];
  const POWERSHELL = [
    "ConvertTo-SecureString : Cannot bind parameter. At line:1 char:1 + ConvertTo-SecureString '{v}' -AsPlainText -Force",
    'ConvertTo-SecureString "{v}" -AsPlainText -Force',
    "ConvertTo-SecureString -String '{v}' -AsPlainText -Force",
    'ConvertTo-SecureString -AsPlainText -Force -String "{v}"',
    'ConvertTo-SecureString -String {v} -AsPlainText',
    "convertto-securestring '{v}' -asplaintext -force",
    "New-Object System.Management.Automation.PSCredential('admin', (ConvertTo-SecureString '{v}' -AsPlainText -Force))",
    "ConvertTo-SecureString -AsPlainText '{v}' -Force",
    "$cred = ConvertTo-SecureString -AsPlainText -String '{v}' -Force; Connect-AzAccount failed",
    'ConvertTo-SecureString -Force -AsPlainText {v}',
  ];
  const PROMPTS = [
    'Permission denied, please try again. [sudo] password for deploy: {v}',
    "Password for 'https://ci@github.com': {v}",
    "Enter passphrase for key '/home/u/.ssh/id_ed25519': {v}",
    "Enter passphrase for key \"/root/.ssh/id_rsa\": {v}",
    'Enter PEM pass phrase: {v}',
    'Enter pass phrase for /etc/ssl/private/server.key: {v}',
    'Password for user postgres: {v}',
    'Enter passphrase (empty for no passphrase): {v}',
    'Password (again): {v}',
    "Enter host password for user 'ci': {v}",
    'Sorry, try again. [sudo] password for root: {v}',
    'sudo: a password is required [sudo] password for ubuntu: {v}',
    "Password for 'https://x-access-token@github.com': {v} remote: Invalid username or password.",
    'Enter password for user admin: {v}',
    'Enter passphrase for /home/ci/.gnupg/key.asc: {v}',
    'Enter passphrase for key "deploy": {v}',
    'Enter Auth Password for root: {v}',
    'Password for ci@EXAMPLE.COM: {v}',
    "Enter passphrase for key '/k': {v}",
    'Bad passphrase, try again for /root/.ssh/id_rsa: {v}',
  ];
  const PAIRS = [
    'error: replay failed with 403: {"name":"x-api-key","value":"{v}"}',
    '{"name":"Authorization","value":"{v}"}',
    '{"key":"password","value":"{v}"}',
    '{"value":"{v}","name":"X-Auth-Token"}',
    'error: {"env":[{"name": "DB_PASSWORD", "value": "{v}"}]}',
    'An error occurred (ClientException): {"environment":[{"Name":"GITHUB_TOKEN","Value":"{v}"}]}',
    'ValidationError: [{"ParameterKey":"DbPassword","ParameterValue":"{v}"}]',
    '{"name":"Proxy-Authorization","value":"{v}"}',
    'har: {"request":{"headers":[{"name":"accept","value":"*/*"},{"name":"x-api-key","value":"{v}"}]}}',
    '{"postData":{"params":[{"name":"client_secret","value":"{v}"}]}}',
    '{"key":"apiKey","value":"{v}","type":"string"}',
    '{"key":"access_token","value":"{v}","enabled":true}',
    '[{"Key":"Password","Value":"{v}"}]',
    '{"name":"password","type":"password","value":"{v}"}',
    '{"name":"Authorization","comment":"","value":"{v}"}',
    '{ "name" : "api_key" , "value" : "{v}" }',
    'error: body "{\\"name\\":\\"x-api-key\\",\\"value\\":\\"{v}\\"}"',
    '{name: DB_PASSWORD, value: {v}}',
    "{'name': 'secret', 'value': '{v}'}",
    '{"name":"X-Amz-Security-Token","value":"{v}"}',
    '{"key":"SECRET_KEY_BASE","value":"{v}"}',
    '{"headers":[{"name":"Cookie","value":"{v}"}]}',
  ];

  it(`SQL: IDENTIFIED BY, PASSWORD '…', WITH PASSWORD = (${SQL.length} variants)`, () => {
    const leaked = leaking(SQL);
    expect(leaked, `${leaked.length} of ${SQL.length} leak`).toEqual([]);
  });
  it(`PowerShell: ConvertTo-SecureString's plain text (${POWERSHELL.length} variants)`, () => {
    const leaked = leaking(POWERSHELL);
    expect(leaked, `${leaked.length} of ${POWERSHELL.length} leak`).toEqual([]);
  });
  it(`a password prompt followed by its answer (${PROMPTS.length} variants)`, () => {
    const leaked = leaking(PROMPTS);
    expect(leaked, `${leaked.length} of ${PROMPTS.length} leak`).toEqual([]);
  });
  it(`JSON and HAR name/value pairs naming a credential (${PAIRS.length} variants)`, () => {
    const leaked = leaking(PAIRS);
    expect(leaked, `${leaked.length} of ${PAIRS.length} leak`).toEqual([]);
  });

  it('keeps ordinary text about users, passwords and name/value pairs', () => {
    expect(changed([
      'FATAL:  password authentication failed for user "postgres"',
      'Failed password for invalid user admin from 10.0.0.5 port 22 ssh2',
      'Accepted password for root from 10.0.0.5 port 4242 ssh2',
      'sudo: 3 incorrect password attempts',
      "Password for 'https://ci@github.com': remote: Invalid username or password.",
      '[sudo] password for deploy: Sorry, try again.',
      'the user identified by the token was not found',
      'error: a user identified by email is required',
      '{"name":"max_tokens","value":"4096"}',
      '{"name":"session_token_count","value":"3"}',
      '{"key":"password_policy","value":"strict"}',
      '{"name":"token_type","value":"Bearer"}',
      '{"name":"author","value":"Jane Doe"}',
      '{"name":"content-type","value":"application/json"}',
      '{"name":"password","value":"${DB_PASSWORD}"}',
      'ConvertTo-SecureString : Cannot bind argument to parameter String because it is null.',
      'ConvertTo-SecureString -String $env:PW -AsPlainText -Force',
      'Enter passphrase (empty for no passphrase):',
    ])).toEqual([]);
  });
});

describe('octal and CSS escapes are decoded views', () => {
  const TOKENS: Record<string, (v: string) => string> = {
    github: (v) => `ghp_${v}${v}`.slice(0, 40),
    gitlab: (v) => `glpat-${v}${v}`.slice(0, 26),
    slack: (v) => `xoxb-${v}-${v}`,
    anthropic: (v) => `sk-ant-api03-${v}${v}`,
    npm: (v) => `npm_${v}${v}`.slice(0, 40),
    password: (v) => `password=${v}`,
    apiKey: (v) => `api_key: "${v}"`,
  };
  const octal = (s: string) => [...Buffer.from(s)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
  const octal4 = (s: string) => [...Buffer.from(s)].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join('');
  const css = (s: string) => [...s].map((c) => `\\${c.charCodeAt(0).toString(16)} `).join('');
  const css6 = (s: string) => [...s].map((c) => `\\${c.charCodeAt(0).toString(16).padStart(6, '0')}`).join('');
  const cssUpper = (s: string) => [...s].map((c) => `\\${c.charCodeAt(0).toString(16).toUpperCase()} `).join('');
  /** Each encoding: how it writes a string, and the frame it is printed in (`{v}`). */
  const ENCODINGS: Record<string, [(s: string) => string, string]> = {
    'octal in a string literal': [octal, 'error: bad string literal "{v}"'],
    'octal after printf': [octal, "printf: '{v}': invalid format"],
    'octal \\0ooo (echo -e)': [octal4, "echo -e '{v}' failed"],
    'octal, JSON-escaped': [(s) => octal(s).replaceAll('\\', '\\\\'), '{"error":"bad literal {v}"}'],
    'CSS escapes with a blank after each': [css, 'CssSyntaxError: Unknown word content: "{v}"'],
    'CSS escapes of six digits': [css6, 'CssSyntaxError: Unknown word content: "{v}"'],
    'CSS escapes in upper case': [cssUpper, 'postcss: content: "{v}"'],
  };

  const cases: [name: string, text: string, value: string, escapedValue: string][] = [];
  for (const [encoding, [encode, frame]] of Object.entries(ENCODINGS)) {
    for (const [shape, token] of Object.entries(TOKENS)) {
      const value = VALUES[cases.length % VALUES.length]!;
      cases.push([`${encoding}: ${shape}`, frame.replace('{v}', encode(token(value))), value, encode(value)]);
    }
  }

  it(`a token or a credential context, escaped (${cases.length} variants): no 8 characters of its value, decoded or escaped, are left`, () => {
    // The value as written in the text goes too: the finding in the decoded view redacts the escaped run.
    // The plain value is not in the text (only its escapes are): none of it may appear in what comes out, and no
    // 24 characters of its escaped form (6 escapes or more: the key before it, `password=`, is kept).
    const leaked = cases.filter(([, text, value, escaped]) => appears(redact(text), value) || appears(redact(text), escaped, 24));
    expect(leaked.map(([name, text]) => `${name}: ${text} → ${redact(text)}`), `${leaked.length} of ${cases.length} leak`).toEqual([]);
  });

  it('keeps escapes that hide nothing', () => {
    expect(changed([
      String.raw`printf: \101\102\103: not a number`,
      String.raw`content: "\201C"; font-family: "\5FAE\8F6F\96C5\9ED1"`,
      String.raw`error: invalid escape \d in pattern C:\Users\dev\123\file`,
      String.raw`SyntaxError: octal escape sequences are not allowed: "\033[0m"`,
    ])).toEqual([]);
  });
});

describe('identifiers that read as a random mixed-case run', () => {
  const RANDOM = fc.sample(lettersOnly(20, 40), { numRuns: 40, seed: SEED });
  it(`a letters-only secret as error_category or tool_name, alone or as a part (${RANDOM.length * 2} variants)`, () => {
    const passed: string[] = [];
    RANDOM.forEach((value, i) => {
      const category = [value, `auth_${value}`, `${value}_error`, `http.${value}`][i % 4]!;
      const tool = [value, `mcp__${value}__call`, `Bash-${value}`, `git_${value}`][i % 4]!;
      if (identifierProblem('error_category', category) === null) passed.push(`error_category ${category}`);
      if (identifierProblem('tool_name', tool) === null) passed.push(`tool_name ${tool}`);
    });
    // A random run of 20 or more letters reads as words (CamelCase of pronounceable parts) about once in 15 (measured
    // on 10,000 draws: 1.5% at 30 letters, 7% at 20): the bound is what the rule promises, not a tuned result.
    expect(passed.length, `${passed.length} of ${RANDOM.length * 2} pass:\n${passed.join("\n")}`).toBeLessThanOrEqual(RANDOM.length * 2 * 0.1);
  });

  it('accepts the real tool names and categories (shared/data, Claude Code, MCP servers) and CamelCase names', () => {
    const tools = [
      'Bash', 'Edit', 'ExitPlanMode', 'Glob', 'Grep', 'LS', 'Read', 'Task', 'TaskOutput', 'TodoWrite', 'WebFetch', 'WebSearch', 'Write', 'bash',
      'format_error', 'git_commit', 'git_push', 'mcp__attio__advanced-search', 'mcp__attio__batch-operations', 'mcp__attio__create-record',
      'mcp__attio__search-by-relationship', 'mcp__attio__get-record-details', 'mcp__github__get_issue_comments', 'mcp__github__list_pull_requests',
      'npm_test', 'NotebookEdit', 'MultiEdit', 'KillShell', 'BashOutput', 'SlashCommand', 'AskUserQuestion', 'ListMcpResourcesTool',
      'ReadMcpResourceTool', 'mcp__playwright__browser_take_screenshot', 'mcp__sequentialThinking__sequentialthinking', 'XMLHttpRequest',
      'getElementById', 'processInParallel', 'searchByRelationship', 'isWiredHeadsetOn', 'mHeadsUpExistenceChangedRunnable', 'MRClientProtocolPB',
      'RMContainerRequestor', 'kCFErrorDomainCFNetwork', 'CUDAOutOfMemoryError', 'SSLCertVerificationError', 'DynamoDBStreamsClient',
    ];
    const categories = [
      'api_error', 'auth_error', 'benign', 'build_error', 'dependency_missing', 'edit_mismatch', 'format_error', 'git_error', 'hook_failed',
      'http_error', 'invalid_regex', 'is_directory', 'network_error', 'not_found', 'not_read_first', 'permission_denied', 'push_rejected',
      'runtime_error', 'syntax_error', 'test_failure', 'timeout', 'too_large', 'uncategorized', 'validation_error', 'ModuleNotFoundError',
      'UnicodeDecodeError', 'ConnectionRefusedError', 'NoRouteToHostException', 'HTTPConnectionPool', 'JSONDecodeError', 'ZeroDivisionError',
    ];
    const refused = [...tools.map((t) => ['tool_name', t] as const), ...categories.map((c) => ['error_category', c] as const)]
      .filter(([field, value]) => identifierProblem(field, value) !== null)
      .map(([field, value]) => `${field} ${value}: ${identifierProblem(field, value)}`);
    expect(refused).toEqual([]);
  });
});

describe('passphrase words after an explicit seed keyword', () => {
  /** Diceware-style words, most of them not on the BIP-39 list. */
  const WORDS = (
    'orbit velvet canyon lizard staple tundra marble quiet fossil harbor ember violin copper meadow saddle glacier ' +
    'lantern pepper walrus quartz thistle raven bramble cobalt dune falcon garnet hazel juniper kettle locust mantis ' +
    'nectar oyster pewter quiver russet sorrel tallow umber vortex wicker yonder zephyr almond bison cinder'
  ).split(' ');
  const pick = (i: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 5) % WORDS.length]!);
  const INTROS = [
    'Error: invalid checksum for mnemonic: $',
    'error: seed: $',
    'wallet restore failed: seed phrase: $',
    'Error: recovery phrase is $',
    'mnemonic = "$"',
    'ValueError: mnemonic: "$" is not valid',
    '{"mnemonic":"$"}',
    'error: --seed "$" rejected',
    'backup phrase: $',
    'SEED: $',
    'Error: secret recovery phrase: $ (checksum)',
  ];
  const cases: [string, string][] = [];
  INTROS.forEach((intro, i) => {
    for (const [n, sep] of [[12, ' '], [8, '-'], [6, ', ']] as const) {
      const phrase = pick(i + n, n).join(sep);
      cases.push([intro.replace('$', phrase), pick(i + n, n).slice(0, 4).join(sep)]);
    }
  });

  it(`six or more words after mnemonic:, seed:, recovery phrase … (${cases.length} variants)`, () => {
    const leaked = cases.filter(([text, part]) => redact(text).includes(part)).map(([text]) => `${text} → ${redact(text)}`);
    expect(leaked, `${leaked.length} of ${cases.length} leak`).toEqual([]);
  });

  it('keeps prose after a seed word', () => {
    expect(changed([
      'error: seed: using random seed from system entropy because none was given',
      'Error: mnemonic: invalid checksum, please check your words and try again',
      'warning: seed phrase is required to restore the wallet from backup',
      'pytest: seed: 42 (set with -p randomly)',
      'Note: recovery phrase must be stored offline and never shared with anyone',
      'error: seed the database before you run the migration tests again',
    ])).toEqual([]);
  });
});

describe('the new detectors keep the prefilter contract', () => {
  // Texts built from the detectors' own pieces, cut and re-cased, so near misses are as common as hits.
  const PIECES = [
    'IDENTIFIED BY ', "IDENTIFIED WITH x BY '", 'PASSWORD ', "PASSWORD = N'", "PASSWORD('", 'SET PASSWORD FOR a = ', "'", '"', ': ', ':', '=',
    'ConvertTo-SecureString ', '-AsPlainText ', '-String ', 'password for deploy', 'passphrase for key ', 'pass phrase', '(again)', '{', '}',
    '"name":"x-api-key"', '"value":"', '"key":"password"', ',', 'CREATE USER a ', 'mnemonic: ', 'seed ', 'recovery phrase is ', 'orbit velvet ',
    'canyon lizard staple tundra ', 'AbCdEfGhIjKl', 'hunter', ' ', 'db.password ', 'mavenPassword', '\n',
  ];
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).chain((parts) =>
    fc.tuple(fc.constant(parts.join('')), fc.integer({ min: 0, max: 3 })).map(([t, mode]) => (mode === 1 ? t.toLowerCase() : mode === 2 ? t.toUpperCase() : mode === 3 ? t.slice(1) : t)),
  );

  it('each context detector finds nothing in a text that lacks what it needs, and fires on some', () => {
    for (const detector of CONTEXT_DETECTORS) {
      const admits = compileNeeds(detector.needs);
      let fired = 0;
      fc.assert(
        fc.property(text, (t) => {
          const out: ContextFinding[] = [];
          runContext(detector, t, out);
          fired += out.length > 0 ? 1 : 0;
          return admits(t) || out.length === 0;
        }),
        { numRuns: 2000, seed: SEED },
      );
      expect(fired, detector.pattern.source.slice(0, 40)).toBeGreaterThan(0);
    }
  });

  it('the name/value pairs and the seed-keyword phrases likewise', () => {
    const admits = compileNeeds(PAIR_DETECTOR.needs);
    fc.assert(
      fc.property(text, (t) => {
        const out: ContextFinding[] = [];
        PAIR_DETECTOR.run(t, out);
        return admits(t) || out.length === 0;
      }),
      { numRuns: 2000, seed: SEED },
    );
    const seedWord = compileNeeds([{ anyOf: ['mnemonic', 'seed', 'recovery', 'backup', 'wallet'], ignoreCase: true }]);
    fc.assert(
      fc.property(text, (t) => {
        const out: ContextFinding[] = [];
        findKeywordPhrases(t, out);
        return seedWord(t) || out.length === 0;
      }),
      { numRuns: 2000, seed: SEED },
    );
  });
});
