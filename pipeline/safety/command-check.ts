import type { BashNode } from '@ericcornelissen/bash-parser';
import type { CommandDeny, CommandPolicy } from './command-policy.js';
import { violatesBuiltin, type SimpleCommand } from './command-builtins.js';
import { environmentFindings, gitSettingFindings, runtimeArgumentFindings } from './command-settings.js';
import { hasUnquotedGlob } from './shell-globs.js';

/**
 * Checks commands (from a model-written rule) against the command policy. Each candidate is parsed with
 * a real shell parser, so `&&`, pipes, `$(...)`, subshells, quoting, `\git` and `FOO=1 git` are what a
 * shell would see; wrappers (env, command, nohup) and launchers (npx, python -m) are unwrapped, and
 * `sh -c '…'` / `eval` strings are parsed again. A candidate taken from code formatting that the parser
 * cannot read is blocked; one found in prose only counts when it parses.
 */
export interface CommandCandidate {
  text: string;
  /** From code formatting (backticks): the rule presents it as a command, so every part of it must pass. */
  code: boolean;
  /** One of the prefixes of a prose clause: only the longest that parses is checked. */
  prose?: boolean;
}

export interface CommandFinding {
  id: string;
  reason: string;
}

type Parse = (source: string) => BashNode;
let parser: Promise<Parse> | undefined;

/** The parser is large (it brings babylon): loaded only when a model-written rule is checked. */
function loadParser(): Promise<Parse> {
  return (parser ??= import('@ericcornelissen/bash-parser').then((module) => {
    const parse = (module as unknown as { default: (source: string, options: { insertLOC: boolean }) => BashNode }).default;
    // Locations let a word be read as written: `'*'` and `*` are the same text once quotes are removed.
    return (source: string) => parse(source, { insertLOC: true });
  }));
}

const MAX_DEPTH = 3;

export async function checkCommands(candidates: CommandCandidate[], policy: CommandPolicy): Promise<CommandFinding[]> {
  if (candidates.length === 0) return [];
  const parse = await loadParser();
  const findings: CommandFinding[] = [];
  let proseDone = new Set<string>();
  for (const candidate of candidates) {
    if (candidate.prose) {
      // Prefixes of one clause arrive longest first: the first that parses stands for the clause.
      const clause = candidates.find((c) => c.prose && c.text.startsWith(candidate.text) && proseDone.has(c.text));
      if (clause) continue;
      const parsed = tryParse(parse, candidate.text);
      if (parsed === null) {
        if (candidate.code && /<\(|\$\(/.test(candidate.text)) findings.push(UNPARSEABLE);
        continue;
      }
      proseDone = new Set([...proseDone, candidate.text]);
      findings.push(...checkTree(parsed, candidate, policy, parse, 0));
      continue;
    }
    findings.push(...checkOne(candidate, policy, parse, 0));
  }
  return unique(findings);
}

const UNPARSEABLE: CommandFinding = { id: 'unparseable-command', reason: 'a command the shell parser cannot read (process substitution, an unbalanced quote): it cannot be checked, so it is blocked' };

function tryParse(parse: Parse, text: string): BashNode | null {
  try {
    return parse(text);
  } catch {
    return null;
  }
}

function checkOne(candidate: CommandCandidate, policy: CommandPolicy, parse: Parse, depth: number): CommandFinding[] {
  const ast = tryParse(parse, candidate.text);
  if (ast === null) return candidate.code ? [UNPARSEABLE] : [];
  return checkTree(ast, candidate, policy, parse, depth);
}

function checkTree(ast: BashNode, candidate: CommandCandidate, policy: CommandPolicy, parse: Parse, depth: number): CommandFinding[] {
  const commands = collect(ast, { source: candidate.text, parse });
  const findings: CommandFinding[] = [];
  for (const command of commands) {
    const resolved = resolve(command, policy);
    for (const inner of resolved) findings.push(...judge(inner, policy, candidate.code, (text) => checkOne({ text, code: true }, policy, parse, depth + 1), depth));
  }
  return findings;
}

/** The text a tree was parsed from (its words' locations point into it), and the parser for what `$(…)` holds. */
interface Source {
  source: string;
  parse: Parse;
  /** The source's code points, as the parser counts locations (made when a command is first read). */
  points?: string[];
}

/** Every simple command in the tree, with the pipeline it stands in and whether it runs inside `$(…)`. */
function collect(node: unknown, from: Source, pipeline: SimpleCommand[] | null = null, substituted = false, out: SimpleCommand[] = []): SimpleCommand[] {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, from, pipeline, substituted, out);
    return out;
  }
  if (typeof node !== 'object' || node === null) return out;
  const n = node as BashNode;
  if (n.type === 'Pipeline') {
    const members: SimpleCommand[] = [];
    collect(n['commands'], from, members, substituted, out);
    return out;
  }
  if (n.type === 'Command') {
    const command = toSimple(n, pipeline, substituted, (from.points ??= Array.from(from.source)));
    pipeline?.push(command);
    out.push(command);
  }
  if (n.type === 'CommandExpansion') {
    // The parser gives the inside of `$(…)` no locations: parsed again, its words can be read as written.
    const inner = typeof n['command'] === 'string' ? n['command'] : '';
    const again = tryParse(from.parse, inner);
    collect(again ?? n['commandAST'], { parse: from.parse, source: again ? inner : '' }, null, true, out);
    return out;
  }
  for (const [key, value] of Object.entries(n)) if (key !== 'loc') collect(value, from, n.type === 'Command' ? null : pipeline, substituted, out);
  return out;
}

/**
 * A word as written in the source. The parser counts locations in code points (an emoji is one), so the
 * source is sliced by code points. Without a location, or when the slice lacks a glob character the word
 * has (the slice is not the word), its text: quotes removed, a quoted star counts as a glob (the safe side).
 */
function rawWord(word: BashNode, points: readonly string[]): string {
  const text = word.text ?? '';
  const loc = word['loc'] as { start?: { char?: number }; end?: { char?: number } } | undefined;
  const start = loc?.start?.char;
  const end = loc?.end?.char;
  if (typeof start !== 'number' || typeof end !== 'number' || end >= points.length) return text;
  const raw = points.slice(start, end + 1).join('');
  return [...text].every((char) => !'*?[{'.includes(char) || raw.includes(char)) ? raw : text;
}

function toSimple(node: BashNode, pipeline: SimpleCommand[] | null, substituted: boolean, points: readonly string[]): SimpleCommand {
  const words = (list: unknown) => (Array.isArray(list) ? (list as BashNode[]) : []);
  const name = (node['name'] as BashNode | undefined)?.text ?? '';
  const env = words(node['prefix']).filter((w) => w.type === 'AssignmentWord').map((w) => w.text ?? '');
  const suffix = words(node['suffix']);
  const args = suffix.filter((w) => w.type === 'Word').map((w) => w.text ?? '');
  const redirectNodes = [...words(node['prefix']), ...suffix].filter((w) => w.type === 'Redirect');
  const target = (w: BashNode) => (w['file'] as BashNode | undefined)?.text ?? '';
  const redirects = redirectNodes.map(target);
  // `<` only reads; every other redirection (`>`, `>>`, `>|`, `&>`, `<>`) writes its target.
  const outputs = redirectNodes.filter((w) => (w['op'] as BashNode | undefined)?.text !== '<').map(target);
  const expanded = suffix.some((w) => w.type === 'Word' && Array.isArray(w['expansion']) && (w['expansion'] as unknown[]).length > 0);
  const globbed = suffix.some((w) => w.type === 'Word' && hasUnquotedGlob(rawWord(w, points)));
  return { program: name, args, env, redirects, outputs, pipeline, substituted, ...(expanded ? { expanded } : {}), ...(globbed ? { globbed } : {}) };
}

/** The command a wrapper or launcher runs, checked in its place (the wrapper's own options dropped). */
function resolve(command: SimpleCommand, policy: CommandPolicy, hops = 0): SimpleCommand[] {
  const program = basename(command.program);
  const self = { ...command, program };
  if (hops > 4 || program === '') return [self];
  if (policy.wrappers.includes(program)) {
    const rest = dropOptions(command.args, program);
    const assignments = rest.filter((arg, i) => /^[A-Za-z_]\w*=/.test(arg) && rest.slice(0, i).every((a) => /^[A-Za-z_]\w*=/.test(a)));
    const inner = rest.slice(assignments.length);
    // `env` alone prints the environment: that is the command then.
    if (inner.length === 0) return [self];
    return resolve({ ...command, program: inner[0]!, args: inner.slice(1), env: [...command.env, ...assignments], via: program }, policy, hops + 1);
  }
  const launched = launchedProgram(program, command.args, policy);
  // The launcher keeps only its own options; the rest belongs to the program it runs.
  if (launched) return [{ ...self, args: command.args.slice(0, command.args.length - launched.args.length - 1) }, ...resolve({ ...command, program: launched.program, args: launched.args, via: program }, policy, hops + 1)];
  // `find … -exec git push -f {} \;`: what -exec/-ok runs is a command too (its `{}` a file name found at run time).
  if (program === 'find') return [self, ...findExecs(command.args).flatMap((inner) => resolve({ ...command, ...inner, via: 'find' }, policy, hops + 1))];
  return [self];
}

function findExecs(args: string[]): { program: string; args: string[] }[] {
  const execs: { program: string; args: string[] }[] = [];
  args.forEach((arg, i) => {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(arg) || args[i + 1] === undefined) return;
    const end = args.findIndex((a, j) => j > i && (a === ';' || a === '\\;' || a === '+'));
    execs.push({ program: args[i + 1]!, args: args.slice(i + 2, end < 0 ? undefined : end) });
  });
  return execs;
}

/** `timeout 10 x`, `nice -n 5 x`, `env -i x`: the options (and a duration) before the command. */
function dropOptions(args: string[], wrapper: string): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += /^-(?:n|u|s|k)$/.test(args[i]!) ? 2 : 1;
  if (wrapper === 'timeout' && i < args.length && /^\d/.test(args[i]!)) i += 1;
  return args.slice(i);
}

function launchedProgram(program: string, args: string[], policy: CommandPolicy): { program: string; args: string[] } | null {
  const positional = (from: string[]) => {
    const at = from.findIndex((a) => !a.startsWith('-'));
    return at < 0 ? null : { program: from[at]!, args: from.slice(at + 1) };
  };
  if (policy.launchers.includes(program)) return positional(args);
  if (/^python[\d.]*$/.test(program) && args[0] === '-m' && args[1]) return { program: args[1], args: args.slice(2) };
  const sub = args[0];
  if (['npm', 'pnpm', 'yarn'].includes(program) && (sub === 'exec' || sub === 'dlx' || sub === 'x')) return positional(args.slice(1));
  if (['uv', 'poetry', 'pipx', 'pdm', 'hatch'].includes(program) && sub === 'run') return positional(args.slice(1));
  return null;
}

/** `/usr/bin/git` is git; a name that is only slashes (`//`, a comment marker) stays itself, an unknown program. */
function basename(program: string): string {
  return program.replace(/^.*\//, '') || program;
}

const INTERPRETER_STRING = /^(?:ba|da|z|k|fi)?sh$/;

function judge(command: SimpleCommand, policy: CommandPolicy, code: boolean, reparse: (text: string) => CommandFinding[], depth: number): CommandFinding[] {
  const findings: CommandFinding[] = [];
  const allowed = policy.programs[command.program];
  if (command.program === '' && command.env.length === 0) return findings;
  const runner = policy.launchers.includes(command.program) || policy.wrappers.includes(command.program);
  if (allowed === undefined && command.program !== '' && !runner) {
    // In prose a word is only a command when it is a listed one, or what a wrapper or launcher runs; in code formatting every program counts.
    if (code || command.via !== undefined) findings.push({ id: 'unknown-command', reason: 'it runs a program the command policy does not list (config/safety-rules.yaml commands.programs)' });
  } else if (Array.isArray(allowed)) {
    const sub = subcommandOf(command);
    if (code && sub !== null && !allowed.includes(sub)) findings.push({ id: 'unknown-subcommand', reason: 'it runs a subcommand the command policy does not list for its program' });
  }
  for (const rule of policy.deny) if (matches(rule, command, policy)) findings.push({ id: rule.id, reason: rule.reason });
  findings.push(...placeFindings(command, policy), ...gitSettingFindings(command, policy), ...environmentFindings(command, policy), ...runtimeArgumentFindings(command, policy));
  // `sh -c '…'` and `eval …` run a string: that string is a command too.
  if (depth < MAX_DEPTH) {
    if ((INTERPRETER_STRING.test(command.program) || command.program === 'bash') && command.args.includes('-c')) {
      const script = command.args[command.args.indexOf('-c') + 1];
      if (script !== undefined) findings.push(...reparse(script));
    }
    if (command.program === 'eval' && command.args.length > 0) findings.push(...reparse(command.args.join(' ')));
    for (const value of commandValues(command)) findings.push(...reparse(value));
  }
  return findings;
}

/**
 * Settings whose value is a command that git, ssh or a shell runs later: `GIT_SSH_COMMAND="ssh -o …"`,
 * `GIT_EDITOR=…`, `PAGER=…`, any `*_COMMAND`; `git -c core.sshCommand=…` and `git config core.editor …`
 * (a `!` alias or credential helper is a shell command too). Their values are commands, checked as one.
 */
const COMMAND_VARIABLE = /^(?:EDITOR|VISUAL|PAGER|MANPAGER|BROWSER|SHELL|PROMPT_COMMAND|LESSOPEN|LESSCLOSE|RSYNC_RSH|CVS_RSH|GIT_SSH|GIT_EXEC_PATH|[A-Z0-9_]*_(?:COMMAND|CMD|EDITOR|PAGER|ASKPASS|SHELL|RSH|EXEC|PROGRAM|HOOK|DIFF|CALLBACK)|GIT_[A-Z_]*(?:EDITOR|PAGER|ASKPASS|DIFF|SSH))$/i;
const COMMAND_CONFIG = /^(?:core\.(?:sshcommand|editor|pager|askpass|fsmonitor|alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|difftool\..+\.cmd|mergetool\..+\.cmd|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver|pager\..+|alias\..+|credential(?:\..+)?\.helper|gpg(?:\..+)?\.program|uploadpack\.packobjectshook|sendemail\..*cmd|remote\..+\.(?:uploadpack|receivepack)|web\.browser|browser\..+\.cmd|core\.gitproxy)$/i;

function commandValues(command: SimpleCommand): string[] {
  const values: string[] = [];
  const assignment = (text: string, named: RegExp) => {
    const at = text.indexOf('=');
    if (at > 0 && named.test(text.slice(0, at))) values.push(text.slice(at + 1));
  };
  for (const env of [...command.env, ...(command.program === 'export' || command.program === 'declare' || command.program === 'typeset' ? command.args : [])]) assignment(env, COMMAND_VARIABLE);
  if (command.program === 'git') {
    command.args.forEach((arg, i) => {
      if (arg === '-c' && command.args[i + 1] !== undefined) assignment(command.args[i + 1]!, COMMAND_CONFIG);
      else if (arg.startsWith('-c') && arg.length > 2) assignment(arg.slice(2), COMMAND_CONFIG);
    });
    if (subcommandOf(command) === 'config') {
      const rest = command.args.slice(command.args.indexOf('config') + 1).filter((a) => !a.startsWith('-'));
      if (rest.length >= 2 && COMMAND_CONFIG.test(rest[0]!)) values.push(rest.slice(1).join(' '));
    }
  }
  // A `!` alias or helper runs the rest in a shell; a value that is no command parses to an unknown one.
  return values.map((value) => value.replace(/^\s*!/, '').trim()).filter((value) => value !== '');
}

/** git's subcommand comes after its global options (`git -C dir -c k=v push`); other programs' is the first word. */
export function subcommandOf(command: SimpleCommand): string | null {
  let i = 0;
  const args = command.args;
  if (command.program === 'git') {
    while (i < args.length && args[i]!.startsWith('-')) i += /^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path)$/.test(args[i]!) ? 2 : 1;
  } else {
    while (i < args.length && args[i]!.startsWith('-')) i += 1;
  }
  return args[i] ?? null;
}

function matches(rule: CommandDeny, command: SimpleCommand, policy: CommandPolicy): boolean {
  if (rule.program && !rule.program.includes(command.program)) return false;
  if (rule.subcommands && !rule.subcommands.includes(subcommandOf(command) ?? '')) return false;
  if (rule.check) return violatesBuiltin(rule.check, command, policy);
  const env = [...command.env, ...(command.program === 'export' ? command.args : [])];
  const any =
    (rule.flags?.some((flag) => command.args.some((arg) => flagMatches(flag, arg))) ?? false) ||
    (rule.args?.some((source) => new RegExp(source, 'i').test(command.args.join(' '))) ?? false) ||
    (rule.env?.some((source) => env.some((assignment) => new RegExp(source, 'i').test(assignment))) ?? false) ||
    (rule.plus_refspec === true && command.args.some((arg) => /^\+[^\s]/.test(arg)));
  // A rule that names only a program and subcommands denies that subcommand outright.
  return any || (!rule.flags && !rule.args && !rule.env && !rule.plus_refspec && rule.subcommands !== undefined);
}

/** `-f` in `-f`, `-fu`, `-uf` (and `-force`, a long flag with one dash); `--force` in `--force`, `--force=x`, `--forc`. */
export function flagMatches(flag: string, arg: string): boolean {
  if (flag.startsWith('--')) {
    const name = arg.split('=')[0]!;
    return name.startsWith('--') && (name === flag || (name.length >= 5 && flag.startsWith(name)));
  }
  if (flag.startsWith('-') && flag.length === 2) return /^-[A-Za-z]+$/.test(arg) && arg.includes(flag[1]!);
  return arg === flag;
}

const URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const HOST = /^(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|xyz|ru|cn|co|me|info|biz|example|site|online|cloud|ai|gg|tk|sh|us|uk|de|fr|eu|ly|to|cc|ws|pw|top|link|click|zip|mov|internal|local|test|invalid|onion)(?::\d+)?(?:\/.*)?$/i;

/** Arguments, redirect targets and assignment values: inside the repository and the listed hosts only. */
function placeFindings(command: SimpleCommand, policy: CommandPolicy): CommandFinding[] {
  const findings: CommandFinding[] = [];
  const values = [...command.args, ...command.redirects, ...command.env.map((e) => e.slice(e.indexOf('=') + 1))].flatMap((v) => [v, ...(v.includes('=') ? [v.slice(v.indexOf('=') + 1)] : [])]);
  for (const value of values) {
    const host = hostOf(value);
    if (host !== null && !policy.hosts.some((ok) => host === ok || host.endsWith(`.${ok}`))) findings.push({ id: 'unlisted-host', reason: 'it reaches a host or URL the command policy does not list (commands.hosts)' });
    if (outsideRepo(value)) findings.push({ id: 'path-outside-repo', reason: 'it names a path outside the repository' });
  }
  return findings;
}

function hostOf(value: string): string | null {
  const bare = value.replace(/^["']|["']$/g, '');
  if (URL.test(bare)) {
    try {
      return new globalThis.URL(bare).hostname.toLowerCase() || 'unknown';
    } catch {
      return 'unknown';
    }
  }
  if (/^[\w.+-]+@[\w.-]+:/.test(bare)) return bare.slice(bare.indexOf('@') + 1, bare.indexOf(':', bare.indexOf('@'))).toLowerCase();
  if (/^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:\/|$)/.test(bare)) return bare.split(/[:/]/)[0]!;
  return HOST.test(bare) ? bare.split(/[:/]/)[0]!.toLowerCase() : null;
}

function outsideRepo(value: string): boolean {
  const bare = value.replace(/^["']|["']$/g, '');
  if (bare === '/dev/null') return false;
  return /^(?:\/|~|\$\{?HOME\b|\$\{?[A-Z_]*(?:PATH|DIR|ROOT)\}?\/)/.test(bare) || /(?:^|\/)\.\.(?:\/|$)/.test(bare);
}

function unique(findings: CommandFinding[]): CommandFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => (seen.has(f.id) ? false : (seen.add(f.id), true)));
}
