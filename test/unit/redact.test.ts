import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { redact, redactDeep, SECRET_KINDS } from '../../pipeline/safety/redact.js';

/**
 * One secret shape in its natural habitat: `before + secret + after` is a realistic error message.
 * All values are fakes shaped like the real thing.
 */
interface SecretCase {
  name: string;
  kind: string;
  before: string;
  secret: string;
  after: string;
}

const PEM_RSA = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  'LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

const PEM_OPENSSH_TRUNCATED = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACDq8Yt3Jb2yZ0sFhXo1fA1n9kVv5q3QeXvJ5oZq',
].join('\n');

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

const CORPUS: SecretCase[] = [
  { name: 'AWS access key id (AKIA)', kind: 'aws_access_key', before: 'An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: key ', secret: 'AKIAIOSFODNN7EXAMPLE', after: ' is not valid' },
  { name: 'AWS temporary key id (ASIA)', kind: 'aws_access_key', before: 'ExpiredToken: credentials for ', secret: 'ASIAY34FZKBOKMUTVV7A', after: ' expired at 2024-05-01T10:00:00Z' },
  { name: 'AWS secret key in a config line', kind: 'aws_secret_key', before: 'botocore: bad profile [default] aws_secret_access_key = ', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', after: '\nregion = us-east-1' },
  { name: 'AWS secret key in sts JSON output', kind: 'aws_secret_key', before: 'aws sts output: {"AccessKeyId": "x", "SecretAccessKey": "', secret: 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY', after: '", "Expiration": "2024-05-01"}' },
  { name: 'GitHub classic PAT (ghp_)', kind: 'github_token', before: 'remote: Invalid username or token. Tried ', secret: 'ghp_R8vT2kLq9XwZ4mNb7YcJ1sHd6FgA3pUe0iKo', after: ' against github.com' },
  { name: 'GitHub OAuth token (gho_)', kind: 'github_token', before: 'gh: HTTP 401: Bad credentials (', secret: 'gho_16C7e42F292c6912E7710c838347Ae178B4a', after: ')' },
  { name: 'GitHub app token in a clone URL (ghs_)', kind: 'github_token', before: "fatal: unable to access 'https://x-access-token:", secret: 'ghs_Wq3ZpL8nR2vT6yK1mB9xC4dF7gH0jS5aE2uI', after: "@github.com/acme/widgets.git/': The requested URL returned error: 403" },
  { name: 'GitHub user-to-server token (ghu_)', kind: 'github_token', before: 'octokit RequestError [HttpError]: token=', secret: 'ghu_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5', after: ' lacks scope repo' },
  { name: 'GitHub refresh token (ghr_)', kind: 'github_token', before: 'refresh failed for ', secret: 'ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498', after: ', re-authenticate' },
  { name: 'GitHub fine-grained PAT', kind: 'github_token', before: 'GH_TOKEN is ', secret: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123', after: ' (expired)' },
  { name: 'GitLab PAT', kind: 'gitlab_token', before: 'glab: 401 Unauthorized using ', secret: 'glpat-xYz12AbCdEfGhIjKlMn9', after: ' for gitlab.example.com' },
  { name: 'Slack bot token', kind: 'slack_token', before: 'slack_sdk.errors.SlackApiError: invalid_auth (', secret: 'xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', after: ')' },
  { name: 'Slack user token', kind: 'slack_token', before: 'posting as ', secret: 'xoxp-2233445566-7788990011-1122334455-0f9e8d7c6b5a49382716aabbccddeeff', after: ' failed: channel_not_found' },
  { name: 'Slack app token', kind: 'slack_token', before: 'socket mode connect failed with ', secret: 'xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef', after: '; retrying in 5s' },
  { name: 'Slack webhook URL', kind: 'slack_webhook', before: 'POST https://hooks.slack.com/services/', secret: 'T0AB1CD2E/B0FG3HI4J/ZyXwVuTsRqPoNmLkJiHgFeDc', after: ' returned 404 no_service' },
  { name: 'Anthropic API key', kind: 'anthropic_key', before: 'anthropic.AuthenticationError: 401 invalid x-api-key ', secret: 'sk-ant-api03-Zx8Qp2Lm7Rt4Vw9Ny3Bc6Hd1Jf5Kg0AbCdEfGhIjKlMnOpQrStUvWx-yz012345AA', after: ' (check ANTHROPIC_API_KEY)' },
  { name: 'OpenAI legacy key', kind: 'openai_key', before: 'openai.AuthenticationError: Incorrect API key provided: ', secret: 'sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl', after: '. You can find your API key at https://platform.openai.com' },
  { name: 'OpenAI project key', kind: 'openai_key', before: 'OPENAI key ', secret: 'sk-proj-9fLq2ZxR7vT4mN8bY1cJ6sHd3FgA0pUe_KoWiQ5rTy-Lm2Nb8Vc', after: ' was revoked' },
  { name: 'Stripe live secret key', kind: 'stripe_key', before: 'StripeAuthenticationError: Invalid API Key provided: ', secret: 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQr', after: '' },
  { name: 'Stripe restricted key', kind: 'stripe_key', before: 'using restricted key ', secret: 'rk_live_51H8xYzQwErTyUiOpAsDfGhJk', after: ' for payouts' },
  { name: 'Google API key', kind: 'google_api_key', before: 'googleapis: 400 API key not valid. Please pass a valid API key. key=', secret: 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', after: '&alt=json' },
  { name: 'npm token in .npmrc', kind: 'npm_token', before: 'npm ERR! could not use //registry.npmjs.org/:_authToken=', secret: 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', after: '\nnpm ERR! code E401' },
  { name: 'JWT', kind: 'jwt', before: 'jwt.exceptions.ExpiredSignatureError: Signature has expired for ', secret: JWT, after: ' (exp 1516239022)' },
  { name: 'PEM RSA private key, multi-line', kind: 'private_key', before: 'Error: error:1E08010C:DECODER routines::unsupported while loading\n', secret: PEM_RSA, after: '\n    at loadKey (/app/src/ssh.ts:12:5)' },
  { name: 'PEM OpenSSH private key without END (truncated log)', kind: 'private_key', before: 'Load key "/tmp/deploy": invalid format\n', secret: PEM_OPENSSH_TRUNCATED, after: '' },
  { name: 'PEM in a JSON service-account blob (escaped newlines)', kind: 'private_key', before: 'google.auth: bad credentials {"type": "service_account", "private_key": "', secret: String.raw`-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----`, after: String.raw`\n", "client_email": "ci@acme.iam.gserviceaccount.com"}` },
  { name: 'password in a postgres URL', kind: 'url_password', before: 'psql: error: connection to server failed: postgres://admin:', secret: 's3cr3tP4ss-2024', after: '@db.internal:5432/app' },
  { name: 'password in a redis URL with no user', kind: 'url_password', before: 'ReplyError: WRONGPASS invalid password for redis://:', secret: 'Sup3rS3cretRedis', after: '@cache:6379/0' },
  { name: 'password=value', kind: 'password', before: 'sqlalchemy.exc.OperationalError: (psycopg2) host=db user=app password=', secret: 'Tr0ub4dor&3', after: ' dbname=app' },
  { name: 'JSON "password": "value"', kind: 'password', before: 'ValidationError on body {"username": "bob", "password": "', secret: 'correct horse battery staple', after: '", "remember": true}' },
  { name: 'YAML passwd: value', kind: 'password', before: 'config error at line 4:\n  passwd: ', secret: 'hunter2hunter2', after: '\n  port: 5432' },
  { name: 'MYSQL_PWD=value', kind: 'password', before: 'env: MYSQL_PWD=', secret: 'Zq9!xw7Lp', after: ' mysql -u root' },
  { name: 'client_secret=value in a query string', kind: 'secret', before: 'POST /oauth/token?client_id=web&client_secret=', secret: '8Qm3vZ1xR7tL2wN9', after: '&grant_type=client_credentials -> 400' },
  { name: 'secret: value, case-insensitive key', kind: 'secret', before: 'Webhook SECRET: ', secret: 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH', after: ' does not match signature' },
  { name: 'access_token=value', kind: 'token', before: 'GET https://www.googleapis.com/drive/v3/files?access_token=', secret: 'ya29.a0AfH6SMBxExampleTokenValue123', after: '&alt=json -> 401' },
  { name: 'token: value in YAML', kind: 'token', before: 'codecov: invalid upload\n  token: ', secret: '7f3a9c2e-1b4d-4c8e-9f0a-2d6b8e4c1a7f', after: '\n  slug: acme/widgets' },
  { name: 'api_key=value', kind: 'api_key', before: 'requests.exceptions.HTTPError: 403 for url: https://api.example.com/v1/items?api_key=', secret: 'e3b0c44298fc1c149afbf4c8', after: '&page=2' },
  { name: 'apikey="value"', kind: 'api_key', before: "sendgrid: client(apikey='", secret: 'not-a-real-key-42', after: "') refused" },
  { name: 'Authorization: Bearer header', kind: 'bearer_token', before: 'curl: (22) 401, request headers: Authorization: Bearer ', secret: 'opaqueTok3n.With.Dots-And_Underscores', after: '\nAccept: application/json' },
  { name: 'Authorization: Basic header', kind: 'basic_auth', before: 'git -c http.extraheader="AUTHORIZATION: basic ', secret: 'eC1hY2Nlc3MtdG9rZW46c2VjcmV0MTIz', after: '" fetch origin' },
  { name: 'Proxy-Authorization header without scheme', kind: 'authorization', before: 'squid: 407, sent Proxy-Authorization: ', secret: 'c2VjcmV0LXByb3h5LWNyZWQ9', after: ' for CONNECT api:443' },
  { name: 'bare Bearer token', kind: 'bearer_token', before: 'retrying with Bearer ', secret: '0a1b2c3d4e5f6a7b8c9d0e1f', after: ' after 401' },
  { name: 'high-entropy value next to a credential name', kind: 'high_entropy', before: 'datadog: rejected credential: ', secret: 'Zx8Qp2Lm7Rt4Vw9Ny3Bc6Hd1Jf5Kg0', after: ' (403 Forbidden)' },
  { name: 'high-entropy value after "signing key"', kind: 'high_entropy', before: 'cosign: invalid signing key ', secret: 'b64U2lnbmluZ0tleUV4YW1wbGUxMjM0NTY3OA', after: ' for image ghcr.io/acme/app' },
  { name: '40-hex value next to a secret-like name', kind: 'high_entropy', before: 'vault: lease renewal failed, deploy_secret_hash: ', secret: '9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc', after: ' (403)' },
  { name: 'CLI --password flag', kind: 'password', before: 'Command failed: mysqldump -u root --password ', secret: 'Sup3r-S3cret!', after: ' app > dump.sql' },
  { name: 'curl -u user:password', kind: 'password', before: 'curl: (22) The requested URL returned error: 401, command: curl -fsS -u deploy:', secret: 'Pa55w0rd-deploy', after: ' https://ci.example.com/api' },
  { name: 'SendGrid key', kind: 'sendgrid_key', before: 'python_http_client.exceptions.UnauthorizedError: HTTP 401 with key ', secret: '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', after: '' },
  { name: 'Hugging Face token', kind: 'huggingface_token', before: 'huggingface_hub.errors.HfHubHTTPError: 401 Client Error (token ', secret: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567', after: ')' },
];

/** The first window of `size` characters of `secret` that survived into `out`, if any. */
function leakedFragment(out: string, secret: string, size = 12): string | undefined {
  if (secret.length <= size) return out.includes(secret) ? secret : undefined;
  for (let i = 0; i + size <= secret.length; i += 1) {
    const window = secret.slice(i, i + size);
    if (out.includes(window)) return window;
  }
  return undefined;
}

describe('redact: secret corpus', () => {
  it('covers at least 25 distinct shapes and every declared kind', () => {
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
    expect(CORPUS.length).toBeGreaterThanOrEqual(25);
    expect([...new Set(CORPUS.map((c) => c.kind))].sort()).toEqual([...SECRET_KINDS].sort());
  });

  it.each(CORPUS)('$name', ({ kind, before, secret, after }) => {
    const out = redact(before + secret + after);
    expect(out).not.toContain(secret);
    expect(leakedFragment(out, secret)).toBeUndefined();
    // Exactly the secret is replaced: the key name and the rest of the message survive.
    expect(out).toBe(`${before}[REDACTED:${kind}]${after}`);
  });

  it('catches every secret when the whole corpus is one log blob', () => {
    const blob = CORPUS.map((c) => c.before + c.secret + c.after).join('\n');
    const out = redact(blob);
    for (const { secret } of CORPUS) expect(leakedFragment(out, secret)).toBeUndefined();
  });

  it('is idempotent on every corpus message', () => {
    for (const c of CORPUS) {
      const once = redact(c.before + c.secret + c.after);
      expect(redact(once)).toBe(once);
    }
  });
});

describe('redact: exact output for pair shapes', () => {
  it.each([
    ['password=hunter2 user=bob', 'password=[REDACTED:password] user=bob'],
    ['{"password": "x", "user": "bob"}', '{"password": "[REDACTED:password]", "user": "bob"}'],
    ['PASSWORD : "x"', 'PASSWORD : "[REDACTED:password]"'],
    ["pwd='x'", "pwd='[REDACTED:password]'"],
    ['https://user:pass@host/', 'https://user:[REDACTED:url_password]@host/'],
    ['{\\"token\\":\\"abc\\",\\"n\\":1}', '{\\"token\\":\\"[REDACTED:token]\\",\\"n\\":1}'],
    ['"password": "cut off by the log trunc', '"password": "[REDACTED:password]'],
    ['Authorization: Bearer abc123def456', 'Authorization: Bearer [REDACTED:bearer_token]'],
    ['apikey=abc', 'apikey=[REDACTED:api_key]'],
    ['ACCESS_TOKEN=abc', 'ACCESS_TOKEN=[REDACTED:token]'],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });
});

describe('redact: ordinary text is left alone', () => {
  const ORDINARY = [
    "fatal: Unable to create '/repo/.git/index.lock': File exists.",
    "error: failed to push some refs to 'https://github.com/acme/widgets.git'",
    'HEAD is now at 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc Fix flaky test',
    'session 3f2c9a7e-1b4d-4c8e-9f0a-2d6b8e4c1a7f ended with exit code 137',
    'npm ERR! code E401\nnpm ERR! Unable to authenticate, your authentication token seems to be invalid.',
    'npm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fwidgets - Not found',
    'FAILED tests/test_auth.py::test_login_with_expired_token - AssertionError: assert 401 == 200',
    '=========== 3 failed, 41 passed, 2 skipped in 12.34s ===========',
    "ENOENT: no such file or directory, open '/home/dev/.ssh/id_ed25519'",
    "Error: Cannot find module '/app/node_modules/jsonwebtoken/index.js'",
    'SyntaxError: Unexpected token } in JSON at position 42',
    'Unexpected token: }',
    'max_tokens: 4096, input_tokens=1200, output_tokens=313',
    "fatal: Authentication failed for 'https://github.com/acme/widgets.git/'",
    'remote: Invalid username or password.',
    "Password for 'https://dev@github.com': ",
    'npm ERR! need: Basic realm="GitHub Package Registry"',
    "KeyError: 'token'",
    'PWD=/home/dev/project HOME=/home/dev SHELL=/bin/zsh',
    'Timed out after 30000 ms (retry 3/5, backoff 1.5x)',
    'git@github.com: Permission denied (publickey).',
    "TypeError: Cannot read properties of undefined (reading 'secretName')",
    'docker login --password-stdin failed: unauthorized',
    'ValidationError: "token" is required',
    'key_file=/home/dev/.ssh/id_ed25519 not readable',
    'Error: task-queue-worker-processing-timeout-2024 exceeded',
    'http://localhost:8080/api/v1/items?page=2&sort=desc returned 500',
    '-----BEGIN CERTIFICATE----- block is not a key',
    'docker: Error response from daemon: unable to find user 1000: run -u 1000:1000 failed',
    "ValidationError: 'password' must be at least 12 characters",
    'restore failed for cache_key: aaaa-bbbb-1111-2222-aaaa-bbbb',
  ];

  it.each(ORDINARY)('%s', (message) => {
    expect(redact(message)).toBe(message);
  });
});

describe('redactDeep', () => {
  it('redacts every string in nested data without touching the input', () => {
    const input = {
      tool_name: 'Bash',
      exit_code: 1,
      ok: false,
      nothing: null,
      error_message: 'git push failed: https://x:ghp_R8vT2kLq9XwZ4mNb7YcJ1sHd6FgA3pUe0iKo@github.com/acme/w.git',
      samples: [{ message: 'password=hunter2 rejected', offsets: [10, 20] }, 'AKIAIOSFODNN7EXAMPLE'],
      env: { DB_PASSWORD: 'x', NPM_TOKEN: 'short', HOME: '/home/dev', PWD: '/repo' },
    };
    const snapshot = structuredClone(input);
    const out = redactDeep(input);

    expect(input).toEqual(snapshot);
    expect(out).not.toBe(input);
    expect(out.samples).not.toBe(input.samples);
    expect(out).toEqual({
      tool_name: 'Bash',
      exit_code: 1,
      ok: false,
      nothing: null,
      error_message: 'git push failed: https://x:[REDACTED:github_token]@github.com/acme/w.git',
      samples: [{ message: 'password=[REDACTED:password] rejected', offsets: [10, 20] }, '[REDACTED:aws_access_key]'],
      env: { DB_PASSWORD: '[REDACTED:password]', NPM_TOKEN: '[REDACTED:token]', HOME: '/home/dev', PWD: '/repo' },
    });
  });

  it('uses the property name: a harmless-looking value under a secret key is redacted', () => {
    expect(redactDeep({ password: 'x', api_key: ['abc'], signingKey: 'Zx8Qp2Lm7Rt4Vw9Ny3Bc6Hd1Jf5Kg0' })).toEqual({
      password: '[REDACTED:password]',
      api_key: ['[REDACTED:api_key]'],
      signingKey: '[REDACTED:high_entropy]',
    });
  });

  it('passes primitives and non-plain objects through', () => {
    const when = new Date(0);
    expect(redactDeep(42)).toBe(42);
    expect(redactDeep('token=abc')).toBe('token=[REDACTED:token]');
    expect(redactDeep({ when }).when).toBe(when);
  });

  it('is idempotent', () => {
    const once = redactDeep({ a: ['password=x', { token: 'y' }] });
    expect(redactDeep(once)).toEqual(once);
  });
});

/** Secrets that are recognisable on their own, without a key name next to them. */
const STANDALONE = CORPUS.filter((c) =>
  ['aws_access_key', 'github_token', 'gitlab_token', 'slack_token', 'anthropic_key', 'openai_key', 'stripe_key', 'google_api_key', 'npm_token', 'jwt', 'private_key', 'sendgrid_key', 'huggingface_token'].includes(c.kind),
).map((c) => c.secret);

const SEPARATORS = [' ', '\n', '\t', '"', "'", '(', ')', ',', '=', ': ', '<', '>'];

/** Pieces that exercise rule boundaries, mixed with arbitrary text by the property tests. */
const FRAGMENTS = [
  'password', 'passwd', 'pwd', 'PWD', 'token', 'secret', 'api_key', 'key', 'auth', 'credential', 'aws_secret_access_key',
  '=', ':', ': ', '=>', ':=', '::', '"', "'", '\\"', ' ', '\n', '&', ',', ';', '@', '/', '--', '--token ', '-u ', '--user=',
  'Bearer ', 'Authorization: ', 'Proxy-', 'basic ',
  'https://', 'user:', '@host', '[REDACTED:token]', '[REDACTED:', ']', '-----BEGIN RSA PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----', 'eyJhbGciOiJIUzI1NiJ9', '.', 'sk-', '/home/dev', 'hunter2',
  'Zx8Qp2Lm7Rt4Vw9Ny3Bc6Hd1Jf5Kg0', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', ...STANDALONE,
];

describe('redact: properties', () => {
  it('removes a standalone secret whatever text surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...SEPARATORS),
        fc.constantFrom(...STANDALONE),
        fc.constantFrom(...SEPARATORS),
        fc.string(),
        (head, open, secret, close, tail) => !redact(head + open + secret + close + tail).includes(secret),
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    'token: password::',
    'password:= x',
    'password=> password',
    '-u passwordA=Zx8Qp2Lm7Rt4Vw9Ny3Bc6Hd1Jf5Kg0',
    'Authorization:=abc',
    '"password": "[REDACTED:password]',
    'https://u::x@h',
  ])('is idempotent on the found-by-fuzzing case %j', (input) => {
    const once = redact(input);
    expect(redact(once)).toBe(once);
  });

  it('is idempotent on arbitrary mixes of secret-shaped fragments', () => {
    const text = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 24 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (s) => {
        const once = redact(s);
        return redact(once) === once;
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves text that cannot spell a trigger unchanged', () => {
    // No k, p, s, t, x or _: none of the trigger words or token prefixes can appear.
    const plain = fc.string({ unit: fc.constantFrom(...'abcdefghijlmnoqruvwyz0123456789 .,/-=:\n'.split('')) });
    fc.assert(fc.property(plain, (s) => redact(s) === s), { numRuns: 500 });
  });
});

describe('redact: speed', () => {
  // The first call compiles every pattern; the bound is about hostile input, not a cold start.
  beforeAll(() => {
    redact('warm up: password=abc123 sk-abc \\101 %41 &#65; ghp_x Bearer y');
  });
  const HOSTILE = [
    'sk-'.repeat(70_000),
    '-'.repeat(200_000) + 'key',
    'key'.repeat(70_000) + '=',
    'token: abcdefghij '.repeat(12_000),
    'password="'.repeat(20_000),
    'a.'.repeat(100_000) + '://',
    ('secret_key=' + 'a'.repeat(30) + ' ').repeat(5_000),
    '-----BEGIN CERTIFICATE-----'.repeat(8_000),
    'Bearer '.repeat(30_000),
    'key ' + 'x:'.repeat(100_000),
    // The credential contexts, markup and encodings of the class detectors (secrets.ts, normalise.ts).
    '<password'.repeat(20_000) + '>',
    'a '.repeat(100_000) + 'b',
    'a - '.repeat(50_000) + 'bb',
    '%25'.repeat(70_000),
    '&#103'.repeat(40_000),
    'password is '.repeat(20_000),
    'docker login ' + '-p '.repeat(60_000),
    '--db-pass'.repeat(20_000),
    'A1b2'.repeat(50_000) + '_',
    'ghp_'.repeat(50_000),
    'key="password" '.repeat(10_000) + 'value=',
    // Octal and CSS escapes (views), and the credential contexts of credential-contexts.ts.
    '\\101'.repeat(8_000),
    '\\41 '.repeat(8_000),
    '{"name":"password",'.repeat(3_000) + '"value":"x"}',
    "Password for '".repeat(4_000) + ': y',
    'IDENTIFIED WITH x BY '.repeat(3_000),
    'ConvertTo-SecureString -Force'.repeat(2_000),
    // Quoted-printable runs (normalise.ts quotedPrintableView).
    '=41'.repeat(100_000),
    '=\n'.repeat(100_000),
  ];

  it.each(HOSTILE.map((s, i) => [i, s] as const))('stays linear on hostile input #%i', (_i, s) => {
    const started = performance.now();
    redact(s);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('redacts a megabyte of ordinary log text quickly', () => {
    const log = "fatal: Unable to create '/repo/.git/index.lock': File exists.\n".repeat(16_000);
    const started = performance.now();
    expect(redact(log)).toBe(log);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('redact: redis password directives', () => {
  it('the argument of requirepass / masterauth is a password, whatever its letters', () => {
    for (const pw of ['foobared', 'amberpistolmeadow', 'Xy7pQ2rT', 'hunter']) {
      for (const line of [`requirepass ${pw}`, `masterauth ${pw}`, `>>> 'requirepass ${pw} extra'`, `requirepass "${pw}"`]) {
        expect(redact(line), line).not.toContain(pw);
      }
    }
    // Prose about the directive keeps its words.
    expect(redact('requirepass is not set: clients connect without a password')).toBe('requirepass is not set: clients connect without a password');
  });
});

describe('redact: an element keyed by a credential name holds its value', () => {
  it('Java properties XML entries and Spring/Hibernate properties, whatever the value looks like', () => {
    for (const v of ['amberpistolmeadow', 'hunter two', 'Xy7pQ2rT!']) {
      for (const line of [
        `error: InvalidPropertiesFormatException: <entry key="db.password">${v}</entry>`,
        `<property name="hibernate.connection.password">${v}</property>`,
        `<add key="SmtpPassword" >${v}</add>`,
        `<entry key='api.token'>${v}</entry>`,
      ]) {
        expect(redact(line), line).not.toContain(v);
      }
    }
    // A name that is no credential, an empty element and a placeholder stay as they are.
    for (const line of ['<entry key="db.user">admin</entry>', '<property name="password.policy.min">8</property>', '<entry key="db.password">${DB_PASSWORD}</entry>']) {
      expect(redact(line), line).toBe(line);
    }
  });
});

describe('a text the detectors cannot read to its end', () => {
  it('is withheld whole (fail closed), not thrown or passed through', () => {
    // One run of megabytes overflows a detector pattern's stack (the hook reads whatever stdin holds).
    for (const text of ['A'.repeat(12_000_000), `token ${'Zm9v'.repeat(2_500_000)}`]) {
      expect(redact(text)).toBe('[REDACTED:unreadable]');
    }
    expect(redact('a short line with nothing in it')).toBe('a short line with nothing in it');
  });
});

describe('a token hex-encoded (xxd -p, a dump of a token file)', () => {
  it('is redacted; a digest or hex-encoded prose is left alone', () => {
    const tokens = [`ghp_${'Zq7Wm2Kx9Vb4'.repeat(3)}`, `sk-ant-api03-${'kQ9xZ2vB7mW4nT8r'.repeat(3)}`, 'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'];
    for (const token of tokens) {
      for (const hex of [Buffer.from(token).toString('hex'), Buffer.from(token).toString('hex').toUpperCase()]) {
        const out = redact(`Exit code 1\n${hex}\nerror: not a valid token`);
        expect(out, token).not.toContain(hex.slice(8, 40));
        expect(out).toContain('error: not a valid token');
      }
    }
    expect(redact(Buffer.from('just a harmless hex encoded sentence here').toString('hex'))).toBe(Buffer.from('just a harmless hex encoded sentence here').toString('hex'));
  });

  it('property: sha-1 and sha-256 digests (random bytes as hex) are never changed', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 32 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex');
        return redact(`commit ${hex}`) === `commit ${hex}`;
      }),
      { seed: 1128, numRuns: 500 },
    );
  });
});
