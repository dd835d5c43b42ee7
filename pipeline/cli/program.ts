import { Command, CommanderError, Option } from 'commander';
import { errors } from '../errors.js';
import { configCommand } from './config-command.js';
import type { CliDeps } from './context-from-options.js';
import { printFailure } from './output.js';
import { runCommand } from './run-command.js';
import { statusCommand } from './status-command.js';
import { explainCommand } from './explain-command.js';
import { hookCommandSpec } from './hook-command.js';
import { importCommandSpec } from './import-command.js';
import { initCommandSpec } from './init-command.js';
import { logCommandSpec } from './log-command.js';
import { reviewCommand } from './review-command.js';

type Action = (args: string[], options: Record<string, unknown>, deps: CliDeps) => Promise<number>;

interface CommandSpec {
  /** Name with its arguments, as commander reads it: `explain <id>`. */
  name: string;
  description: string;
  options: Option[];
  action: Action;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The command table: one row per command, each handled by one small file. */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'run',
    description: 'read new telemetry, cluster repeated failures, write safe rules to memory and commit',
    options: [
      new Option('--dry-run', 'write only proposed_memory_updates.md; change nothing else'),
      new Option('--since <iso>', 'read every line from this ISO-8601 time on, ignoring the cursor'),
      new Option('--log <path>', 'telemetry file to read (repeatable; default logs/telemetry.jsonl)').argParser(collect),
      new Option('--min-repeats <n>', 'repeats needed before a pattern becomes a rule (default 3)'),
      new Option('--no-commit', 'write files but do not commit them'),
      new Option('--require-git', 'fail when the root is not a git repository'),
      new Option('--max-llm-calls <n>', 'most Claude calls this run; later clusters wait for the next night'),
      new Option('--branch <name>', 'commit to this branch (on top of HEAD) instead of HEAD: the nightly pull-request branch'),
      new Option('--push [remote]', 'with --branch: push the branch (default remote origin), replacing it only if it is as last fetched'),
      new Option('--offline', 'write rules with the offline synthesizer even when ANTHROPIC_API_KEY is set (fast, free: for pre-session dry runs)'),
      new Option('--require-llm', 'fail (E_LLM) instead of falling back to offline when Claude rejects the key'),
    ],
    action: (_args, options, deps) => runCommand(options, deps),
  },
  {
    name: 'status',
    description: 'show the cursor, last sleep, pending clusters and rule counts',
    options: [],
    action: (_args, options, deps) => statusCommand(options, deps),
  },
  {
    name: 'config',
    description: 'show settings',
    options: [new Option('--print', 'print the resolved settings and where each came from')],
    action: (_args, options, deps) => configCommand(options, deps),
  },
  {
    name: 'review [id]',
    description: 'list quarantined drafts and pending clusters, or accept/reject one',
    options: [
      new Option('--accept', 'write this quarantined draft into memory'),
      new Option('--reject', 'burn this pattern: not proposed again for reject_cooldown_days'),
      new Option('--force', 'with --accept: accept a draft the safety checks stopped (audited)'),
      new Option('--sha <prefix>', 'with --accept: only if the draft text still has this sha (as listed by review)'),
      new Option('--reason <text>', 'with --reject: why, kept in the lifecycle audit'),
    ],
    action: (args, options, deps) => reviewCommand(args[0], options, deps),
  },
  initCommandSpec,
  logCommandSpec,
  hookCommandSpec,
  importCommandSpec,
  {
    name: 'explain <id>',
    description: 'show why a rule exists: cluster, counts, evidence, synthesizer, safety verdict, history (read-only)',
    options: [],
    action: (args, options, deps) => explainCommand(args[0]!, options, deps),
  },
];

/** Parses argv, runs one command and returns its exit code. Never exits the process itself. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const json = argv.includes('--json');
  let exitCode = 0;
  const program = new Command('sleep-cycle')
    .description("the agent's night: turn repeated tool failures into reviewed memory rules")
    .exitOverride()
    .configureOutput({ writeOut: deps.stdout, writeErr: json ? () => {} : deps.stderr })
    .showHelpAfterError(!json);
  for (const spec of COMMANDS) {
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
