import { errors, SleepCycleError } from '../model/errors.js';
import { yamlLib } from '../io/yaml-lib.js';
import { defaultSettings, SETTINGS, SETTING_KEYS, type SettingKey, type Settings } from './schema.js';

/** The optional settings file, relative to the repository root. */
export const CONFIG_FILE = 'config/sleep-cycle.yaml';

export type SettingSource = 'default' | 'file' | 'env' | 'flag';

export interface ResolvedSettings {
  settings: Settings;
  sources: Record<SettingKey, SettingSource>;
}

export interface ResolveSettingsOptions {
  /** Text of config/sleep-cycle.yaml, or undefined when the file does not exist. */
  fileText: string | undefined;
  filePath: string;
  env: Record<string, string | undefined>;
  flags: Partial<Settings>;
  /** Parses the file's YAML (default: the yaml library; the hook passes one that caches the result). */
  parseYaml?: (text: string) => unknown;
}

/** Defaults < config file < SLEEP_CYCLE_* environment < flags. Pure: never reads or prints. */
export function resolveSettings(options: ResolveSettingsOptions): ResolvedSettings {
  const settings = defaultSettings() as unknown as Record<SettingKey, unknown>;
  const sources = Object.fromEntries(SETTING_KEYS.map((key) => [key, 'default'])) as Record<SettingKey, SettingSource>;
  const apply = (key: SettingKey, value: unknown, source: SettingSource, where: string) => {
    const checked = SETTINGS[key].check(value);
    if (!checked.ok) throw errors.config(where, key, checked.expected, value);
    settings[key] = checked.value;
    sources[key] = source;
  };

  for (const [key, value] of Object.entries(parseFile(options.fileText, options.filePath, options.parseYaml))) {
    apply(knownKey(key, options.filePath), value, 'file', options.filePath);
  }
  for (const key of SETTING_KEYS) {
    const name = envName(key);
    const text = options.env[name];
    const fromEnv = SETTINGS[key].fromEnv;
    if (text !== undefined && fromEnv) apply(key, fromEnv(text), 'env', `environment ${name}`);
  }
  for (const [key, value] of Object.entries(options.flags)) {
    if (value !== undefined) apply(key as SettingKey, value, 'flag', `--${key.replaceAll('_', '-')}`);
  }
  const resolved = settings as unknown as Settings;
  if (resolved.archive_threshold >= resolved.decaying_threshold) {
    throw errors.config(
      sourceName(sources.archive_threshold, options.filePath, 'archive_threshold'), 'archive_threshold',
      `below decaying_threshold (${resolved.decaying_threshold})`, resolved.archive_threshold,
      'A rule must be flagged as decaying before it can be archived.',
    );
  }
  return { settings: resolved, sources };
}

function sourceName(source: SettingSource, file: string, key: SettingKey): string {
  if (source === 'file') return file;
  if (source === 'env') return `environment ${envName(key)}`;
  return source === 'flag' ? `--${key.replaceAll('_', '-')}` : 'defaults';
}

export function envName(key: SettingKey): string {
  return `SLEEP_CYCLE_${key.toUpperCase()}`;
}

function parseFile(text: string | undefined, file: string, parseYaml = (yaml: string): unknown => yamlLib().parse(yaml)): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new SleepCycleError('E_CONFIG', `${file}: not valid YAML: ${(error as Error).message}`, { file });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw errors.config(file, '(file)', 'a map of settings', data);
  }
  return data as Record<string, unknown>;
}

function knownKey(key: string, file: string): SettingKey {
  if ((SETTING_KEYS as string[]).includes(key)) return key as SettingKey;
  const guess = closest(key, SETTING_KEYS);
  const hint = guess ? `Did you mean "${guess}"?` : `Known settings: ${SETTING_KEYS.join(', ')}.`;
  throw new SleepCycleError('E_CONFIG', `${file}: unknown setting "${key}". ${hint}`, { file, key });
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(3, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
