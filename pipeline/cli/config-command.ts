import { Option } from 'commander';
import { resolve } from 'node:path';
import { errors } from '../model/errors.js';
import { envName } from '../settings/resolve.js';
import { SETTINGS, SETTING_KEYS } from '../settings/schema.js';
import { CONFIG_FILE, loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface ConfigOptions {
  root?: string;
  json?: boolean;
  print?: boolean;
}

/** `config --print`: the resolved settings and where each value came from. */
export async function configCommand(options: ConfigOptions, deps: CliDeps): Promise<number> {
  if (!options.print) throw errors.usage('config needs an action: use `sleep-cycle config --print`.');
  const root = resolve(deps.cwd, options.root ?? '.');
  const { settings, sources } = await loadSettings(deps, root, {});
  const data = {
    file: CONFIG_FILE,
    settings: Object.fromEntries(
      SETTING_KEYS.map((key) => [key, { value: settings[key], source: sources[key], env: envName(key), description: SETTINGS[key].description }]),
    ),
  };
  return printSuccess(deps, Boolean(options.json), data, () =>
    `${SETTING_KEYS.map((key) => `${key}: ${JSON.stringify(settings[key])}  (${sources[key]})\n    ${SETTINGS[key].description}`).join('\n')}\n`,
  );
}

export const configCommandSpec: CommandSpec = {
  name: 'config',
  description: 'show settings',
  options: [new Option('--print', 'print the resolved settings and where each came from')],
  action: (_args, options, deps) => configCommand(options, deps),
};
