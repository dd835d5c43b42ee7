import type { BuiltinCheck, CommandPolicy } from './command-policy.js';
import { writesIntoGitDir } from './git-dir-write.js';

/** One simple command as the shell would run it (quotes removed by the parser). */
export interface SimpleCommand {
  program: string;
  args: string[];
  /** `NAME=value` assignments before the command. */
  env: string[];
  /** Targets of `>`, `>>`, `<`. */
  redirects: string[];
  /** The redirect targets it writes (`>`, `>>`, `&>`, `<>`; not `<`). */
  outputs: string[];
  /** The commands of the pipeline this one stands in (itself included), in order; null when alone. */
  pipeline: SimpleCommand[] | null;
  /** Runs inside a command substitution `$(…)`. */
  substituted: boolean;
  /** The wrapper or launcher that runs it (`env`, `npx`), if any. */
  via?: string;
  /** Some argument is a parameter, command or arithmetic expansion (`$F`, `$(…)`): its value is known only at run time. */
  expanded?: boolean;
  /** Some argument is an unquoted glob or brace expansion (`*`, `7??`, `[ab]`, `{a,b}`): the file names it becomes are known only at run time. */
  globbed?: boolean;
}

/**
 * The checks a flag list cannot express. Each takes the command (after wrappers and launchers are
 * unwrapped) and says whether it does the thing the deny rule names.
 */
export function violatesBuiltin(check: BuiltinCheck, command: SimpleCommand, policy: CommandPolicy): boolean {
  return CHECKS[check](command, policy);
}

const DELETERS = new Set(['rm', 'unlink', 'rmdir', 'shred', 'truncate', 'srm', 'trash', 'trash-put']);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'aria2c', 'iwr', 'irm', 'invoke-webrequest', 'invoke-restmethod', 'lwp-download']);
const INTERPRETERS = /^(?:(?:ba|da|z|k|fi|c|tc)?sh|python[\d.]*|perl|ruby|node|deno|bun|php|source|\.|eval|exec|xargs|iex|invoke-expression|pwsh|powershell)$/;
const ENV_DUMPERS = new Set(['printenv', 'env', 'set', 'export', 'declare', 'typeset', 'compgen']);
/** Programs whose job is to send data elsewhere: a rule has no use for them. */
const SENDERS = new Set(['nc', 'ncat', 'netcat', 'socat', 'scp', 'rsync', 'sftp', 'ftp', 'telnet']);
const UPLOAD_FLAG = /^(?:-T|--upload-file|-F|--form|--post-file|--body-file)$/;
const DATA_FLAG = /^(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?)$/;
const TEST_RUNNERS = new Set(['pytest', 'py.test', 'tox', 'nox']);

/** Programs the builtin checks read (besides those deny rules name): their arguments must be visible (command-settings.ts). */
export const GUARDED_PROGRAMS: ReadonlySet<string> = new Set(['git', 'rm', 'mv', 'cp', 'ln', 'chmod', 'chown', 'install', 'mkdir', 'find', ...DELETERS, ...DOWNLOADERS, ...ENV_DUMPERS, ...SENDERS, ...TEST_RUNNERS]);
/** Programs that put files at a destination: mv, cp, ln (and rsync, also refused as a sender). */
const PLACERS = new Set(['mv', 'cp', 'ln', 'rsync']);

/** git's subcommand after its global options (`git -C dir -c k=v mv`). */
const gitSubcommand = (args: string[]): string | null => {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += /^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path)$/.test(args[i]!) ? 2 : 1;
  return args[i] ?? null;
};
const operands = (command: SimpleCommand): string[] => command.args.filter((arg) => !arg.startsWith('-'));
const normalPath = (path: string): string => path.replace(/^["']|["']$/g, '').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
const shortFlag = (command: SimpleCommand, letters: string): boolean => command.args.some((arg) => /^-[A-Za-z]+$/.test(arg) && [...letters].some((l) => arg.includes(l)));

const CHECKS: Record<BuiltinCheck, (command: SimpleCommand, policy: CommandPolicy) => boolean> = {
  /** rm -r (any spelling) of anything but a listed build directory: globs, `.`, `*`, `src` and `$VAR` included. */
  'recursive-delete': (command, policy) => {
    if (command.program !== 'rm') return false;
    const recursive = shortFlag(command, 'rR') || command.args.some((arg) => /^--recursive$|^--no-preserve-root$/.test(arg));
    if (!recursive) return false;
    // Without an operand the rule left out what it deletes (a clause cut where the parser stopped reading): anything.
    const targets = operands(command);
    return targets.length === 0 || targets.some((target) => !policy.build_dirs.includes(normalPath(target)));
  },
  /** Deleting inside `.git` (objects, refs, hooks, the lock a running git holds): rm, unlink, find -delete, git clean of .git. */
  'git-dir-delete': (command) => {
    const inGit = (path: string) => /^\.git(?:\/|$)/.test(normalPath(path)) || /(?:^|\/)\.git(?:\/|$)/.test(normalPath(path));
    if (DELETERS.has(command.program)) return operands(command).some(inGit);
    if (command.program === 'find') return operands(command).some(inGit) && command.args.some((arg) => /^-(?:delete|exec|execdir|ok|okdir)$/.test(arg));
    if (command.program === 'mv') return operands(command).slice(0, -1).some(inGit);
    return false;
  },
  /** Any write into `.git` (copy, move, link, redirect, permission or time change): see git-dir-write.ts. */
  'git-dir-write': (command) => writesIntoGitDir(command, command.program === 'git' ? gitSubcommand(command.args) : null),
  /** find's own delete action, or -exec/-ok running a deleter. */
  'find-delete': (command) => {
    if (command.program !== 'find') return false;
    return command.args.some((arg, i) => arg === '-delete' || (/^-(?:exec|execdir|ok|okdir)$/.test(arg) && DELETERS.has((command.args[i + 1] ?? '').replace(/^.*\//, ''))));
  },
  /** chmod granting write (or setuid/setgid) to group or others, or any permission to others explicitly. */
  'others-permission': (command) => {
    if (command.program !== 'chmod' && command.program !== 'install' && command.program !== 'mkdir') return false;
    const modes = command.program === 'chmod' ? operands(command).slice(0, 1) : command.args.flatMap((arg, i) => (arg === '-m' ? [command.args[i + 1] ?? ''] : arg.startsWith('--mode=') ? [arg.slice(7)] : []));
    return modes.some(grantsOthers);
  },
  /** A download piped into, or substituted into, something that runs it. */
  'download-to-shell': (command) => {
    if (DOWNLOADERS.has(command.program) && command.pipeline !== null) {
      const at = command.pipeline.indexOf(command);
      return command.pipeline.slice(at + 1).some((next) => INTERPRETERS.test(next.program));
    }
    // `bash -c "$(curl …)"`, `eval "$(wget …)"`, `python <(curl …)`: a download inside a substitution is never just data here.
    return DOWNLOADERS.has(command.program) && command.substituted;
  },
  /** The environment (with every token in it) printed, or a file sent to a host. */
  'environment-out': (command) => {
    if (ENV_DUMPERS.has(command.program)) {
      const dumps = command.program === 'printenv' || command.program === 'compgen' || command.args.length === 0 || command.args.some((arg) => /^-(?:p|x|e)$/.test(arg));
      if (dumps) return true;
    }
    if (command.args.some((arg) => /(?:^|\/)proc\/(?:self|\d+)\/environ$/.test(arg))) return true;
    if (SENDERS.has(command.program)) return true;
    if (!DOWNLOADERS.has(command.program)) return false;
    return command.args.some((arg, i) => UPLOAD_FLAG.test(arg) || (DATA_FLAG.test(arg) && (command.args[i + 1] ?? '').startsWith('@')) || /^--data[\w-]*=@/.test(arg));
  },
  /**
   * A deletion whose targets the command does not spell out: they come from stdin (`xargs rm`, `rm` with
   * no operand), from another command (`rm $(git ls-files)`), a variable, a glob or a placeholder (`rm -f
   * <*>`). What it deletes cannot be read from the rule, so it is refused by class, recursive or not
   * (find's own -delete/-exec is `find-delete`). `git rm` and `git clean` count as deleters too.
   */
  'unlisted-delete-targets': (command) => {
    const gitDelete = command.program === 'git' && ['rm', 'clean'].includes(command.args.find((a) => !a.startsWith('-')) ?? '');
    if (!DELETERS.has(command.program) && !gitDelete) return false;
    if (command.via === 'xargs' || command.via === 'parallel') return true;
    const targets = operands(command).slice(gitDelete ? 1 : 0);
    if (targets.length === 0) return !(gitDelete && command.args.includes('clean'));
    return targets.some((target) => /[$`*?[\]{}]|ANY_VALUE/.test(target));
  },
  /**
   * A move, copy or link into a listed build directory (`mv src dist/`, `cp -t build x`, `git mv a dist/a`):
   * a build directory is exempt from recursive-delete only while nothing but the build writes there, so a
   * rule may not put files into one (they would go with the next `rm -rf dist`).
   */
  'into-build-dir': (command, policy) => {
    const gitSub = command.program === 'git' ? operands(command)[0] : undefined;
    const inBuild = (path: string) => policy.build_dirs.includes(normalPath(path).split('/')[0] ?? '');
    // A worktree in a build directory holds uncommitted work the next `rm -rf dist` deletes.
    if (gitSub === 'worktree' && operands(command)[1] === 'add') return operands(command).slice(2, 3).some(inBuild);
    const gitMove = gitSub === 'mv';
    if (!PLACERS.has(command.program) && !gitMove) return false;
    // `-t dir`, `-rt dir`, `-tdir`, `--target-directory[=]dir`: the directory everything goes into.
    const targets = command.args.flatMap((arg, i) => {
      if (arg === '--target-directory') return [command.args[i + 1] ?? ''];
      if (arg.startsWith('--target-directory=')) return [arg.slice(19)];
      const short = /^-[A-Za-z]*?t(.*)$/.exec(arg);
      return short && !arg.startsWith('--') ? [short[1] || (command.args[i + 1] ?? '')] : [];
    });
    const places = operands(command).slice(gitMove ? 1 : 0);
    return [...targets, ...places.slice(-1)].some(inBuild);
  },
  /** A test run that deselects tests: pytest -k 'not …' / -k nothing, --deselect, --ignore, -p no:… */
  'tests-deselected': (command) => {
    if (!TEST_RUNNERS.has(command.program)) return false;
    return command.args.some((arg, i) => {
      const value = arg === '-k' ? (command.args[i + 1] ?? '') : arg.startsWith('-k') && arg.length > 2 ? arg.slice(2) : null;
      if (value !== null && (/\bnot\b|^\s*$|\bnothing\b|\bfalse\b|\bnone\b/i.test(value))) return true;
      return /^--(?:deselect|ignore(?:-glob)?|co|collect-only)(?:=|$)/.test(arg) || (arg === '-p' && /^no:/.test(command.args[i + 1] ?? ''));
    });
  },
};

/** Numeric: group or others write, setuid/setgid. Symbolic: any grant to o, or write/setuid to a, g or everyone. */
function grantsOthers(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) {
    const digits = mode.padStart(4, '0');
    const special = Number(digits[0]);
    const group = Number(digits[2]);
    const others = Number(digits[3]);
    return (special & 6) !== 0 || (group & 2) !== 0 || (others & 2) !== 0;
  }
  return mode.split(',').some((clause) => {
    const m = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!m) return true; // A mode chmod would not read the way we do is not given the benefit of the doubt.
    const [, who = '', op, perms = ''] = m;
    if (op === '-') return false;
    if (who.includes('o')) return perms !== '';
    return (who === '' || who.includes('a') || who.includes('g')) && /[ws]/.test(perms);
  });
}
