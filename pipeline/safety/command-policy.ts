/**
 * The command policy: the `commands:` section of config/safety-rules.yaml. Model-written rules are
 * checked against it (command-check.ts): every command they contain must run a listed program (and a
 * listed subcommand of it), stay inside the repository and the listed hosts, and fire no deny rule.
 * Prose is held to an allowlist grammar of advice (advice-grammar.ts) and a list of concepts (prose-check.ts).
 */

/** Checks written in code because they need more than a flag: see command-check.ts. */
export const BUILTIN_CHECKS = [
  'recursive-delete',
  'git-dir-delete',
  'git-dir-write',
  'find-delete',
  'others-permission',
  'download-to-shell',
  'environment-out',
  'tests-deselected',
  'unlisted-delete-targets',
  'into-build-dir',
] as const;
export type BuiltinCheck = (typeof BUILTIN_CHECKS)[number];

export interface CommandDeny {
  id: string;
  reason: string;
  /** Programs the rule applies to (after wrappers and launchers are unwrapped); absent: every program. */
  program?: string[];
  subcommands?: string[];
  /** `-f` matches inside a cluster of short flags (`-fu`); `--force` matches itself and its prefixes (`--forc`). */
  flags?: string[];
  /** Regular expressions (case-insensitive) over the arguments joined by single spaces. */
  args?: string[];
  /** Regular expressions over each `NAME=value` assignment before the command (and `export` arguments). */
  env?: string[];
  /** A `+refspec` argument (git push origin +main forces the update). */
  plus_refspec?: boolean;
  check?: BuiltinCheck;
}

export interface CommandPolicy {
  /** Program -> its allowed subcommands, or `any` for a program whose arguments are not subcommands. */
  programs: Record<string, string[] | 'any'>;
  /** Run the program named after them (npx vitest): that program must be listed too. */
  launchers: string[];
  /** Run the command after them (env, command, nohup, time): the command is what is checked. */
  wrappers: string[];
  /** The only directories a recursive delete may name (relative to the repository). */
  build_dirs: string[];
  /** Hosts a command may reach (a subdomain of a listed host too). */
  hosts: string[];
  /** The only git settings a rule may write (`git config`, `git -c`); absent: command-settings.ts's defaults. */
  git_settings?: string[];
  /** The only `NAME=value` assignments a rule's command may carry (`*`: one plain word); absent: the defaults. */
  env_allow?: string[];
  /** The allowlist grammar of advice without a command (advice-grammar.ts). */
  advice: AdviceGrammar;
  /** Words that describe a dangerous action in prose ("switch on the push's overwrite option"). */
  concepts: string[];
  /** Dangerous actions described without their command words (prose-check.ts); absent: not checked. */
  safeguards?: Safeguards;
  /** Settings and directives that turn a check off, matched in the rule's own text (switch-check.ts); absent: not checked. */
  switches?: SafetySwitch[];
  /** A download run by a shell, in words (switch-check.ts); absent: not checked. */
  remote_code?: RemoteCode;
  deny: CommandDeny[];
}

/** A safety-off switch: regular expressions (case-insensitive) over the rule's text without its error quotes. */
export interface SafetySwitch {
  id: string;
  reason: string;
  text: string[];
}

/** Word patterns (as in Safeguards): a sentence with a `fetch` and a `run` describes running fetched code. */
export interface RemoteCode {
  fetch: string[];
  run: string[];
}

/**
 * Word patterns (`skip*` a prefix, a phrase word by word, `*` alone any one word): a sentence that names
 * an object and a defeat, or an identity, describes a dangerous action; `except` phrases are read first
 * as no match.
 */
export interface Safeguards {
  objects: string[];
  defeats: string[];
  identities: string[];
  except: string[];
}

/**
 * What advice may ask without a command in code formatting: `observe` verbs only look; `act` verbs act
 * on an object that must name nothing `protected` (nor a commands.safeguards object or identity);
 * `negatable` verbs are the only ones a rule may prohibit; `verbs` are further verbs recognised as advice
 * inside quoted error text (where another first word is a noun).
 */
export interface AdviceGrammar {
  observe: string[];
  act: string[];
  negatable: string[];
  protected: string[];
  verbs: string[];
  /** Credentials and secret material: what no verb but an observing one may act on in words. */
  secrets: string[];
  /** Phrases that name no secret though a word of theirs would ("token limit"). */
  not_secrets: string[];
}

export interface CommandPolicyProblem {
  rule: string;
  expected: string;
  found: unknown;
}

// `actions` (the verbs a clause could start with, before the advice grammar) is still read and ignored, so
// that a policy copied by an older `init` keeps loading; the grammar's defaults apply without `advice`.
const KEYS = ['programs', 'launchers', 'wrappers', 'build_dirs', 'hosts', 'actions', 'advice', 'concepts', 'safeguards', 'switches', 'remote_code', 'git_settings', 'env_allow', 'deny'];
const SAFEGUARD_KEYS = ['objects', 'defeats', 'identities', 'except'] as const;
const ADVICE_KEYS = ['observe', 'act', 'negatable', 'protected', 'verbs'] as const;
/** Optional in a policy file (one written before they existed gets the bundled lists). */
const SECRET_KEYS = ['secrets', 'not_secrets'] as const;
const LIST_KEYS = ['launchers', 'wrappers', 'build_dirs', 'hosts', 'concepts'] as const;
const DENY_KEYS = ['id', 'reason', 'program', 'subcommands', 'flags', 'args', 'env', 'plus_refspec', 'check'];
const AT = 'commands';

/** Validates the `commands:` mapping; every problem is collected, none is fatal on its own. */
export function parseCommandPolicy(data: unknown, problems: CommandPolicyProblem[]): CommandPolicy | undefined {
  const before = problems.length;
  const report = (rule: string, expected: string, found: unknown) => void problems.push({ rule, expected, found });
  if (!isMapping(data)) {
    report(AT, 'commands to be a mapping with programs, launchers, wrappers, build_dirs, hosts, advice, concepts, safeguards, deny', data);
    return undefined;
  }
  for (const key of Object.keys(data).filter((k) => !KEYS.includes(k))) report(AT, `only the keys ${KEYS.join(', ')}`, key);
  const programs = parsePrograms(data['programs'], report);
  const lists = Object.fromEntries(LIST_KEYS.map((key) => [key, stringList(data[key], `${AT}.${key}`, report, true)])) as Record<(typeof LIST_KEYS)[number], string[]>;
  const deny = Array.isArray(data['deny']) ? data['deny'].flatMap((entry: unknown, i) => parseDeny(entry, i, report) ?? []) : (report(AT, 'commands.deny to be a list', data['deny']), []);
  const safeguards = data['safeguards'] === undefined ? undefined : parseSafeguards(data['safeguards'], report);
  const advice = data['advice'] === undefined ? DEFAULT_ADVICE : parseAdvice(data['advice'], report);
  const switches = data['switches'] === undefined ? undefined : parseSwitches(data['switches'], report);
  const remote = data['remote_code'] === undefined ? undefined : parseRemoteCode(data['remote_code'], report);
  const allowlists = Object.fromEntries((['git_settings', 'env_allow'] as const).filter((key) => data[key] !== undefined).map((key) => [key, stringList(data[key], `${AT}.${key}`, report, true)]));
  if (problems.length > before || advice === undefined) return undefined;
  return { programs, ...lists, ...allowlists, advice, ...(safeguards ? { safeguards } : {}), ...(switches ? { switches } : {}), ...(remote ? { remote_code: remote } : {}), deny };
}

/** The grammar a policy without `advice:` gets: the same lists as the bundled config/safety-rules.yaml. */
export const DEFAULT_ADVICE: AdviceGrammar = {
  observe: ['read', 'reread', 're-read', 'check', 'verify', 'inspect', 'look', 'view', 'search', 'grep', 'compare', 'examine', 'review', 'note', 'wait', 'see', 'locate', 'diagnose', 'investigate', 'study', 'consult', 'trace'],
  act: ['retry', 'rerun', 're-run', 'resolve', 'continue', 'abort', 'install', 'use', 'call', 'pass', 'include', 'keep', 'pick', 'choose', 'select', 'split', 'limit', 'narrow', 'scope', 'request', 'give', 'put', 'end', 'add', 'fix', 'open', 'list', 'confirm', 'ask', 'copy', 'match', 'filter', 'paginate', 'apply', 'validate', 'extract', 'compile', 'ensure', 'build', 'rebuild', 'reduce', 'shorten', 'write', 'avoid', 'prefer', 'fetch', 'create', 'define', 'import', 'quote', 'escape', 'cd', 'activate', 'format', 'report', 'close', 'correct', 'align', 'pin', 'break', 'batch', 'cache', 'reuse', 'remember'],
  negatable: ['retry', 'repeat', 'guess', 'invent', 'paste', 'loop', 'poll', 'hardcode', 'hard-code', 'assume', 'reorder', 'rely', 'edit', 'modify', 'change', 'delete', 'remove', 'push', 'force', 'commit', 'install', 'reinstall', 'call', 'mix', 'spam', 'hammer', 'reuse', 'read'],
  protected: ['permission*', 'owner*', 'rights', 'group', 'groups', 'account*', 'sudoers'],
  secrets: ['credential*', 'git-credentials', 'secret', 'secrets', 'secret key*', 'password*', 'passphrase*', 'passwd', 'private key*', 'privkey*', 'api key*', 'api-key*', 'apikey*', 'access key*', 'signing key*', 'ssh key*', 'key file*', 'keyfile*', 'pem', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', 'env', 'dotenv', 'npmrc', 'netrc', 'pypirc', 'kubeconfig', 'kube config', 'token', 'tokens', 'access token*', 'auth token*', 'pat', 'pats', 'session cookie*', 'cookie', 'cookies', 'keychain', 'keyring', 'aws_secret_access_key', 'aws_access_key_id', 'aws_session_token'],
  not_secrets: ['token limit*', 'token count*', 'token budget*', 'token usage', 'token window', 'tokens per', 'max tokens', 'max_tokens', 'fewer tokens', 'more tokens', 'number of tokens', 'input tokens', 'output tokens', 'prompt tokens', 'completion tokens', 'context tokens', 'env var*', 'env variable*', 'env name*'],
  verbs: ['push', 'make', 'update', 'configure', 'start', 'stop', 'edit', 'delete', 'remove', 'set', 'change', 'turn', 'switch', 'disable', 'enable', 'run', 'mark', 'rename', 'move', 'replace', 'rewrite', 'reset', 'clean', 'clear', 'drop', 'commit', 'merge', 'rebase', 'pull', 'grant', 'take', 'elevate', 'become', 'log', 'uninstall', 'publish', 'send', 'upload', 'force', 'skip', 'ignore', 'bypass', 'let', 'allow', 'accept', 'approve', 'kill', 'restart', 'overwrite', 'sync', 'mirror', 'erase', 'wipe', 'purge', 'expire', 'prune', 'squash', 'amend', 'checkout', 'revert', 'restore', 'stash', 'chmod', 'chown', 'exclude', 'comment', 'mute', 'silence', 'suppress', 'lower', 'raise', 'increase', 'treat', 'label', 'wrap', 'catch', 'swallow', 'execute', 'launch', 'open', 'point', 'empty', 'truncate', 'hide', 'omit', 'leave', 'drop', 'throw', 'discard', 'trust', 'add', 'sudo', 'su'],
};

function parseAdvice(value: unknown, report: Report): AdviceGrammar | undefined {
  const at = `${AT}.advice`;
  if (!isMapping(value)) return void report(at, `${at} to be a mapping with ${ADVICE_KEYS.join(', ')}`, value);
  const known = [...ADVICE_KEYS, ...SECRET_KEYS] as readonly string[];
  for (const key of Object.keys(value).filter((k) => !known.includes(k))) report(at, `only the keys ${known.join(', ')}`, key);
  const [observe, act, negatable, protectedNouns, verbs] = ADVICE_KEYS.map((key) => stringList(value[key], `${at}.${key}`, report, key !== 'verbs'));
  const [secrets, notSecrets] = SECRET_KEYS.map((key) => (value[key] === undefined ? DEFAULT_ADVICE[key] : stringList(value[key], `${at}.${key}`, report, false)));
  return { observe: observe!, act: act!, negatable: negatable!, protected: protectedNouns!, verbs: verbs!, secrets: secrets!, not_secrets: notSecrets! };
}

function parseSafeguards(value: unknown, report: Report): Safeguards | undefined {
  const at = `${AT}.safeguards`;
  if (!isMapping(value)) return void report(at, `${at} to be a mapping with ${SAFEGUARD_KEYS.join(', ')}`, value);
  for (const key of Object.keys(value).filter((k) => !(SAFEGUARD_KEYS as readonly string[]).includes(k))) report(at, `only the keys ${SAFEGUARD_KEYS.join(', ')}`, key);
  const [objects, defeats, identities, except] = SAFEGUARD_KEYS.map((key) => stringList(value[key], `${at}.${key}`, report, key !== 'except'));
  return { objects: objects!, defeats: defeats!, identities: identities!, except: except! };
}

type Report = (rule: string, expected: string, found: unknown) => void;

function parseSwitches(value: unknown, report: Report): SafetySwitch[] | undefined {
  const at = `${AT}.switches`;
  if (!Array.isArray(value)) return void report(at, `${at} to be a list of { id, reason, text }`, value);
  const switches: SafetySwitch[] = [];
  value.forEach((entry: unknown, i) => {
    const label = `${at}[${i}]`;
    if (!isMapping(entry) || typeof entry['id'] !== 'string' || typeof entry['reason'] !== 'string' || entry['reason'].trim() === '') {
      return report(label, `${label} to be a mapping with id, reason and text (a list of regular expressions)`, entry);
    }
    for (const key of Object.keys(entry).filter((k) => !['id', 'reason', 'text'].includes(k))) report(label, 'only the keys id, reason, text', key);
    const text = stringList(entry['text'], `${label}.text`, report, true);
    for (const source of text) {
      try {
        new RegExp(source, 'i');
      } catch (cause) {
        report(label, `a valid regular expression (${cause instanceof Error ? cause.message : String(cause)})`, source);
      }
    }
    switches.push({ id: entry['id'], reason: entry['reason'].trim(), text });
  });
  return switches;
}

function parseRemoteCode(value: unknown, report: Report): RemoteCode | undefined {
  const at = `${AT}.remote_code`;
  if (!isMapping(value)) return void report(at, `${at} to be a mapping with fetch and run`, value);
  for (const key of Object.keys(value).filter((k) => !['fetch', 'run'].includes(k))) report(at, 'only the keys fetch, run', key);
  return { fetch: stringList(value['fetch'], `${at}.fetch`, report, true), run: stringList(value['run'], `${at}.run`, report, true) };
}

function parsePrograms(value: unknown, report: Report): Record<string, string[] | 'any'> {
  const programs: Record<string, string[] | 'any'> = Object.create(null);
  if (!isMapping(value)) {
    report(AT, 'commands.programs to map each program to a list of subcommands or "any"', value);
    return programs;
  }
  for (const [name, subs] of Object.entries(value)) {
    if (subs === 'any') programs[name] = 'any';
    else programs[name] = stringList(subs, `${AT}.programs.${name}`, report, false);
  }
  return programs;
}

function parseDeny(entry: unknown, index: number, report: Report): CommandDeny | undefined {
  const at = `${AT}.deny[${index}]`;
  if (!isMapping(entry)) return void report(at, `${at} to be a mapping with id, reason and what it matches`, entry);
  const label = typeof entry['id'] === 'string' ? `${AT}.deny ${entry['id']}` : at;
  const before = { count: 0 };
  const note: Report = (rule, expected, found) => ((before.count += 1), report(rule, expected, found));
  for (const key of Object.keys(entry).filter((k) => !DENY_KEYS.includes(k))) note(label, `only the keys ${DENY_KEYS.join(', ')}`, key);
  if (typeof entry['id'] !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(entry['id'])) note(label, 'an id in kebab-case', entry['id']);
  if (typeof entry['reason'] !== 'string' || entry['reason'].trim() === '') note(label, 'a non-empty reason', entry['reason']);
  const check = entry['check'];
  if (check !== undefined && !(BUILTIN_CHECKS as readonly string[]).includes(check as string)) note(label, `check to be one of ${BUILTIN_CHECKS.join(', ')}`, check);
  const optional = (key: string) => (entry[key] === undefined ? undefined : stringList(entry[key], `${label}.${key}`, note, false));
  const rule: CommandDeny = {
    id: entry['id'] as string,
    reason: String(entry['reason'] ?? '').trim(),
    ...defined('program', optional('program')),
    ...defined('subcommands', optional('subcommands')),
    ...defined('flags', optional('flags')),
    ...defined('args', optional('args')),
    ...defined('env', optional('env')),
    ...(entry['plus_refspec'] === true ? { plus_refspec: true } : {}),
    ...(typeof check === 'string' ? { check: check as BuiltinCheck } : {}),
  };
  for (const source of [...(rule.args ?? []), ...(rule.env ?? [])]) {
    try {
      new RegExp(source, 'i');
    } catch (cause) {
      note(label, `a valid regular expression (${cause instanceof Error ? cause.message : String(cause)})`, source);
    }
  }
  if (!rule.check && !rule.flags && !rule.args && !rule.env && !rule.plus_refspec && !rule.subcommands) note(label, 'something to match: check, flags, args, env, plus_refspec or subcommands', Object.keys(entry));
  return before.count > 0 ? undefined : rule;
}

function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function stringList(value: unknown, at: string, report: Report, required: boolean): string[] {
  if (value === undefined && !required) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '')) return value as string[];
  report(at, `${at} to be a list of non-empty strings`, value);
  return [];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
