import type { CommandPolicy } from './command-policy.js';
import { GUARDED_PROGRAMS, type SimpleCommand } from './command-builtins.js';

/**
 * Options a command gets from outside its own words, checked by allowlist rather than by lists of bad
 * values (which always miss one): git settings (`git config k v`, `git -c k=v`, `git clone --config
 * k=v`), environment assignments (`VAR=v cmd`, `export VAR=v`, `env VAR=v cmd`, a bare `VAR=v`), and
 * arguments only known at run time (`$F`, `$(…)`, `` `…` ``, `xargs`, an unquoted `*`/`?`/`[…]`/`{a,b}`) for
 * programs that have deny rules.
 */
export interface SettingFinding {
  id: string;
  reason: string;
}

/** The harmless git settings a rule may write when the policy has no `git_settings` (config/safety-rules.yaml). */
export const DEFAULT_GIT_SETTINGS = ['user.name', 'user.email', 'pull.rebase', 'pull.ff', 'core.autocrlf', 'core.eol', 'init.defaultBranch', 'push.autoSetupRemote', 'color.ui', 'merge.conflictStyle', 'rerere.enabled', 'advice.detachedHead'];
/** The assignments a rule's command may carry when the policy has no `env_allow`: `NAME=value`, `*` in a value is one plain word. */
export const DEFAULT_ENV_ALLOW = ['CI=1', 'CI=true', 'NODE_ENV=*', 'FORCE_COLOR=0', 'FORCE_COLOR=1', 'NO_COLOR=1', 'TERM=dumb', 'LC_ALL=C', 'LANG=C', 'TZ=UTC', 'PYTHONUNBUFFERED=1', 'PYTHONDONTWRITEBYTECODE=1', 'PYTHONPATH=*', 'NODE_OPTIONS=--max-old-space-size=*', 'GIT_PAGER=cat', 'PAGER=cat', 'RUST_BACKTRACE=1'];

/**
 * Class A: every git setting the command writes must be on the allowlist (names compare as git compares
 * them), and written to the repository's own configuration: `--global`, `--system`, `--file <path>` and
 * `--worktree` reach past it (every repository of the user or the machine, a file anywhere), so even a
 * listed key is blocked there. `-c k=v` sets a key for one command and writes nothing.
 */
export function gitSettingFindings(command: SimpleCommand, policy: CommandPolicy): SettingFinding[] {
  if (command.program !== 'git') return [];
  const allowed = new Set((policy.git_settings ?? DEFAULT_GIT_SETTINGS).map(foldKey));
  const written = writtenGitSettings(command.args);
  const unlisted = written
    .filter((key) => !allowed.has(foldKey(key)))
    .map((key) => ({ id: 'git-setting-unlisted', reason: `it writes the git setting ${key}, which is not on commands.git_settings: a setting changes what every later git command does, so only the listed harmless ones may be set` }));
  const scope = written.length > 0 ? configScopeBeyondRepository(command.args) : null;
  const beyond = scope === null ? [] : [{ id: 'git-setting-scope', reason: `it writes git settings with ${scope}, which reaches past this repository's own configuration (the user's, the machine's, or another file): a rule may set a listed key in this repository only` }];
  return [...unlisted, ...beyond];
}

const SCOPE_OPTIONS = ['--global', '--system', '--file', '--worktree'];

/** The option of `git config` that sends a write past `.git/config` (git takes a long option's unambiguous prefix too), or null. */
export function configScopeBeyondRepository(args: string[]): string | null {
  const at = subcommandIndex(args);
  if (args[at] !== 'config') return null;
  for (const arg of args.slice(at + 1)) {
    if (arg === '--') break;
    if (arg === '-f' || /^-f./.test(arg)) return '--file';
    const name = arg.split('=')[0]!;
    const option = name.length >= 3 && name.startsWith('--') ? SCOPE_OPTIONS.find((o) => o.startsWith(name)) : undefined;
    if (option) return option;
  }
  return null;
}

/** Where git's subcommand stands, after its global options (`git -C dir -c k=v config …`). */
function subcommandIndex(args: string[]): number {
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i += 1) if (GIT_GLOBAL_WITH_VALUE.test(args[i]!)) i += 1;
  return i;
}

/** Section and key compare case-insensitively; a subsection (`remote.<name>.push`) keeps its case. */
function foldKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0 || first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

const GIT_GLOBAL_WITH_VALUE = /^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--config-env)$/;
const CONFIG_READ = /^(?:--get|--get-all|--get-regexp|--get-urlmatch|-l|--list|--get-color|--get-colorbool)$/;
const CONFIG_WITH_VALUE = /^(?:-f|--file|--blob|--type|--default|--comment|--value)$/;
const CONFIG_WRITE = /^(?:--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit)$/;

/** The keys a git command line sets: `-c k=v` and `--config-env=k=VAR` before the subcommand, `clone --config`, `git config`. */
export function writtenGitSettings(args: string[]): string[] {
  const keys: string[] = [];
  const keyOf = (assignment: string) => assignment.split('=')[0]!.replace(/^["']/, '');
  const i = subcommandIndex(args);
  for (let j = 0; j < i; j += GIT_GLOBAL_WITH_VALUE.test(args[j]!) ? 2 : 1) {
    const arg = args[j]!;
    if (arg === '-c' || arg === '--config-env') keys.push(keyOf(args[j + 1] ?? ''));
    else if (arg.startsWith('-c') && !arg.startsWith('--')) keys.push(keyOf(arg.slice(2)));
    else if (arg.startsWith('--config-env=')) keys.push(keyOf(arg.slice('--config-env='.length)));
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === 'clone') {
    rest.forEach((arg, j) => {
      if (arg === '-c' || arg === '--config') keys.push(keyOf(rest[j + 1] ?? ''));
      else if (arg.startsWith('--config=')) keys.push(keyOf(arg.slice('--config='.length)));
      else if (/^-c[^-]/.test(arg)) keys.push(keyOf(arg.slice(2)));
    });
  }
  if (sub === 'config') keys.push(...configWrites(rest));
  return keys.filter((key) => key !== '');
}

/** `git config k v`, `--add`/`--unset`/`--replace-all k`, `set`/`unset k`, sections renamed or removed, `-e`; reads write nothing. */
function configWrites(args: string[]): string[] {
  const positional: string[] = [];
  let write = false;
  for (let j = 0; j < args.length; j += 1) {
    const arg = args[j]!;
    if (CONFIG_READ.test(arg)) return [];
    if (CONFIG_WRITE.test(arg)) write = true;
    if (arg === '-e' || arg === '--edit') return ['(the whole configuration file, in an editor)'];
    if (CONFIG_WITH_VALUE.test(arg)) j += 1;
    else if (!arg.startsWith('-')) positional.push(arg);
  }
  const verb = positional[0];
  if (verb === 'get' || verb === 'list') return [];
  if (verb === 'edit') return ['(the whole configuration file, in an editor)'];
  if (verb === 'set' || verb === 'unset' || verb === 'rename-section' || verb === 'remove-section') return positional.slice(1, 2);
  return write || positional.length >= 2 ? positional.slice(0, 1) : [];
}

/** Class D: every assignment a command carries (before it, through env, export/declare, or alone) must be listed. */
export function environmentFindings(command: SimpleCommand, policy: CommandPolicy): SettingFinding[] {
  const allow = (policy.env_allow ?? DEFAULT_ENV_ALLOW).map(allowPattern);
  const exported = ['export', 'declare', 'typeset', 'local', 'readonly'].includes(command.program) ? command.args.filter((arg) => /^[A-Za-z_]\w*=/.test(arg)) : [];
  return [...command.env, ...exported]
    .filter((assignment) => !allow.some((pattern) => pattern.test(unquote(assignment))))
    .map((assignment) => {
      const name = assignment.slice(0, assignment.indexOf('='));
      return { id: 'env-unlisted', reason: `it sets the environment variable ${name}, which is not on commands.env_allow: a variable is an option the command line does not show, so only the listed assignments may be set` };
    });
}

function unquote(assignment: string): string {
  const at = assignment.indexOf('=');
  return `${assignment.slice(0, at + 1)}${assignment.slice(at + 1).replace(/^(["'])(.*)\1$/, '$2')}`;
}

function allowPattern(entry: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const [name, ...value] = entry.split('=');
  const source = value.length === 0 ? '[\\w.,:/@+=-]*' : value.join('=').split('*').map(escape).join('[\\w.,:/@+-]*');
  return new RegExp(`^${escape(name!)}=${source}$`);
}

/**
 * Class B: a program with deny rules whose arguments come from an expansion, a glob or stdin cannot be
 * checked: `git push origin *` pushes with `--force` when a file is named so, `rm *` recurses past a `-rf`.
 * A quoted glob (`'*.ts'`) is one literal word and passes.
 */
export function runtimeArgumentFindings(command: SimpleCommand, policy: CommandPolicy): SettingFinding[] {
  const guarded = GUARDED_PROGRAMS.has(command.program) || policy.deny.some((rule) => rule.program?.includes(command.program));
  if (!guarded) return [];
  const fromStdin = command.via === 'xargs' || command.via === 'parallel' || (command.via === 'find' && command.args.some((arg) => arg.includes('{}')));
  if (!fromStdin && !command.expanded && !command.globbed) return [];
  return [{ id: 'runtime-arguments', reason: `${command.program} has deny rules, and it gets ${runtimeSource(command, fromStdin)}: the checker cannot see the value, which could be one of the flags they deny` }];
}

function runtimeSource(command: SimpleCommand, fromStdin: boolean): string {
  if (fromStdin) return `arguments found at run time (${command.via === 'find' ? "find's {}" : `stdin through ${command.via}`})`;
  if (command.expanded) return 'a variable or command substitution';
  return 'an unquoted glob or brace expansion (the file names it matches, a file named -f or --force included)';
}
