import { resolve } from 'node:path';
import { yamlLib } from '../io/yaml-lib.js';
import { CONFIG_FILE, resolveSettings } from '../settings/resolve.js';
import type { Settings } from '../settings/schema.js';
import { SCRATCH } from '../telemetry/hook-pending.js';
import type { HookDeps } from './hook-day.js';

/**
 * The hook's settings. `init` writes a config/sleep-cycle.yaml, and loading the yaml library costs
 * about 30 ms, half of what the hook may take per tool call: so the parsed file is kept in
 * `<state_dir>/hook-settings.json` with the text it was parsed from, and YAML is parsed again only when
 * the text changed. The text itself is compared, not a digest of it: hashing a settings file in the
 * interpreter of a fresh process cost ~3 ms a call, a string comparison microseconds. The cached values go through the same checks as the file's (resolveSettings): a
 * hand-edited cache cannot smuggle in a value the file could not hold (it is then ignored and rebuilt).
 */
export const SETTINGS_CACHE_FILE = 'hook-settings.json';
/** Where the cache lives: the default state folder (the state_dir setting is itself in the file). */
const CACHE_DIR = '.sleep-cycle';

export async function loadHookSettings(root: string, deps: Pick<HookDeps, 'fs' | 'env'>): Promise<Settings> {
  const text = await deps.fs.readText(resolve(root, CONFIG_FILE));
  if (text === undefined || text.trim() === '') return resolveSettings({ fileText: text, filePath: CONFIG_FILE, env: deps.env, flags: {} }).settings;
  const cachePath = resolve(root, CACHE_DIR, SETTINGS_CACHE_FILE);
  const cached = parseCache(await deps.fs.readText(cachePath).catch(() => undefined), text);
  if (cached !== undefined) {
    try {
      return resolveSettings({ fileText: text, filePath: CONFIG_FILE, env: deps.env, flags: {}, parseYaml: () => cached.data }).settings;
    } catch {
      // A cache the checks refuse was edited by hand (the file itself is parsed and checked below).
    }
  }
  let parsed: unknown;
  const parseYaml = (yaml: string): unknown => (parsed = yamlLib().parse(yaml));
  const settings = resolveSettings({ fileText: text, filePath: CONFIG_FILE, env: deps.env, flags: {}, parseYaml }).settings;
  // Only a file that passed the checks is cached (a broken one is parsed again, and reported, each call).
  await deps.fs.writeAtomic(cachePath, `${JSON.stringify({ version: 2, source: text, data: parsed })}\n`, SCRATCH).catch(() => {});
  return settings;
}

function parseCache(text: string | undefined, source: string): { data: unknown } | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as { version?: unknown; source?: unknown; data?: unknown };
    return value.version === 2 && value.source === source && 'data' in value ? { data: value.data } : undefined;
  } catch {
    return undefined;
  }
}
