import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { BLANK_PAIR, runContext, type ContextFinding } from '../../pipeline/safety/credential-contexts.js';
import { redact } from '../../pipeline/safety/redact.js';
import { compileNeeds } from '../../pipeline/safety/secret-prefilter.js';
import { loadSecretRuleSet } from '../../pipeline/safety/secrets-rule-set.js';

/**
 * A key and a value separated by blanks, as Java `.properties` (a blank, `=` or `:`), csh's `setenv`
 * and a Dockerfile's legacy `ENV` allow: `mavenPassword v`. The grammar (credential-contexts.ts,
 * BLANK_PAIR): the pair stands where a file's line does (a line start, the `: ` of a log prefix, a quote,
 * after setenv/ENV), its key is a setting's (two words or more, one naming a credential, none after it
 * about it), its value is one token ending the line and not prose. Each side below is a corpus of its
 * own: lines a tool prints back from such a file, and error prose around the same words.
 */

beforeAll(async () => {
  await loadSecretRuleSet();
});

/** [line, the secret in it]. Values are letters mostly: nothing but the key marks them. */
const POSITIVES: [string, string][] = [
  ['mavenPassword bakotimu', 'bakotimu'],
  ['db.password hunterblue', 'hunterblue'],
  ['spring.datasource.password  sekretval', 'sekretval'],
  ['DB_PASSWORD kalomiru', 'kalomiru'],
  ['setenv DB_PASSWORD kalomiru', 'kalomiru'],
  ['ENV API_TOKEN abzumelo', 'abzumelo'],
  ['set -x GITHUB_TOKEN mytokenvalue', 'mytokenvalue'],
  ['error: could not load gradle.properties: line 4: mavenPassword bakotimu', 'bakotimu'],
  ['app.properties:12: mail.smtp.password pelikanos', 'pelikanos'],
  ['  signing.password   fortunato', 'fortunato'],
  ['\tkeystorePassword storepwd', 'storepwd'],
  ["'nexusPassword zurafiko'", 'zurafiko'],
  ['"artifactoryApiKey kelumbaro"', 'kelumbaro'],
  ['client_secret vortexian', 'vortexian'],
  ['client-secret vortexian', 'vortexian'],
  ['clientSecret vortexian', 'vortexian'],
  ['oauth.clientSecret pomodoro', 'pomodoro'],
  ['aws_secret_access_key wJalrXUtnFEMI', 'wJalrXUtnFEMI'],
  ['sonar.login.token sqtokenval', 'sqtokenval'],
  ['ldap.bind.password binderpw', 'binderpw'],
  ['jdbc.password dbpassw0rd', 'dbpassw0rd'],
  ['hibernate.connection.password hibernatepw', 'hibernatepw'],
  ['redis.password redispass1', 'redispass1'],
  ['rabbitmq.password bunnyhop', 'bunnyhop'],
  ['smtp_pass mailer77', 'mailer77'],
  ['ftp_pwd ftpsecret', 'ftpsecret'],
  ['mysql_root_password rootroot', 'rootroot'],
  ['POSTGRES_PASSWORD pgpassword9', 'pgpassword9'],
  ['vault.token zanzibarx', 'zanzibarx'],
  ['slack.bot.token xyzzyplugh', 'xyzzyplugh'],
  ['npmAuthToken npmtokenval', 'npmtokenval'],
  ['registry.auth.password dockerpw', 'dockerpw'],
  ['privateKeyPassphrase longphrase', 'longphrase'],
  ['ssl.keystore.password keepitsafe', 'keepitsafe'],
  ['ssl.truststore.password trustmenot', 'trustmenot'],
  ['proxyPassword proxypw1', 'proxypw1'],
  ['proxy.password proxypw1', 'proxypw1'],
  ['http.proxyPassword proxypw1', 'proxypw1'],
  ['systemProp.http.proxyPassword proxypw1', 'proxypw1'],
  ['ossrhPassword sonatype1', 'sonatype1'],
  ['storePassword androidpw', 'androidpw'],
  ['keyPassword androidkeypw', 'androidkeypw'],
  ['api.secret.key apisecret', 'apisecret'],
  ['secret_key_base railsbase', 'railsbase'],
  ['encryption.key enckeyvalue', 'enckeyvalue'],
  ['master.key masterkeyval', 'masterkeyval'],
  ['jwt.secret jwtsecretval', 'jwtsecretval'],
  ['session.secret sessval1', 'sessval1'],
  ['COOKIE_SECRET cookiesec', 'cookiesec'],
  ['auth.token authtokval', 'authtokval'],
  ['X_AUTH_TOKEN tokval12', 'tokval12'],
  ['DJANGO_SECRET_KEY djangosk', 'djangosk'],
  ['line 7: db.password "quoted secret value"', 'quoted secret value'],
  ["config.ini:3: admin_password 'adminpw'", 'adminpw'],
  ['  smtp.auth.password relaypw', 'relaypw'],
  ['bitbucket.app.password bbapppw', 'bbapppw'],
  ['consul.acl.token acltokval', 'acltokval'],
  ['kafka.sasl.password saslpw1', 'saslpw1'],
  ['gpg.passphrase gpgphrase', 'gpgphrase'],
  ['sudo_password sudopw1', 'sudopw1'],
  ['error: bad line\nmavenPassword bakotimu\nnext line', 'bakotimu'],
  ['WARN settings.xml: serverPassword notsosecret', 'notsosecret'],
];

/** Prose around the same words, settings that are about a credential, and code. None holds a secret. */
const NEGATIVES: string[] = [
  'the password field is required',
  'password reset link sent',
  'Password incorrect for user bob',
  'userPassword must be at least 8 characters',
  'apiToken expired',
  'authMethod password',
  'dbPassword missing',
  'error: mavenPassword not set',
  'error: DB_PASSWORD is empty',
  'Token expired',
  'secret not found',
  'error: secretKeyRef mysecret not found',
  'passwordFile /run/secrets/db',
  'tokenPath ~/.config/token',
  'secretName db-credentials',
  'authType basic',
  'tokenCount 5',
  'passwordAttempts 3',
  'error: apiKey undefined',
  'clientSecret null',
  'at getPassword (auth.js:10:5)',
  '    at AuthService.getToken (/app/src/auth.ts:12:5)',
  "TypeError: Cannot read properties of undefined (reading 'password')",
  'error: invalid token',
  'npm ERR! code E401 Unable to authenticate, need: Basic realm',
  "fatal: Authentication failed for 'https://github.com/x/y.git/'",
  'Permission denied (publickey).',
  'password authentication failed for user "postgres"',
  'token limit exceeded',
  'apiKey: required',
  'Bad credentials',
  'accessToken true',
  'privateKey default',
  'authToken changeme',
  'error: passwordHash mismatch',
  'tokenizer.json not found',
  'SECRET_KEY_BASE environment variable is missing',
  'api_key ${API_KEY}',
  'dbPassword <your-password>',
  'dbPassword ****',
  'error: secretsmanager:GetSecretValue denied',
  'Caused by: java.lang.IllegalArgumentException: keyPassword null',
  'ValueError: authToken None',
  "KeyError: 'api_key'",
  '  --password-file passwords.txt',
  'gpgPassphrase prompt',
  'Set keyPassword in gradle.properties',
  'privateKeyPath ./keys/id_rsa',
  'tokenUrl https://auth.example.com/token',
  'apiKeyHeader X-Api-Key',
  'TOKEN_ENDPOINT https://auth.example.com/oauth/token',
  'passwordPolicy strict',
  'authProvider github',
  'credentialsId jenkins-creds',
  'secretVersion latest',
  'authStatus 401',
  'error: keystorePassword too short',
  'warning: DB_PASSWORD was not provided',
  'tokenStore redis',
  'secretStore vault',
  'clientSecret config/secrets.yaml',
  'hint: authToken is optional',
  'error: gradle.properties: mavenPassword is deprecated, use mavenToken',
  'setenv: Too many arguments.',
  'Your password has expired',
  'Enter the apiKey below',
];

function findings(line: string): ContextFinding[] {
  const out: ContextFinding[] = [];
  runContext(BLANK_PAIR, line, out);
  return out;
}

describe('blank-separated key value pairs (BLANK_PAIR)', () => {
  it(`finds the value of each of ${POSITIVES.length} setting lines, and redaction removes it`, () => {
    expect(POSITIVES.length).toBeGreaterThanOrEqual(60);
    for (const [line, secret] of POSITIVES) {
      const found = findings(line).map((f) => line.slice(f.start, f.end));
      expect(found, line).toEqual([secret]);
      expect(redact(line), line).not.toContain(secret);
    }
  });

  it(`finds nothing in ${NEGATIVES.length} lines of prose, code and settings about a credential`, () => {
    expect(NEGATIVES.length).toBeGreaterThanOrEqual(60);
    for (const line of NEGATIVES) expect(findings(line), line).toEqual([]);
  });

  it('finds nothing in a text that lacks what it declares it needs (seeded)', () => {
    const admits = compileNeeds(BLANK_PAIR.needs);
    const pieces = ['mavenPassword', 'db.password', 'DB_PASSWORD', 'setenv ', 'ENV ', 'userName', 'db.host', ' ', '\n', ': ', "'", 'bakotimu', 'line 4', '.', '_'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 10 }), fc.boolean(), (parts, lower) => {
        const text = lower ? parts.join('').toLowerCase() : parts.join('');
        return admits(text) || findings(text).length === 0;
      }),
      { seed: 20_261_128, numRuns: 3000 },
    );
  });

  it('takes linear time on a hostile run of separators and keys', () => {
    const hostile = `${':'.repeat(50_000)}${' mavenPassword'.repeat(20_000)}`;
    const started = process.cpuUsage();
    findings(hostile);
    const cpu = process.cpuUsage(started);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(2_000);
  });
});
