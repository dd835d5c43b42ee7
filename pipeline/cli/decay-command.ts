import type { CommandSpec } from './command-spec.js';
import { dryRunOption, noCommitOption, nowOption, runCommand, verboseOption } from './run-command.js';

/**
 * `decay`: the memory lifecycle alone — weigh every rule, move decayed ones to the archive, expire and
 * delete old archive entries — without reading telemetry. Same report, lock, apply and commit as `run`.
 */
export const decayCommandSpec: CommandSpec = {
  name: 'decay',
  description: 'apply the memory lifecycle only (decay, archive, expire) without reading telemetry',
  options: [
    dryRunOption(),
    noCommitOption(),
    nowOption(true),
    verboseOption(),
  ],
  action: (_args, options, deps) => runCommand(options, deps, true),
};
