import { safeCommandName } from './quote.js';

/**
 * The known-failure table: what to do about a failure, chosen by the line that states its error (an
 * error line, or the template mined from it, whose variables read `<*>`). Written by us, never taken
 * from the logs: the offline synthesizer only quotes evidence, it never turns evidence into
 * instructions. Every entry is specific to the failure it names; a line no entry knows gets no advice
 * (null), never a generic "find out why".
 */
export interface KnownFailure {
  /** A stable name for the entry (tests and reports refer to it). */
  id: string;
  /** Matched against the error line. */
  test: RegExp;
  advice: string | ((match: RegExpMatchArray) => string);
}

/** A captured name: a real one, or `<*>` once the template miner has masked it. */
const NAME = String.raw`([\w@./+-]{1,60}|<\*>)`;

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  // Claude Code's own tools.
  { id: 'not-read-first', test: /has not been read yet|read it first before writing/i, advice: 'Read the file in this session before editing or writing it' },
  { id: 'edit-ambiguous', test: /found \S+ matches of the string to replace|old_string[^\n]{0,80}not unique/i, advice: 'include enough surrounding lines in old_string to match exactly one place, or set replace_all when every occurrence should change' },
  { id: 'edit-mismatch', test: /string to replace not found|old_string[^\n]{0,80}not found/i, advice: 'Read the file again and copy the exact current text, whitespace included, into the edit' },
  { id: 'read-too-large', test: /file content \(\S+ tokens\) exceeds maximum allowed tokens/i, advice: 'read large files in parts (offset and limit) or search them with Grep instead of reading them whole' },
  { id: 'response-too-large', test: /exceeds maximum allowed tokens|response \(\S+ tokens\)|prompt is too long|context length/i, advice: 'request smaller results (pagination, filters or a narrower query) so the response stays under the token limit' },
  { id: 'is-a-directory', test: /\bEISDIR\b|\bis a directory\b/i, advice: 'list a directory with Glob or ls instead of reading it as a file' },
  { id: 'user-rejected', test: /doesn't want to proceed with this tool use|tool use was rejected/i, advice: 'the user declined this call: ask before proposing the same change again' },
  { id: 'missing-parameter', test: /required parameter `?([\w.-]{1,40}|<\*>)`? is missing/i, advice: (m) => `pass every required parameter the tool's schema lists${named(m[1], ' (`', '` was missing)')}` },
  { id: 'unknown-agent-type', test: /agent type '[^'\n]{1,60}' not found/i, advice: 'use one of the agent types the error lists instead of inventing one' },
  { id: 'one-action', test: /exactly one action/i, advice: 'put exactly one action (one fenced command block) in each reply' },
  // Programs and packages that are not there.
  {
    id: 'command-not-found',
    // bash/zsh (`bash: line 1: foo: command not found`, `zsh: command not found: foo`) and dash (`sh: 1: foo: not found`).
    test: new RegExp(String.raw`(?:^|[\s:])${NAME}: command not found(?!:)|command not found: ${NAME}|^(?:\S*/)?(?:ba|da|k)?sh: (?:line )?(?:\d+|<\*>): ${NAME}: not found`, 'i'),
    advice: (m) => missingCommand(m[1] ?? m[2] ?? m[3]!),
  },
  { id: 'python-module-not-found', test: new RegExp(String.raw`No module named '?${NAME}'?`), advice: (m) => missingModule(m[1]!) },
  { id: 'node-module-not-found', test: /Cannot find (?:module|package) '([^'\n]{1,80})'|^(?![^\n]*Cannot find)[^\n]*ERR_MODULE_NOT_FOUND/, advice: (m) => missingNodeModule(m[1]) },
  { id: 'no-matching-distribution', test: /No matching distribution found|Could not find a version that satisfies/i, advice: 'check the package name and that a release supports this Python version before installing it again' },
  { id: 'externally-managed', test: /externally-managed-environment/i, advice: 'install into a virtual environment (`python -m venv .venv`) instead of the system Python' },
  { id: 'package-required', test: /\b(?:package|module|library) is required\b|is required\. Install with/i, advice: "install the optional package the error names with the project's own installer, or take the code path that does not need it" },
  { id: 'npm-lock-out-of-sync', test: /package\.json and package-lock\.json (?:or npm-shrinkwrap\.json )?are (?:not )?in sync|lock ?file (?:is )?(?:out of date|needs to be updated)/i, advice: 'update the lock file with a plain install (`npm install`), then commit it with package.json' },
  { id: 'npm-eresolve', test: /\bERESOLVE\b|could not resolve dependency/i, advice: 'align the conflicting peer dependency versions in package.json instead of retrying the same install' },
  { id: 'pytest-fixture-missing', test: /fixture '([^'\n]{1,60})' not found/, advice: (m) => missingFixture(m[1]!) },
  // Files, paths and databases.
  { id: 'script-not-found', test: /can't open file '?([^'\n]{1,200})'?: \[Errno 2\]/, advice: 'check the working directory and the script path (ls) before running it; create the script first if it is meant to exist' },
  { id: 'no-such-file', test: /file does not exist|no such file or directory|\bENOENT\b|cannot access '[^'\n]*'/i, advice: 'confirm the path exists (list or search the directory) before using it, instead of guessing file names' },
  { id: 'no-such-table', test: /no such table|relation "?[^"\n]{1,80}"? does not exist|Table '[^'\n]{1,80}' doesn't exist/i, advice: 'create the schema before querying it: run the migrations (or create the tables in the script setup) first' },
  { id: 'django-settings', test: /settings are not configured|DJANGO_SETTINGS_MODULE|AppRegistryNotReady/, advice: 'configure Django before using it in a standalone script: call settings.configure() and django.setup() first' },
  { id: 'django-app-label', test: /doesn't declare an explicit app_label/, advice: 'define test models inside an app listed in INSTALLED_APPS, or give them Meta.app_label' },
  { id: 'database-locked', test: /database is locked/i, advice: 'let the other connection finish (one writer at a time for SQLite) instead of retrying in a loop' },
  // Permissions, ports and locks.
  { id: 'script-not-executable', test: /(?:^|\s)(?:\S*\/)?[\w.-]+\.(?:sh|py|js|rb|pl): Permission denied/, advice: 'run the script through its interpreter (for example `bash script.sh`) or make it executable with `chmod +x` once' },
  { id: 'git-auth', test: /could not read Username for|Permission denied \(publickey\)|Authentication failed for/i, advice: 'git has no credentials for this remote here: ask the user to set up access instead of retrying' },
  { id: 'permission-denied', test: /permission denied|\bEACCES\b|\bEPERM\b|operation not permitted/i, advice: 'check the owner and mode of the path (`ls -l`) and write inside the project or a temp directory instead' },
  { id: 'port-in-use', test: /\bEADDRINUSE\b|address already in use|port \S+ is (?:already )?in use/i, advice: 'a server is already listening on that port: reuse it, stop the one started earlier, or pick a free port' },
  { id: 'git-index-lock', test: /index\.lock/i, advice: 'check for and clear a stale .git/index.lock (no other git process running) before retrying' },
  { id: 'dpkg-lock', test: /Could not get lock|Unable to acquire the dpkg frontend lock|dpkg was interrupted/i, advice: 'another package manager holds its lock: wait for it to finish instead of deleting the lock file' },
  // git.
  { id: 'merge-conflict', test: /\bCONFLICT \(|Merge conflict in|Automatic merge failed|unmerged (?:paths|files)|resolve your current index first/i, advice: 'resolve the conflict markers in the listed files, `git add` them and continue the merge or rebase before other git commands' },
  { id: 'no-upstream', test: /no upstream branch|has no upstream/i, advice: 'set the upstream on the first push of a new branch (`git push --set-upstream origin <branch>`)' },
  { id: 'push-rejected', test: /non-fast-forward|fetch first|\[rejected\]/i, advice: 'fetch and rebase on the remote branch before pushing again' },
  { id: 'local-changes-overwritten', test: /local changes to the following files would be overwritten/i, advice: 'commit or stash the local changes before switching branches or pulling' },
  { id: 'branch-exists', test: /a branch named '[^'\n]{1,100}' already exists/, advice: 'switch to the existing branch (`git switch <name>`) or choose a new name instead of creating it again' },
  { id: 'pathspec-unknown', test: /pathspec '[^'\n]{1,200}' did not match/, advice: 'check the branch or file name (`git branch -a`, `git status`) before using it' },
  { id: 'not-a-git-repo', test: /not a git repository/i, advice: 'run git from inside the repository (its root folder), not from a folder outside it' },
  // Time, network, resources.
  // A test runner's verdict (the error line of a failed test run: pytest, unittest, jest, go, sympy).
  { id: 'tests-failed', test: /^(?:\d+|<\*>) (?:failed|errors?)\b|^FAILED \((?:failures|errors)=|^Tests?:\s+(?:\d+|<\*>) failed|^tests finished: (?:\d+|<\*>) (?:failed|exceptions)|^--- FAIL:/i, advice: 'run the failing test on its own and read its first assertion error before changing code again' },
  { id: 'timeout', test: /timed? ?out|deadline exceeded|took too long/i, advice: 'run long commands with a narrower scope (one test file) or in the background instead of rerunning them unchanged' },
  // The host is never quoted (error-clause.ts), so a DNS failure needs its own entry to name what happened.
  { id: 'host-not-found', test: /\bENOTFOUND\b|getaddrinfo|could not resolve host|name or service not known|temporary failure in name resolution/i, advice: 'the host name does not resolve here: check its spelling and whether this environment has network access, instead of retrying the same request' },
  { id: 'connection-refused', test: /\bECONNREFUSED\b|connection refused/i, advice: 'nothing is listening at that address: start the service (or check host and port) before calling it' },
  { id: 'rate-limited', test: /rate.?limit|(?:status|HTTP|code|error)\W{0,3}429\b|\b429 Too Many|too many requests/i, advice: 'wait and retry with backoff, and batch the requests, instead of repeating them at once' },
  { id: 'out-of-memory', test: /out of memory|\bOOM\b|Killed$|JavaScript heap out of memory/i, advice: 'the process ran out of memory: run a smaller part of the work at a time' },
  // Code that does not parse.
  { id: 'syntax-error', test: /\b(?:SyntaxError|IndentationError|TabError)\b/, advice: 'check the file compiles (`python -m py_compile <file>` or the project linter) right after editing it, before running it' },
  { id: 'ts-type-error', test: /error TS\d+:/, advice: "run the type checker after each edit and fix the first error it reports before running the code" },
];

/** What a category alone says, for a signature the table does not know (one line per category, ours). */
const BY_CATEGORY: Record<string, string> = {
  not_read_first: 'Read the file in this session before editing or writing it',
  edit_mismatch: 'Read the file again and copy the exact current text, whitespace included, into the edit',
  not_found: 'confirm the path or resource exists before using it',
  dependency_missing: "install the project's dependencies before running its tools",
  too_large: 'request smaller results (pagination or filters) so the response stays under the limit',
  test_failure: 'run the failing test file alone and read its first assertion error before changing code again',
  network_error: 'check connectivity once and retry with backoff instead of repeating the request immediately',
  timeout: 'split the work into smaller calls or raise the timeout instead of retrying unchanged',
  permission_denied: 'check permissions and ownership instead of retrying the same call',
  hook_denied: 'read why the hook denied the call and change the approach instead of retrying',
  validation_error: "check the tool's parameter schema and types before calling it",
  syntax_error: 'check the syntax of the file or command before running it again',
  git_error: 'run `git status` and read the git error before retrying the same git command',
  format_error: 'answer in the exact format the harness expects',
  api_error: 'read the API error and check credentials, quotas and parameters before retrying',
};

const SLOW_BY_TOOL: Record<string, string> = {
  npm_test: 'run only the affected test files while iterating and the full suite once at the end',
  Bash: 'scope long commands (narrower paths, filters) or run them in the background instead of waiting on them',
  WebFetch: 'cache fetched pages and avoid fetching the same URL repeatedly',
};

const DEFAULT_SLOW = 'narrow the call (smaller inputs, filters) or batch the work to avoid repeated slow calls';

/** The advice for a failure whose error line (or template) is `line`; null when no entry knows it. */
export function knownFailureAdvice(line: string): string | null {
  const found = matchKnownFailure(line);
  return found === null ? null : found.advice;
}

/** The entry that knows `line`, with its advice written out. Pure: the same line, the same answer. */
export function matchKnownFailure(line: string): { id: string; advice: string } | null {
  const bounded = line.length > 2000 ? line.slice(0, 2000) : line;
  for (const entry of KNOWN_FAILURES) {
    const match = bounded.match(entry.test);
    if (match) return { id: entry.id, advice: typeof entry.advice === 'string' ? entry.advice : entry.advice(match) };
  }
  return null;
}

/**
 * For the offline synthesizer: the table on the cluster's signature, else what its category says, else
 * null (an uncategorized failure the table does not know gets no advice at all: no "find out why").
 */
export function failureAdvice(signature: string | null, category: string): string | null {
  return (signature ? knownFailureAdvice(signature) : null) ?? own(BY_CATEGORY, category) ?? null;
}

export function slowAdvice(toolName: string): string {
  return own(SLOW_BY_TOOL, toolName) ?? DEFAULT_SLOW;
}

/** A table entry by a logged name: `constructor` or `__proto__` is no key of the table, whatever Object has. */
function own(table: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

const JS_TOOLS = /^(?:vitest|jest|tsc|tsx|ts-node|eslint|prettier|vite|next|mocha|playwright|webpack|rollup|esbuild|nodemon)$/;
const PY_TOOLS = /^(?:pytest|black|ruff|mypy|flake8|isort|pip|poetry|tox|uv)$/;

/** A name from the log, fit to appear in advice (`<*>` and anything odd are left out). */
function named(name: string | undefined, before: string, after: string): string {
  const safe = name === undefined ? null : safeCommandName(name);
  return safe === null ? '' : `${before}${safe}${after}`;
}

function missingModule(name: string): string {
  const module = safeCommandName(name);
  const what = module ? `\`${module}\`` : 'the module';
  return `${what} cannot be imported here: install it if it is a dependency, or run from the folder that contains it if it is the project's own code`;
}

function missingNodeModule(name: string | undefined): string {
  if (name !== undefined && /^[./]/.test(name)) return 'the imported file is not there: build the project first or fix the import path';
  const module = name === undefined ? null : safeCommandName(name);
  return `${module ? `\`${module}\`` : 'the package'} is not installed: run the project's install (\`npm ci\`) before running it`;
}

function missingFixture(name: string): string {
  const fixture = safeCommandName(name);
  if (fixture === 'mocker') return 'the `mocker` fixture comes from pytest-mock: install the test requirements, or use unittest.mock instead';
  return `define the fixture${fixture ? ` \`${fixture}\`` : ''} in a conftest.py the test can see, or install the plugin that provides it`;
}

function missingCommand(name: string): string {
  const command = safeCommandName(name);
  if (command === null) return "the command is not installed here: check that it exists before calling it, or use what the project provides";
  if (JS_TOOLS.test(command)) return `\`${command}\` is not on PATH: install the project's dependencies (\`npm ci\`) or run it through \`npx\``;
  if (PY_TOOLS.test(command)) return `\`${command}\` is not on PATH: install the project's requirements or run it as \`python -m ${command}\``;
  return `\`${command}\` is not installed here: check that it exists (\`command -v ${command}\`) before calling it, or use what the project provides`;
}
