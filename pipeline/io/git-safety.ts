/**
 * Git settings that run a program, neutralised for every git command sleep-cycle runs. The repository
 * is untrusted (a clone, a CI checkout, a colleague's workspace): its `.git/config`, the files that
 * config includes and its `.gitattributes` can name hooks, a file-system monitor, clean/smudge filters,
 * diff drivers, a signing program, pack programs or credential helpers, and git would run them inside
 * our run. Command-line `-c` settings win over every config file, so each is overridden there.
 * (git-config(1) "core.hooksPath", "core.fsmonitor", "filter.<driver>.*", "diff.<driver>.*",
 * "commit.gpgSign", "remote.<name>.uploadpack"; githooks(5) for the hooks plumbing commands run:
 * reference-transaction, post-index-change, pre-push, pre-auto-gc.) Every setting git documents that names a
 * program, and how it is kept from running, is listed in git-program-settings.ts.
 */

/** Always set: hooks (any name, from any hooks directory), fsmonitor, signing, automatic gc, ext:: transport. */
export const FIXED_SAFE_CONFIG: readonly string[] = [
  // /dev/null is not a directory: no hook of any name can be found there.
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.useBuiltinFSMonitor=false',
  'core.pager=cat',
  // commit-tree signs when commit.gpgSign is set, running gpg.program; log shows signatures through it.
  'commit.gpgSign=false',
  // A signed push (push.gpgSign true, or if-asked against a remote that asks) runs gpg.program too.
  'push.gpgSign=false',
  'log.showSignature=false',
  // An automatic gc runs the pre-auto-gc hook and repacks in the background of our run.
  'gc.auto=0',
  'maintenance.auto=false',
  // `ext::<command>` remotes (also reached through url.<base>.insteadOf) run a shell command.
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'push.recurseSubmodules=no',
  'diff.external=',
  // git log reads .mailmap (and mailmap.file) whenever it runs, to print names none of our formats use.
  'log.mailmap=false',
  // A fetch (fetch-pack) lists the refs of the repository's alternates through this shell command. An
  // empty value runs nothing (git reports it cannot run "" and goes on without those refs).
  'core.alternateRefsCommand=',
];

/**
 * Given on the command line of push, fetch and ls-remote: `remote.<name>.uploadpack` and `receivepack`
 * take the first value git meets (the repository's), so a `-c` cannot replace them; these flags do.
 */
export const PACK_ARGS = { push: '--receive-pack=git-receive-pack', fetch: '--upload-pack=git-upload-pack' } as const;

/**
 * The other side of a local transport (a path or file:// remote) is a git process on this machine, in a
 * repository the untrusted one names: receive-pack would run that repository's hooks (pre-receive,
 * update, post-receive, reference-transaction), check files out through its filters
 * (`receive.denyCurrentBranch=updateInstead`) and gc it. git drops our `-c` settings for a local
 * transport (GIT_CONFIG_PARAMETERS is cleared), so they are written into the program it runs, which a
 * local transport starts through the shell. A local mirror's own hooks do not run for a night's push.
 */
const REMOTE_SAFE_CONFIG = [
  'core.hooksPath=/dev/null', 'core.fsmonitor=false', 'receive.denyCurrentBranch=refuse', 'receive.denyDeleteCurrent=refuse', 'receive.autogc=false', 'gc.auto=0', 'maintenance.auto=false', 'uploadpack.allowFilter=false',
  // receive-pack advertises the refs of the remote's alternates through this shell command.
  'core.alternateRefsCommand=',
];
const remoteProgram = (program: string) => ['git', ...asConfigArgs(REMOTE_SAFE_CONFIG), program].join(' ');
export const LOCAL_PACK_ARGS = { push: `--receive-pack=${remoteProgram('receive-pack')}`, fetch: `--upload-pack=${remoteProgram('upload-pack')}` } as const;

/**
 * Whether git reaches `url` through its local transport (git's url.c: `file://`, or no `scheme://` and
 * a `/` before any `:`, which is how an scp-like `host:path` differs from a path). `<helper>::` URLs are
 * remote helpers (ext:: is off; others talk to their own servers).
 */
export function isLocalUrl(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || url.includes('::')) return false;
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** The keys `configOverrides` reads, as the pattern `git config --get-regexp` takes. */
export const PROBED_KEYS = '^(filter\\.|diff\\.|credential\\.|core\\.sshcommand$|core\\.gitproxy$|core\\.askpass$|core\\.excludesfile$|core\\.attributesfile$|mailmap\\.file$|remote\\..*\\.vcs$)';

/** Settings whose value is a file git reads (git-files.ts checks it is a regular file). */
export const FILE_KEYS = ['core.excludesfile', 'core.attributesfile', 'mailmap.file'];

/**
 * The environment of every git process: the user's, with what a setting cannot fix. `core.gitProxy`
 * keeps the first value git reads (the repository's, before any `-c`), and GIT_PROXY_COMMAND overrides
 * every value of it: the user's own variable stays, else it is set empty (no proxy) when the repository
 * sets one. Git never prompts (a night has no one to answer), never pages, never runs an external diff.
 */
export function gitEnvironment(env: NodeJS.ProcessEnv, entries: readonly ConfigEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  delete out.GIT_EXTERNAL_DIFF;
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_PAGER = 'cat';
  if (out.GIT_PROXY_COMMAND === undefined && entries.some((entry) => entry.key === 'core.gitproxy' && REPO_SCOPES.has(entry.scope))) out.GIT_PROXY_COMMAND = '';
  return out;
}

/** Scopes whose values come from the repository itself (its config and the files it includes). */
const REPO_SCOPES = new Set(['local', 'worktree']);

export interface ConfigEntry {
  scope: string;
  key: string;
  value: string;
}

/** `git config --null --show-scope --get-regexp` output: `scope\0key\nvalue\0` per entry. */
export function parseConfigListing(text: string): ConfigEntry[] {
  const parts = text.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [scope, keyValue] = [parts[i]!, parts[i + 1]!];
    const cut = keyValue.indexOf('\n');
    // git prints section and name in lower case and the subsection (a driver's, a remote's name) as written.
    entries.push({ scope, key: cut < 0 ? keyValue : keyValue.slice(0, cut), value: cut < 0 ? '' : keyValue.slice(cut + 1) });
  }
  return entries;
}

/**
 * The `-c` settings that neutralise what the probed entries configure. Filters and diff drivers are
 * disabled whatever file set them (the pipeline never needs one: it hashes its own content). Credential
 * helpers, the ssh command, askpass and the git proxy are replaced only when the repository set them:
 * the user's own (global, system) ones keep working for the nightly push.
 */
export function configOverrides(entries: readonly ConfigEntry[]): { settings: string[]; refused: string[] } {
  const out = new Set<string>();
  const refused: string[] = [];
  for (const { scope, key } of entries) {
    // `-c a=b.clean=` would set `a`, not the key: such a name cannot be overridden on a command line.
    if (key.includes('=')) {
      refused.push(key);
      continue;
    }
    const driver = /^(filter|diff)\.(.+)\.([a-z]+)$/.exec(key);
    if (driver?.[1] === 'filter' && ['clean', 'smudge', 'process', 'required'].includes(driver[3]!)) {
      for (const field of ['clean', 'smudge', 'process']) out.add(`filter.${driver[2]}.${field}=`);
      out.add(`filter.${driver[2]}.required=false`);
    } else if (driver?.[1] === 'diff' && ['textconv', 'command'].includes(driver[3]!)) {
      out.add(`diff.${driver[2]}.textconv=`);
      out.add(`diff.${driver[2]}.command=`);
    } else if (REPO_SCOPES.has(scope)) {
      for (const setting of repoOnlyOverride(key, entries)) out.add(setting);
    }
  }
  return { settings: [...out], refused };
}

/** The replacement of a repository's own credential helper, ssh command, askpass or proxy. */
function repoOnlyOverride(key: string, entries: readonly ConfigEntry[]): string[] {
  const userValues = entries.filter((entry) => entry.key === key && !REPO_SCOPES.has(entry.scope)).map((entry) => `${key}=${entry.value}`);
  if (/^credential\.(?:.+\.)?helper$/.test(key)) {
    // An empty value resets the list of helpers; the user's own are added back after it.
    return [`${key}=`, ...userValues];
  }
  if (key === 'core.sshcommand') return [userValues.at(-1) ?? 'core.sshCommand=ssh'];
  // `remote.<name>.vcs` runs `git remote-<vcs>`, looked up like any git command: a value with a `/`
  // (`x/../run.sh`, with a folder `git-remote-x` in the work tree) is a path from the work tree, a
  // program of the repository's. A plain name is a helper installed on the machine, as a
  // `<helper>::<url>` remote names one. Empty: git fails to find `remote-` and the push is refused.
  const vcs = /^remote\.(.+)\.vcs$/.exec(key);
  if (vcs) {
    const values = entries.filter((entry) => entry.key === key && REPO_SCOPES.has(entry.scope)).map((entry) => entry.value);
    return values.every((value) => HELPER_NAME.test(value)) ? [] : [userValues.at(-1) ?? `${key}=`];
  }
  // core.gitProxy keeps the first value git reads, so this -c alone does not win: gitEnvironment sets
  // GIT_PROXY_COMMAND, which does.
  if (key === 'core.gitproxy' || key === 'core.askpass') return [userValues.at(-1) ?? `${key}=`];
  return [];
}

/** A remote helper's name as installed programs are named (git-remote-<name> on PATH or in git's exec path). */
const HELPER_NAME = /^[A-Za-z0-9][A-Za-z0-9+._-]*$/;

/** `-c key=value` arguments for a git command line. */
export function asConfigArgs(settings: readonly string[]): string[] {
  return settings.flatMap((setting) => ['-c', setting]);
}
