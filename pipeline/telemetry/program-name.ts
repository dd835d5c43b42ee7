/**
 * Which program a simple command runs, named by family: `/usr/bin/python3.11 x.py` → `python`,
 * `python -m pytest` → `pytest`, `npx vitest` → `vitest`, `sudo -u me env A=1 pip3 install x` → `pip`.
 * Rules over the command's shape (wrappers, runners, version suffixes), not a list of known programs.
 */

/** Commands that run another command given after their own flags (`sudo -u me make`). */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nice', 'nohup', 'timeout', 'stdbuf', 'exec', 'command', 'builtin', 'xargs', 'ionice', 'chrt', 'taskset', 'doas', 'unbuffer', 'caffeinate']);
/** Wrapper flags that take a value as the next word. */
const FLAG_VALUES: Record<string, RegExp> = {
  sudo: /^-[ugChpDrtU]$/,
  xargs: /^-[InPdELsa]$/,
  nice: /^-n$/,
  timeout: /^-[sk]$/,
  env: /^-[uCS]$/,
  ionice: /^-[cnp]$/,
};
/** Runners whose next word (after their own flags) is the program: `npx vitest`, `uv run pytest`. */
const RUNNERS: Record<string, readonly string[]> = {
  npx: [], bunx: [], uvx: [], pipx: ['run'], pnpx: [],
  pnpm: ['exec', 'dlx'], yarn: ['dlx', 'exec'], npm: ['exec', 'x'], bun: ['x'],
  uv: ['run'], poetry: ['run'], pipenv: ['run'], pdm: ['run'], hatch: ['run'], rye: ['run'], conda: ['run'],
  bundle: ['exec'], be: [],
};
/** Language runtimes whose major version is written straight after the name (`python3`, `pip3`, `node18`). */
const RUNTIME = /^(python|pypy|pip|ruby|gem|perl|php|node|lua|luajit|java|javac|erl|ghc|swift|dotnet|deno|bun|tclsh|wish)\d+$/;
const ALIASES: Record<string, string> = { nodejs: 'node', py: 'python', 'py.test': 'pytest', pypy: 'python' };
/** Interpreters whose `-m module` runs the module as the program. */
const MODULE_RUNNERS = new Set(['python']);

/** The program of a simple command's words (env assignments and wrappers skipped), or null. */
export function programOf(words: readonly string[]): string | null {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (/^[A-Za-z_]\w*=/.test(word)) {
      i += 1;
      continue;
    }
    const name = baseName(word);
    if (name === '') return null;
    if (!WRAPPERS.has(name)) return afterRunner(name, words, i + 1);
    i = skipFlags(name, words, i + 1);
  }
  return null;
}

/** A program's name as a family: path, `.exe` and version suffix dropped, lower case, aliases resolved. */
export function normalizeProgram(raw: string): string {
  let name = baseName(raw).toLowerCase().replace(/\.exe$/, '');
  // `gcc-12`, `clang++-15`, `python3.11`, `go1.21`: a version after a dash, or a dotted one.
  name = name.replace(/^([a-z][\w+.]*?[a-z+])-\d+(?:\.\d+)*$/, '$1').replace(/^([a-z][\w+]*?[a-z])\d+(?:\.\d+)+$/, '$1');
  name = name.replace(RUNTIME, '$1');
  // Own keys only: a program called `constructor` must not read Object.prototype.constructor.
  return Object.hasOwn(ALIASES, name) ? ALIASES[name]! : name;
}

function baseName(word: string): string {
  return word.replace(/^.*\//, '');
}

function skipFlags(wrapper: string, words: readonly string[], from: number): number {
  let i = from;
  const valued = FLAG_VALUES[wrapper];
  while (i < words.length && (words[i]!.startsWith('-') || /^[A-Za-z_]\w*=/.test(words[i]!))) {
    i += valued?.test(words[i]!) ? 2 : 1;
  }
  // `timeout 30 cmd`, `nice 10 cmd` (old form): a duration or a number before the command.
  if ((wrapper === 'timeout' || wrapper === 'nice') && /^\d+(?:\.\d+)?[smhd]?$/.test(words[i] ?? '')) i += 1;
  return i;
}

/** `npx vitest` → vitest, `python -m pytest` → pytest; otherwise the program itself. */
function afterRunner(name: string, words: readonly string[], from: number): string {
  const family = normalizeProgram(name);
  if (MODULE_RUNNERS.has(family)) {
    const m = words.indexOf('-m', from);
    if (m >= 0 && words.slice(from, m).every((w) => w.startsWith('-') && w !== '-c') && words[m + 1] !== undefined) return normalizeProgram(words[m + 1]!.split('.')[0]!);
    return family;
  }
  const subcommands = Object.hasOwn(RUNNERS, family) ? RUNNERS[family] : undefined;
  if (subcommands === undefined) return family;
  let i = from;
  while (i < words.length && words[i]!.startsWith('-')) i += 1;
  if (subcommands.length > 0) {
    if (!subcommands.includes(words[i] ?? '')) return family;
    i += 1;
    while (i < words.length && words[i]!.startsWith('-')) i += conda(family, words[i]!) ? 2 : 1;
  }
  return words[i] === undefined ? family : normalizeProgram(words[i]!);
}

/** `conda run -n env pytest`: conda's `-n`/`-p` take a value. */
function conda(family: string, flag: string): boolean {
  return family === 'conda' && /^-[np]$/.test(flag);
}
