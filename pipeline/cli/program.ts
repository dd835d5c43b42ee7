import { Command, CommanderError } from 'commander';
import { errors } from '../model/errors.js';
import type { CommandSpec } from './command-spec.js';
import type { CliDeps } from './context-from-options.js';
import { printFailure } from './output.js';

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
  decay: async () => (await import('./decay-command.js')).decayCommandSpec,
  'pre-session': async () => (await import('./pre-session-command.js')).preSessionCommandSpec,
  touch: async () => (await import('./rule-action-command.js')).ruleActionSpec('touch'),
  pin: async () => (await import('./rule-action-command.js')).ruleActionSpec('pin'),
  unpin: async () => (await import('./rule-action-command.js')).ruleActionSpec('unpin'),
  restore: async () => (await import('./rule-action-command.js')).ruleActionSpec('restore'),
};

/** The specs a command line needs: just its own, or all of them (help, or an unknown command). */
export async function loadSpecs(argv: string[]): Promise<CommandSpec[]> {
  const first = argv[0];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [await COMMANDS[first]!()];
  return Promise.all(Object.values(COMMANDS).map((load) => load()));
}

/** Parses argv, runs one command and returns its exit code. Never exits the process itself. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const json = argv.includes('--json');
  let exitCode = 0;
  const program = new Command('sleep-cycle')
    .description("the agent's night: turn repeated tool failures into reviewed memory rules")
    .exitOverride()
    .configureOutput({ writeOut: deps.stdout, writeErr: json ? () => {} : deps.stderr })
    .showHelpAfterError(!json);
  for (const spec of await loadSpecs(argv)) {
    const command = program.command(spec.name).description(spec.description);
    command.option('--json', 'print one JSON envelope on stdout').option('--root <dir>', 'repository root (default: current directory)');
    for (const option of spec.options) command.addOption(option);
    command.action(async (...received: unknown[]) => {
      // commander passes the declared arguments, then the options object, then the command.
      const args = received.slice(0, -2).map((value) => (value === undefined ? undefined : String(value))) as string[];
      exitCode = await spec.action(args, received.at(-2) as Record<string, unknown>, deps);
    });
  }
  const code = await parseAndRun(program, argv, deps, json, () => exitCode);
  // Claude Code blocks the tool call when a hook exits 2: the hook never fails the agent, whatever went wrong.
  return argv[0] === 'hook' ? 0 : code;
}

async function parseAndRun(program: Command, argv: string[], deps: CliDeps, json: boolean, result: () => number): Promise<number> {
  try {
    if (argv.length === 0) throw errors.usage('no command given: try `sleep-cycle run --dry-run` or `sleep-cycle --help`.');
    await program.parseAsync(argv, { from: 'user' });
    return result();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      return printFailure(deps, json, errors.usage(error.message.replace(/^error: /, '')));
    }
    return printFailure(deps, json, error);
  }
}
