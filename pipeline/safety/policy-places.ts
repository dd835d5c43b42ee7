/**
 * What a repository's own policy may add to the two allowlists of places: `build_dirs` (where a rule may
 * delete recursively) and `hosts` (what a rule's command may reach). Both widen what passes as they grow,
 * and a hostile repository writes its own policy, so an entry must name one place of the kind the list is
 * for: a build directory is a plain relative path inside the repository (not its root, not `.git`, no
 * `..`, no `~`, `$` or glob), a host is a plain DNS name of two labels or more that is no bare public
 * suffix (`com`, `co.uk` would allow every host under it: hosts match their subdomains) and no IP literal.
 */

/** Why a build directory entry is refused, or null when it names a directory inside the repository. */
export function buildDirProblem(entry: string): string | null {
  const path = normalBuildDir(entry);
  // Read after folding too: `.//etc` folds to `/etc`, `./~` to `~`.
  if ([entry.trim(), path].some((p) => /^(?:[/\\~]|[A-Za-z]:)/.test(p))) return 'a path outside the repository';
  if (path === '') return 'the repository itself';
  if (/[$`*?[\]{}\\\s\u0000-\u001f"']/.test(path) || path.startsWith('-')) return 'not a plain path';
  const segments = path.split('/');
  if (segments.includes('..')) return 'a path that climbs out with ..';
  if (segments.includes('.')) return 'not a plain path';
  if (segments.some((segment) => segment.toLowerCase() === '.git')) return 'the git directory';
  return null;
}

/** `./dist/` and `dist` are one directory, as the recursive-delete check compares them. */
export function normalBuildDir(entry: string): string {
  return entry.trim().replace(/\/{2,}/g, '/').replace(/^(?:\.\/)+/, '').replace(/\/+$/, '').replace(/^\.$/, '');
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Second-level names registries sell under (`co.uk`, `com.au`): as a host entry they cover a whole country's names. */
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'gov', 'edu', 'ac', 'or', 'ne', 'go', 'mil', 'nom', 'ltd', 'plc', 'sch', 'gob', 'gv', 'biz', 'info', 'me', 'nic', 'web']);

/** Why a host entry is refused, or null when it names one host (and its subdomains). */
export function hostProblem(entry: string): string | null {
  const host = entry.trim().toLowerCase().replace(/\.$/, '');
  if (host.includes('*')) return 'a wildcard';
  if (/^\d+(?:\.\d+){0,3}(?:\/\d+)?$|:|^\[/.test(host)) return 'an IP address or range';
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label))) return 'not a plain host name';
  if (labels.length < 2) return 'a top-level name (every host under it would pass)';
  if (/^\d+$/.test(labels.at(-1)!)) return 'an IP address or range';
  if (labels.length === 2 && SECOND_LEVEL.has(labels[0]!) && labels[1]!.length === 2) return 'a public suffix (every host under it would pass)';
  return null;
}
