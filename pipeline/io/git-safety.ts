/**
 * Git settings that run a program, neutralised for every git command sleep-cycle runs. The repository
 * is untrusted (a clone, a CI checkout, a colleague's workspace): its `.git/config`, the files that
 * config includes and its `.gitattributes` can name hooks, a file-system monitor, clean/smudge filters,
 * diff drivers, a signing program, pack programs or credential helpers, and git would run them inside
 * our run. Command-line `-c` settings win over every config file, so each is overridden there.
 * (git-config(1) "core.hooksPath", "core.fsmonitor", "filter.<driver>.*", "diff.<driver>.*",
 * "commit.gpgSign", "remote.<name>.uploadpack"; githooks(5) for the hooks plumbing commands run:
 * reference-transaction, post-index-change, pre-push, pre-auto-gc.)
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
];

/**
 * Given on the command line of push, fetch and ls-remote: `remote.<name>.uploadpack` and `receivepack`
 * take the first value git meets (the repository's), so a `-c` cannot replace them; these flags do.
 */
export const PACK_ARGS = { push: '--receive-pack=git-receive-pack', fetch: '--upload-pack=git-upload-pack' } as const;

/** The keys `configOverrides` reads, as the pattern `git config --get-regexp` takes. */
export const PROBED_KEYS = '^(filter\\.|diff\\.|credential\\.|core\\.sshcommand$|core\\.gitproxy$|core\\.askpass$)';

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
  if (key === 'core.gitproxy' || key === 'core.askpass') return [userValues.at(-1) ?? `${key}=`];
  return [];
}

/** `-c key=value` arguments for a git command line. */
export function asConfigArgs(settings: readonly string[]): string[] {
  return settings.flatMap((setting) => ['-c', setting]);
}
