/**
 * Every git setting that names a program (git-config(1); `git help --config` lists the names), and why
 * none of them runs a program of the repository's during a night. git-safety.ts does the neutralising;
 * this is its account, one line per setting, checked against the names the installed git lists
 * (test/unit/git-program-settings.test.ts): a git that adds such a setting fails that test until it is
 * placed here.
 *
 * - `fixed`: a `-c` of FIXED_SAFE_CONFIG on every command (`remote: true`: also on the other side of a
 *   local push or fetch, LOCAL_PACK_ARGS); `settings` are those `-c` keys.
 * - `probed`: the repository's values are read and overridden (git-safety.ts configOverrides).
 * - `environment`: an environment variable overrides it (git-safety.ts gitEnvironment).
 * - `pack-args`: the push and fetch command lines name git's own pack programs.
 * - `protected`: git reads it only from system, global and command-line config, never a repository's.
 * - `not-run`: no command sleep-cycle runs reaches it (the commands: rev-parse, symbolic-ref, show,
 *   config, check-ignore, read-tree, hash-object, update-index, write-tree, commit-tree, update-ref,
 *   reset, diff --cached, log, remote get-url, ls-remote, fetch, push).
 * - `not-a-program`: the name matches the words git uses for programs, the value is something else.
 */

export type ProgramSettingHow = 'fixed' | 'probed' | 'environment' | 'pack-args' | 'protected' | 'not-run' | 'not-a-program';

export interface ProgramSetting {
  how: ProgramSettingHow;
  why: string;
  /** `fixed`: the `-c` keys that neutralise it. */
  settings?: string[];
  /** `fixed`: also set for the other side of a local transport. */
  remote?: boolean;
}

const SIGNING = 'commit.gpgSign=false, push.gpgSign=false and log.showSignature=false: nothing is signed or shown with its signature; a remote verifies a push certificate only when one is sent, and none is';
const TOOLS = 'only difftool, mergetool, git gui, help --web, instaweb and send-email run it, and sleep-cycle runs none of them';

/** Keys as `git help --config` prints them, in lower case. */
export const PROGRAM_SETTINGS: Record<string, ProgramSetting> = {
  'core.hookspath': { how: 'fixed', settings: ['core.hooksPath'], remote: true, why: '/dev/null is no folder: no hook of any name runs, on either side' },
  'core.fsmonitor': { how: 'fixed', settings: ['core.fsmonitor'], remote: true, why: 'off on both sides (core.useBuiltinFSMonitor, its old name, too on ours)' },
  'core.alternaterefscommand': { how: 'fixed', settings: ['core.alternateRefsCommand'], remote: true, why: 'empty on both sides: fetch-pack and receive-pack list the alternates\' refs without it (git reports it cannot run "")' },
  'core.pager': { how: 'fixed', settings: ['core.pager'], why: 'cat, and GIT_PAGER=cat besides' },
  'pager.<cmd>': { how: 'environment', why: 'GIT_PAGER=cat wins over it, and a pager starts only when stdout is a terminal (it is a pipe)' },
  'diff.external': { how: 'fixed', settings: ['diff.external'], why: 'empty, and GIT_EXTERNAL_DIFF is removed from the environment' },
  'gpg.program': { how: 'fixed', settings: ['commit.gpgSign', 'push.gpgSign', 'log.showSignature'], why: SIGNING },
  'gpg.<format>.program': { how: 'fixed', settings: ['commit.gpgSign', 'push.gpgSign', 'log.showSignature'], why: SIGNING },
  'gpg.ssh.defaultkeycommand': { how: 'fixed', settings: ['commit.gpgSign', 'push.gpgSign'], why: SIGNING },
  'filter.<driver>.clean': { how: 'probed', why: 'every driver a config names is emptied (any scope); hash-object runs with --no-filters' },
  'filter.<driver>.smudge': { how: 'probed', why: 'as filter.<driver>.clean; nothing is checked out' },
  'filter.<driver>.process': { how: 'probed', why: 'as filter.<driver>.clean' },
  'diff.<driver>.command': { how: 'probed', why: 'every driver a config names is emptied; show and diff run with --no-textconv / --no-ext-diff' },
  'diff.<driver>.textconv': { how: 'probed', why: 'as diff.<driver>.command' },
  'credential.helper': { how: 'probed', why: "the repository's helpers are reset (an empty value), the user's own added back; credential.<url>.helper likewise" },
  'core.sshcommand': { how: 'probed', why: "the repository's value is replaced by the user's, or ssh" },
  'core.askpass': { how: 'probed', why: "the repository's value is replaced by the user's, or emptied; GIT_TERMINAL_PROMPT=0" },
  'core.gitproxy': { how: 'environment', why: 'git keeps the first value it reads (a -c cannot win): GIT_PROXY_COMMAND is set empty when the repository sets one' },
  'remote.<name>.vcs': { how: 'probed', why: 'a value that is not a plain helper name (a path such as x/../run.sh, found from the work tree) is emptied: the push is refused' },
  'remote.<name>.receivepack': { how: 'pack-args', why: 'push names --receive-pack (git-receive-pack, or for a local remote git with our -c settings)' },
  'remote.<name>.uploadpack': { how: 'pack-args', why: 'ls-remote and fetch name --upload-pack likewise' },
  'uploadpack.packobjectshook': { how: 'protected', why: "git reads it only from protected config: a repository's (or a local remote's) value is ignored" },
  'core.editor': { how: 'not-run', why: 'commits are made by commit-tree -m; no command opens an editor' },
  'sequence.editor': { how: 'not-run', why: 'no rebase' },
  'alias.*': { how: 'not-run', why: 'an alias never replaces a built-in command, and sleep-cycle runs only built-ins' },
  'merge.<driver>.driver': { how: 'not-run', why: 'no merge' },
  'browser.<tool>.cmd': { how: 'not-run', why: TOOLS },
  'browser.<tool>.path': { how: 'not-run', why: TOOLS },
  'diff.guitool': { how: 'not-run', why: TOOLS },
  'diff.tool': { how: 'not-run', why: TOOLS },
  'difftool.<tool>.cmd': { how: 'not-run', why: TOOLS },
  'difftool.<tool>.path': { how: 'not-run', why: TOOLS },
  'guitool.<name>.cmd': { how: 'not-run', why: TOOLS },
  'help.browser': { how: 'not-run', why: TOOLS },
  'instaweb.browser': { how: 'not-run', why: TOOLS },
  'web.browser': { how: 'not-run', why: TOOLS },
  'man.<tool>.cmd': { how: 'not-run', why: TOOLS },
  'man.<tool>.path': { how: 'not-run', why: TOOLS },
  'merge.guitool': { how: 'not-run', why: TOOLS },
  'merge.tool': { how: 'not-run', why: TOOLS },
  'mergetool.<tool>.cmd': { how: 'not-run', why: TOOLS },
  'mergetool.<tool>.path': { how: 'not-run', why: TOOLS },
  'sendemail.cccmd': { how: 'not-run', why: TOOLS },
  'sendemail.tocmd': { how: 'not-run', why: TOOLS },
  'sendemail.sendmailcmd': { how: 'not-run', why: TOOLS },
  'http.proxy': { how: 'not-a-program', why: 'a proxy URL (core.gitProxy is the program)' },
  'remote.<name>.proxy': { how: 'not-a-program', why: 'a proxy URL' },
  'include.path': { how: 'not-a-program', why: 'a config file git reads: git-files.ts checks it is a regular file' },
  'includeif.<condition>.path': { how: 'not-a-program', why: 'as include.path' },
  'gitcvs.dbdriver': { how: 'not-a-program', why: "a database driver's name for git-cvsserver" },
  'diff.<driver>.cachetextconv': { how: 'not-a-program', why: 'a boolean' },
  'core.fsmonitorhookversion': { how: 'not-a-program', why: 'a number' },
  'notes.rewrite.<command>': { how: 'not-a-program', why: 'a boolean per rewriting command (amend, rebase)' },
  'color.pager': { how: 'not-a-program', why: 'a boolean' },
  'column.clean': { how: 'not-a-program', why: 'a layout' },
  'advice.ignoredhook': { how: 'not-a-program', why: 'a message toggle' },
  'advice.waitingforeditor': { how: 'not-a-program', why: 'a message toggle' },
};

/**
 * The words that may make a setting a program: its variable name (the last part, git's `<placeholder>`
 * brackets dropped) ends in one. Deliberately wide: a false match costs a `not-a-program` line.
 */
export const PROGRAM_WORDS = /(cmd|command|program|helper|hook|hookspath|proxy|textconv|editor|pager|driver|askpass|browser|tool|^vcs|receivepack|uploadpack|fsmonitor|^process|^clean|^smudge|^path)$/;

/** Whether `key` (as `git help --config` prints it) may name a program. */
export function mayNameProgram(key: string): boolean {
  return key === 'alias.*' || PROGRAM_WORDS.test(key.toLowerCase().split('.').at(-1)!.replace(/[<>]/g, ''));
}
