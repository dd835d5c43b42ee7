/**
 * Writes into git's own directory. `.git` holds the configuration every later git command obeys
 * (`core.hooksPath`, `core.fsmonitor`, a remote's URL), hooks that run as shell at the next commit, and
 * the objects and refs that are the history: a copy over `.git/config`, a `chmod -R 000 .git` or a
 * redirect into `.git/hooks/post-commit` breaks the repository or runs code, however it is spelled. So
 * any path in `.git` named by a program that can change files is refused; reading one (`cat .git/HEAD`)
 * stays allowed. A class, not a list of writers: the programs that only read are the short list.
 */
export interface GitDirCommand {
  program: string;
  args: string[];
  outputs: string[];
}

/** Programs that never change a file named in their arguments (a redirect of theirs is judged on its own). */
const READERS = new Set(['cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ls', 'stat', 'file', 'diff', 'cmp', 'jq', 'which', 'echo', 'printf', 'cd', 'pwd', 'less', 'more', 'od', 'xxd', 'hexdump', 'strings', 'tree', 'du', 'realpath', 'readlink', 'basename', 'dirname', 'test', '[', 'md5sum', 'sha1sum', 'sha256sum', 'cksum', 'lsof']);
/** git subcommands that only read the repository. Any other (`git mv x .git/hooks/y`, `git config -f .git/config`) may write the path it names. */
const GIT_READERS = new Set(['log', 'show', 'diff', 'status', 'blame', 'grep', 'ls-files', 'rev-parse', 'cat-file', 'describe', 'shortlog']);
/** find writes through its actions; without one it only lists. */
const FIND_ACTIONS = /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/;
/** sort writes its `-o` file. */
const SORT_OUTPUT = /^(?:-o.*|--output(?:=.*)?)$/;

export function writesIntoGitDir(command: GitDirCommand, subcommand: string | null): boolean {
  if (command.outputs.some(inGitDir)) return true;
  if (!writesArguments(command, subcommand)) return false;
  return command.args.some((arg) => pathsIn(arg).some(inGitDir));
}

function writesArguments(command: GitDirCommand, subcommand: string | null): boolean {
  if (command.program === 'git') return !GIT_READERS.has(subcommand ?? '');
  if (command.program === 'find') return command.args.some((arg) => FIND_ACTIONS.test(arg));
  if (command.program === 'sort') return command.args.some((arg) => SORT_OUTPUT.test(arg));
  return !READERS.has(command.program);
}

/** An argument as a path, the value of `of=…` / `--target-directory=…`, and a short option's attached value (`-t.git`). */
function pathsIn(arg: string): string[] {
  const bare = arg.replace(/^["']|["']$/g, '');
  const paths = [bare];
  if (bare.includes('=')) paths.push(bare.slice(bare.indexOf('=') + 1));
  if (/^-[A-Za-z]./.test(bare)) paths.push(bare.slice(2));
  return paths;
}

/**
 * A path with a `.git` component once `.` and `..` are resolved, as a case-insensitive file system
 * (macOS, Windows) reads it: `.GIT/config`, `src/../.git/hooks`, `./.git`, Windows' short name `GIT~1`
 * and a trailing dot or space Windows drops (`.git./config`).
 */
export function inGitDir(path: string): boolean {
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.some((part) => /^(?:\.git[. ]*|git~\d+)$/i.test(part));
}
