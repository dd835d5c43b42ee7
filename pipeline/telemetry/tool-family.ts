import { errorLine } from './error-line.js';
import { normalizeProgram, programOf } from './program-name.js';
import { simpleCommands, type SimpleCommand } from './shell-words.js';

/**
 * A call's tool family: one per underlying program, so that `python3 x.py`, `python3.11 x.py` and a
 * mini-swe-agent's `cd /repo && python x.py` land together, and `python -m pytest` joins `pytest`.
 *
 * - A shell tool's family is the program that failed: named by the error text when it names one
 *   (`bash: line 1: pytest: command not found`, `python: can't open file …`, a Python traceback, pytest's
 *   report), else the command that did the work (the last one in `&&`/`;` lists that is not `cd`, `echo`
 *   or the like; in a pipeline, the last one that is not a filter such as `| tail`).
 * - An MCP tool's family is its server (`mcp__github__list_prs` → `mcp__github`): the server is the
 *   program, as `git` is for `git push` and `git pull`; the template still tells its errors apart.
 * - Any other tool is its own family (`Read`, `git_push`), except a name that is itself a program's
 *   (`python3` from older imports), which is named by family.
 *
 * Pure and bounded (see shell-words.ts); the same inputs give the same family on any machine.
 */
export function toolFamily(toolName: string, inputSummary?: string, errorMessage?: string): string {
  if (!isShellTool(toolName)) {
    const server = MCP_TOOL.exec(toolName);
    if (server !== null) return server[1]!;
    return PROGRAM_NAME.test(toolName) ? normalizeProgram(toolName) : toolName;
  }
  const commands = inputSummary === undefined ? [] : simpleCommands(inputSummary);
  return (errorMessage ? namedByError(errorMessage, commands) : null) || workingProgram(commands) || toolName;
}

/** Tools that run a shell command line (Claude Code's `Bash`, mini-swe-agent's `bash`, other agents' names). */
export function isShellTool(toolName: string): boolean {
  return mayNameShell(toolName.toLowerCase()) && SHELL_TOOL.test(toolName);
}

/**
 * Every name SHELL_TOOL takes holds `sh` (bash, zsh, shell, pwsh…), `terminal`, `cmd` or `command`: a
 * name without them (Read, Edit, WebFetch) is not a shell's, and the pattern is not compiled for it (the
 * hook asks this of a failure's tool on a call).
 */
function mayNameShell(lower: string): boolean {
  return lower.includes('sh') || lower.includes('terminal') || lower.includes('cmd') || lower.includes('command');
}

const SHELL_TOOL = /^(?:(?:ba|z|da|k|c|tc|fi)?sh|shell|terminal|powershell|pwsh|(?:run|exec(?:ute)?)[_-]?(?:shell[_-]?)?(?:bash|command|cmd|shell)|(?:bash|shell)[_-]?(?:tool|command|exec))$/i;
/** `mcp__<server>__<tool>`, Claude Code's name for a tool of an MCP server. */
const MCP_TOOL = /^(mcp__[^_].*?)__[^_]/;
/** A bare program name (lower case, no `__` as MCP tools have, no `_` as loggers' `git_push`). */
const PROGRAM_NAME = /^[a-z][a-z0-9.+-]*$/;

/** Commands that only set the scene or report; the work is elsewhere in the line. */
const TRIVIAL = new Set(['cd', 'pushd', 'popd', 'export', 'source', '.', 'set', 'unset', 'echo', 'printf', 'true', ':', 'alias', 'ulimit', 'umask', 'shopt', 'trap', 'wait', 'exit', 'return', 'clear', 'sleep', 'local', 'declare', 'read']);
/** Shell syntax that opens or closes a compound command; the next word is the command. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '{', '}', '!', '[[', ']]', 'esac']);
/** Loop and case headers: their words are not a command at all. */
const HEADERS = new Set(['for', 'case', 'select', 'function']);
/** Pipeline stages that only filter or page another command's output. */
const FILTERS = new Set(['head', 'tail', 'grep', 'egrep', 'fgrep', 'sort', 'uniq', 'wc', 'less', 'more', 'tee', 'cut', 'tr', 'column', 'nl', 'awk', 'sed', 'jq', 'fold', 'fmt', 'cat']);

/**
 * The program doing the work: in the last pipeline that does any, its last stage that is not a filter
 * (`pytest | tail`); failing that, the first stage of a filters-only pipeline (`grep x f | head`); failing
 * that, the last command (`cd x`).
 */
function workingProgram(commands: readonly SimpleCommand[]): string | null {
  const pipelines = splitPipelines(commands).reverse();
  for (const stages of pipelines) {
    const work = findLast(stages, (program) => !FILTERS.has(program) && !TRIVIAL.has(program));
    if (work !== undefined) return work;
  }
  for (const stages of pipelines) {
    const first = stages.find((program) => !TRIVIAL.has(program));
    if (first !== undefined) return first;
  }
  return pipelines[0]?.at(-1) ?? null;
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return items[i];
  return undefined;
}

/** The line's pipelines, each as its programs in order (keywords and loop headers left out). */
function splitPipelines(commands: readonly SimpleCommand[]): string[][] {
  const pipelines: string[][] = [[]];
  for (const command of commands) {
    const program = commandProgram(command.words);
    if (program !== null) pipelines[pipelines.length - 1]!.push(program);
    if (command.next !== '|' && pipelines[pipelines.length - 1]!.length > 0) pipelines.push([]);
  }
  return pipelines.filter((pipeline) => pipeline.length > 0);
}

function commandProgram(words: readonly string[]): string | null {
  let i = 0;
  while (i < words.length && KEYWORDS.has(words[i]!)) i += 1;
  if (i >= words.length || HEADERS.has(words[i]!) || /^\w+\)$/.test(words[i]!)) return null;
  return programOf(words.slice(i));
}

/**
 * The program the error text says failed. A shell's complaint names what it could not run: a program
 * (`pytest: command not found`, `./run.sh: Permission denied`, found anywhere: it may sit inside `$(…)`),
 * or a script it was given (`bash: run.sh: No such file…` is `bash run.sh` failing). A `prog: …` complaint,
 * a traceback or a test report counts only for a program the line runs, so an echoed name cannot pick it.
 */
function namedByError(message: string, commands: readonly SimpleCommand[]): string | null {
  // Without a command line only a shell's complaint can name the program, and every form of it ends in
  // one of MISSING's phrases: a message without any (most failures) is not split into lines at all.
  if (commands.length === 0 && !MISSING_PHRASES.some((phrase) => message.includes(phrase))) return null;
  const lines = headAndTail(message);
  const programs = commands.map((command) => commandProgram(command.words)).filter((p): p is string => p !== null);
  for (const line of lines) {
    const missing = MISSING.exec(line);
    if (missing) return shellComplaint(missing[1] ?? missing[2] ?? missing[3]!, commands, programs);
  }
  if (programs.length === 0) return null;
  const runs = new Set(programs);
  for (const line of lines) {
    const prefix = PROGRAM_PREFIX.exec(line)?.[1];
    if (prefix !== undefined && runs.has(normalizeProgram(prefix))) return normalizeProgram(prefix);
  }
  const text = lines.join('\n');
  if (PYTEST_REPORT.test(text) && runs.has('pytest')) return 'pytest';
  if (/^fatal: |^error: (?:pathspec|src refspec|failed to push)/m.test(text) && runs.has('git')) return 'git';
  if (/^npm (?:ERR!|error) /m.test(text) && runs.has('npm')) return 'npm';
  if (/^Traceback \(most recent call last\):/m.test(text) || PYTHON_ERROR.test(errorLine(message))) return pythonThatRaised(commands, text);
  return null;
}

/** Of the line's Python commands, the one whose script the traceback shows, else the last one. */
function pythonThatRaised(commands: readonly SimpleCommand[], text: string): string | null {
  const python = commands.filter((command) => PYTHONIC.has(commandProgram(command.words) ?? ''));
  const named = python.find((command) => command.words.some((word) => /\.py$/.test(word) && text.includes(word.replace(/^.*\//, ''))));
  const chosen = named ?? python.at(-1);
  return chosen === undefined ? null : commandProgram(chosen.words);
}

const PYTHONIC = new Set(['python', 'pytest']);

/** The family a shell's complaint about `name` points at: the program itself, or the command given it as an argument. */
function shellComplaint(name: string, commands: readonly SimpleCommand[], programs: readonly string[]): string {
  const family = normalizeProgram(name);
  if (programs.includes(family)) return family;
  const runner = commands.find((command) => command.words.slice(1).includes(name));
  return (runner && commandProgram(runner.words)) ?? family;
}

/**
 * A program that could not be run. `command not found` from any shell or script (`bash: line 1: foo: …`,
 * `run.sh: line 3: foo: …`, `zsh: command not found: foo`); `not found` from dash (`sh: 1: foo: not
 * found`); a file a shell could not run or open (`bash: ./run.sh: Permission denied`).
 */
const MISSING = /^(?:\S*\/)?[\w.+-]+: (?:line \d+: )?([^\s:]+): command not found|^(?:\S*\/)?zsh: command not found: (\S+)|^(?:\S*\/)?(?:ba|z|da|k)?sh: (?:line \d+: |\d+: )?(?:exec: )?([^\s:]+): (?:not found$|Permission denied|No such file or directory|cannot execute)/;
/** A phrase every match of MISSING holds (`command not found` holds `not found`). */
const MISSING_PHRASES = ['not found', 'Permission denied', 'No such file or directory', 'cannot execute'];
/** `python: can't open file …`, `cat: x: No such file or directory`, `git: 'x' is not a git command`. */
const PROGRAM_PREFIX = /^([\w.+-]{1,40}): (?!\/\/)/;
const PYTEST_REPORT = /^=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+$|^(?:FAILED|ERROR) \S+::/m;
const PYTHON_ERROR = /^(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)\b/;

/** The lines worth reading for a name: the first and the last 40 (errors are stated at either end). */
function headAndTail(message: string): string[] {
  const lines = message.slice(0, 8192).split('\n');
  const tail = message.length > 8192 ? message.slice(-8192).split('\n').slice(1) : [];
  const all = [...lines.slice(0, 40), ...(tail.length > 0 ? tail : lines).slice(-40)];
  return [...new Set(all.map((line) => line.trim()))].filter((line) => line !== '' && line.length <= 2000);
}
