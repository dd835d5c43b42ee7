import { safeCommandName } from './quote.js';

/**
 * What to do about a failure pattern, chosen by keywords in the error signature or by category.
 * Written by us, never taken from the logs: the offline synthesizer only quotes evidence, it never
 * turns evidence into instructions.
 */
interface AdviceRule {
  test: RegExp;
  advice: string | ((match: RegExpMatchArray) => string);
}

const BY_SIGNATURE: AdviceRule[] = [
  { test: /index\.lock/i, advice: 'check for and clear a stale .git/index.lock (no other git process running) before retrying' },
  { test: /has not been read yet|read it first/i, advice: 'Read the file in this session before editing or writing it' },
  { test: /string to replace not found/i, advice: 'Read the file again and copy the exact current text, whitespace included, into the edit' },
  { test: /(?:^|[\s:])([\w@./-]{2,40}): (?:command )?not found/i, advice: (m) => missingCommand(m[1]!) },
  { test: /No module named '?([\w.]{1,60})'?/, advice: (m) => missingModule(m[1]!) },
  { test: /no upstream branch|has no upstream/i, advice: 'set the upstream on the first push of a new branch (`git push --set-upstream origin <branch>`)' },
  { test: /non-fast-forward|fetch first|\[rejected\]/i, advice: 'fetch and rebase on the remote branch before pushing again' },
  { test: /exceeds maximum allowed tokens|too large/i, advice: 'request smaller results (pagination, filters or a narrower query) so the response stays under the token limit' },
  { test: /file does not exist|no such file or directory|ENOENT/i, advice: 'confirm the path exists (list or search the directory) before using it, instead of guessing file names' },
  { test: /exactly one action/i, advice: 'put exactly one action (one fenced command block) in each reply' },
  { test: /EISDIR|is a directory/i, advice: 'list a directory with Glob or ls instead of reading it as a file' },
];

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

const DEFAULT_FAILURE = 'find out why this call fails before repeating it unchanged';

const SLOW_BY_TOOL: Record<string, string> = {
  npm_test: 'run only the affected test files while iterating and the full suite once at the end',
  Bash: 'scope long commands (narrower paths, filters) or run them in the background instead of waiting on them',
  WebFetch: 'cache fetched pages and avoid fetching the same URL repeatedly',
};

const DEFAULT_SLOW = 'narrow the call (smaller inputs, filters) or batch the work to avoid repeated slow calls';

const JS_TOOLS = /^(?:vitest|jest|tsc|tsx|ts-node|eslint|prettier|vite|next|mocha|playwright|webpack|rollup|esbuild|nodemon)$/;
const PY_TOOLS = /^(?:pytest|black|ruff|mypy|flake8|isort|pip|poetry|tox|uv)$/;

function missingModule(name: string): string {
  const module = safeCommandName(name);
  const what = module ? `\`${module}\`` : 'A Python module';
  return `${what} is not installed in this environment: install the project's requirements or use its own test runner instead of retrying`;
}

function missingCommand(name: string): string {
  const command = safeCommandName(name);
  if (command === null) return "a command is not installed here: check that it exists before calling it, or use what the project provides";
  if (JS_TOOLS.test(command)) return `\`${command}\` is not on PATH: install the project's dependencies (\`npm ci\`) or run it through \`npx\``;
  if (PY_TOOLS.test(command)) return `\`${command}\` is not on PATH: install the project's requirements or run it as \`python -m ${command}\``;
  return `\`${command}\` is not installed here: check that it exists (\`command -v ${command}\`) before calling it, or use what the project provides`;
}

export function failureAdvice(signature: string | null, category: string): string {
  if (signature) {
    for (const rule of BY_SIGNATURE) {
      const match = signature.match(rule.test);
      if (match) return typeof rule.advice === 'string' ? rule.advice : rule.advice(match);
    }
  }
  return BY_CATEGORY[category] ?? DEFAULT_FAILURE;
}

export function slowAdvice(toolName: string): string {
  return SLOW_BY_TOOL[toolName] ?? DEFAULT_SLOW;
}
