import { resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { packageRoot } from '../io/paths.js';
import { errors, type SleepCycleError } from '../model/errors.js';
import type { CommandSpec } from './command-spec.js';
import type { CliDeps } from './context-from-options.js';
import { printFailure } from './output.js';
import { ROOT_HELP } from './root.js';

/**
 * The command table: one row per command, each handled by one small file. A row loads its file only
 * when that command runs, so `hook` (twice per agent tool call) does not pay for the whole pipeline.
 */
export const COMMANDS: Record<string, () => Promise<CommandSpec>> = {
  run: async () => (await import('./run-command.js')).runCommandSpec,
  status: async () => (await import('./status-command.js')).statusCommandSpec,
  config: async () => (await import('./config-command.js')).configCommandSpec,
  review: async () => (await import('./review-command.js')).reviewCommandSpec,
  explain: async () => (await import('./explain-command.js')).explainCommandSpec,
  init: async () => (await import('./init-command.js')).initCommandSpec,
  log: async () => (await import('./log-command.js')).logCommandSpec,
  hook: async () => (await import('./hook-command.js')).hookCommandSpec,
  import: async () => (await import('./import-command.js')).importCommandSpec,
  list: async () => (await import('./list-command.js')).listCommandSpec,
  stats: async () => (await import('./stats-command.js')).statsCommandSpec,
  report: async () => (await import('./report-command.js')).reportCommandSpec,
  decay: async () => (await import('./decay-command.js')).decayCommandSpec,
  'pre-session': async () => (await import('./pre-session-command.js')).preSessionCommandSpec,
  templates: async () => (await import('./templates-command.js')).templatesCommandSpec,
  touch: async () => (await import('./rule-action-command.js')).ruleActionSpec('touch'),
  pin: async () => (await import('./rule-action-command.js')).ruleActionSpec('pin'),
  unpin: async () => (await import('./rule-action-command.js')).ruleActionSpec('unpin'),
  restore: async () => (await import('./rule-action-command.js')).ruleActionSpec('restore'),
};

/** The specs a command line needs: just its own, or all of them (help, or an unknown command). */
export async function loadSpecs(name: string | undefined): Promise<CommandSpec[]> {
  if (name !== undefined && Object.hasOwn(COMMANDS, name)) return [await COMMANDS[name]!()];
  return Promise.all(Object.values(COMMANDS).map((load) => load()));
}

/** Parses argv, runs one command and returns its exit code. Never exits the process itself. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const json = argv.includes('--json');
  const name = commandName(argv);
  let exitCode = 0;
  const program = new Command('sleep-cycle')
    .description("the agent's night: turn repeated tool failures into reviewed memory rules")
    .exitOverride()
    // Errors are printed once, by printFailure (one line, or the --json envelope); commander's own copy is dropped.
    .configureOutput({ writeOut: deps.stdout, writeErr: json ? () => {} : deps.stderr, outputError: () => {} })
    .configureHelp({ showGlobalOptions: true })
    // package.json is read only when asked for: `hook` runs on every tool call of the agent.
    .version(argv.includes('--version') || argv.includes('-V') ? await packageVersion(deps) : '', '-V, --version', 'print the version')
    // Global, so they are accepted before the command (`sleep-cycle --root . init`) as well as after it.
    .option('--json', 'print one JSON envelope on stdout')
    .option('--root <dir>', ROOT_HELP);
  for (const spec of await loadSpecs(name)) {
    const command = program.command(spec.name).description(spec.description);
    for (const option of spec.options) command.addOption(option);
    command.action(async (...received: unknown[]) => {
      // commander passes the declared arguments, then the options object, then the command.
      const args = received.slice(0, -2).map((value) => (value === undefined ? undefined : String(value))) as string[];
      exitCode = await spec.action(args, (received.at(-1) as Command).optsWithGlobals(), deps);
    });
  }
  const code = await parseAndRun(program, argv, deps, { json, name }, () => exitCode);
  // Claude Code blocks the tool call when a hook exits 2: the hook never fails the agent, whatever went wrong.
  return name === 'hook' ? 0 : code;
}

/** The command a command line names: its first word that is neither a global option nor the value of one. */
export function commandName(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--root') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

async function parseAndRun(program: Command, argv: string[], deps: CliDeps, call: { json: boolean; name: string | undefined }, result: () => number): Promise<number> {
  try {
    if (call.name === undefined && !argv.some((arg) => HELP_OR_VERSION.includes(arg))) {
      throw errors.usage('no command given: try `sleep-cycle run --dry-run` or `sleep-cycle --help`.');
    }
    await program.parseAsync(argv, { from: 'user' });
    return result();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      return printFailure(deps, call.json, usageError(error, call.name));
    }
    return printFailure(deps, call.json, error);
  }
}

const HELP_OR_VERSION = ['-h', '--help', '-V', '--version'];

/** commander's "error: unknown option '--dry-rn'\n(Did you mean --dry-run?)" as one line, with where to look. */
function usageError(error: CommanderError, name: string | undefined): SleepCycleError {
  // `help <unknown>`: commander has shown the list of commands (on stderr) and says only "(outputHelp)".
  if (error.code === 'commander.help') return errors.usage('no such command: see `sleep-cycle --help` for the list of commands.');
  const [first = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  const suggestion = /\(Did you mean (.+)\?\)/.exec(rest.join(' '))?.[1];
  const help = name !== undefined && Object.hasOwn(COMMANDS, name) ? `sleep-cycle ${name} --help` : 'sleep-cycle --help';
  const message = `${first.replace(/\.$/, '')}${suggestion ? `: did you mean ${suggestion}?` : '.'} See \`${help}\`.`;
  return errors.usage(message, { ...(suggestion ? { suggestion } : {}), help });
}

/** The version in the package.json this CLI ships with. */
async function packageVersion(deps: CliDeps): Promise<string> {
  const text = await deps.fs.readText(resolve(packageRoot(), 'package.json'));
  const version = text === undefined ? undefined : (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
