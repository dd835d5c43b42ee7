import { Option } from 'commander';
import { envName } from '../settings/resolve.js';
import { SETTINGS, SETTING_KEYS } from '../settings/schema.js';
import { CONFIG_FILE, loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import type { CommandSpec } from './command-spec.js';

export interface ConfigOptions {
  root?: string;
  json?: boolean;
  print?: boolean;
}

/** `config` (or `config --print`): the resolved settings and where each value came from. Printing is its only action. */
export async function configCommand(options: ConfigOptions, deps: CliDeps): Promise<number> {
  const root = await resolveRoot(deps, options.root);
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
  description: 'print the resolved settings and where each came from (file, environment or default)',
  options: [new Option('--print', 'the same as `config` alone (kept for scripts that pass it)')],
  action: (_args, options, deps) => configCommand(options, deps),
};
