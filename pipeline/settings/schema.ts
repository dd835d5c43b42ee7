import { CATEGORY_NAME, compileCategoryPatterns, type CategoryPatternSpec } from '../telemetry/classify.js';

/** Every setting with its description, default and check. Keys are the YAML keys in config/sleep-cycle.yaml. */
export interface Settings {
  min_repeats: number;
  window_days: number;
  slow_factor: number;
  slow_min_ms: number;
  baseline_min_samples: number;
  sample_size: number;
  max_clusters: number;
  max_line_bytes: number;
  lock_stale_minutes: number;
  logs: string[];
  memory_file: string;
  skills_dir: string;
  report_file: string;
  state_dir: string;
  safety_rules: string;
  routing: Record<string, string>;
  synthesizer: 'auto' | 'offline' | 'claude';
  model: string;
  max_tokens: number;
  max_llm_calls: number;
  llm_token_budget: number;
  llm_timeout_ms: number;
  llm_max_retries: number;
  url_allowlist: string[];
  reject_cooldown_days: number;
  error_categories: CategoryPatternSpec[];
}

export type SettingKey = keyof Settings;

export interface SettingSpec {
  description: string;
  default: Settings[SettingKey];
  /** Returns the normalized value, or a string saying what was expected. */
  check(value: unknown): { ok: true; value: unknown } | { ok: false; expected: string };
  /** How an environment variable's text becomes a value (undefined: not settable from env). */
  fromEnv?: (text: string) => unknown;
}

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => (value: unknown) =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max
    ? { ok: true as const, value }
    : { ok: false as const, expected: `an integer from ${min} to ${max}` };

const num = (minExclusive: number) => (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > minExclusive
    ? { ok: true as const, value }
    : { ok: false as const, expected: `a number greater than ${minExclusive}` };

const path = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && !value.includes('\0')
    ? { ok: true as const, value }
    : { ok: false as const, expected: 'a non-empty path' };

const paths = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every((item) => path(item).ok)
    ? { ok: true as const, value: [...value] }
    : { ok: false as const, expected: 'a non-empty list of paths' };

const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const routing = (value: unknown) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false as const, expected: 'a map from tool name to skill file name' };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const bad = entries.find(([, skill]) => typeof skill !== 'string' || !SKILL_NAME.test(skill));
  return bad
    ? { ok: false as const, expected: `skill names made of letters, digits, '-' or '_' (tool "${bad[0]}")` }
    : { ok: true as const, value: Object.fromEntries(entries) };
};

const oneOf = (...choices: string[]) => (value: unknown) =>
  typeof value === 'string' && choices.includes(value)
    ? { ok: true as const, value }
    : { ok: false as const, expected: `one of ${choices.join(', ')}` };

const modelId = (value: unknown) =>
  typeof value === 'string' && /^[a-z0-9][a-z0-9.:@_-]{2,80}$/i.test(value)
    ? { ok: true as const, value }
    : { ok: false as const, expected: 'a model id such as claude-haiku-5-5' };

const hosts = (value: unknown) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && /^[a-z0-9.-]+$/i.test(item))
    ? { ok: true as const, value: [...value] }
    : { ok: false as const, expected: 'a list of host names' };

const MAX_PATTERN_CHARS = 500;
/** `[{category, pattern}]`: every pattern must compile here, so a typo fails at load, not mid-hook. */
const categoryPatterns = (value: unknown) => {
  const expected = (problem: string) => ({
    ok: false as const,
    expected: `a list of {category, pattern} (category: lower_snake_case; pattern: a regular expression of at most ${MAX_PATTERN_CHARS} characters) — ${problem}`,
  });
  if (!Array.isArray(value)) return expected('found something that is not a list');
  const specs: CategoryPatternSpec[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return expected(`item ${i + 1} is not a map`);
    const { category, pattern, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) return expected(`item ${i + 1} has unknown key "${extra[0]}"`);
    if (typeof category !== 'string' || !CATEGORY_NAME.test(category) || category === 'none') {
      return expected(`item ${i + 1} has category ${JSON.stringify(category)}`);
    }
    if (typeof pattern !== 'string' || pattern === '' || pattern.length > MAX_PATTERN_CHARS) return expected(`item ${i + 1} has no usable pattern`);
    try {
      compileCategoryPatterns([{ category, pattern }]);
    } catch (error) {
      return expected(`item ${i + 1}: ${(error as Error).message}`);
    }
    specs.push({ category, pattern });
  }
  return { ok: true as const, value: specs };
};

const asNumber = (text: string): unknown => (text.trim() === '' ? text : Number(text));
const asList = (text: string): unknown => text.split(',').map((item) => item.trim()).filter(Boolean);

export const SETTINGS: Record<SettingKey, SettingSpec> = {
  min_repeats: { description: 'How many times a pattern must repeat (inside the window) before it becomes a rule.', default: 3, check: int(1, 1000), fromEnv: asNumber },
  window_days: { description: 'Rolling window, in days, in which sub-threshold clusters carry over between nights.', default: 7, check: num(0), fromEnv: asNumber },
  slow_factor: { description: "A success is slow when its duration exceeds this multiple of the tool's baseline.", default: 2, check: num(1), fromEnv: asNumber },
  slow_min_ms: { description: 'A success shorter than this (ms) is never slow, whatever its baseline: a 150 ms call is not worth a rule.', default: 1000, check: int(0), fromEnv: asNumber },
  baseline_min_samples: { description: 'Successes a tool needs before its duration baseline is trusted.', default: 10, check: int(1, 100_000), fromEnv: asNumber },
  sample_size: { description: 'Evidence samples kept per cluster (redacted).', default: 5, check: int(1, 50), fromEnv: asNumber },
  max_clusters: { description: 'Most distinct clusters one night may open (memory bound); further events are counted in a warning.', default: 10_000, check: int(1, 10_000_000), fromEnv: asNumber },
  max_line_bytes: { description: 'Longer telemetry lines are counted invalid (line_too_long) without being read.', default: 1 << 20, check: int(256), fromEnv: asNumber },
  lock_stale_minutes: { description: 'A lock older than this is taken over even if its process seems alive.', default: 60, check: num(0), fromEnv: asNumber },
  logs: { description: 'Telemetry files to read, relative to the repository root.', default: ['logs/telemetry.jsonl'], check: paths, fromEnv: asList },
  memory_file: { description: 'The memory file whose "## Derived Rules" section sleep-cycle owns.', default: 'MEMORY.md', check: path, fromEnv: (t) => t },
  skills_dir: { description: 'Folder of per-tool skill files (skills/<name>.yaml).', default: 'skills', check: path, fromEnv: (t) => t },
  report_file: { description: 'Where the run report for reviewers is written.', default: 'proposed_memory_updates.md', check: path, fromEnv: (t) => t },
  state_dir: { description: 'Folder for state.json and the lock.', default: '.sleep-cycle', check: path, fromEnv: (t) => t },
  safety_rules: { description: 'The safety policy every drafted rule is checked against.', default: 'config/safety-rules.yaml', check: path, fromEnv: (t) => t },
  routing: { description: 'Tool name -> skill file name: rules for these tools go to skills/<name>.yaml instead of MEMORY.md.', default: {}, check: routing },
  synthesizer: { description: 'Rule writer: auto (claude when ANTHROPIC_API_KEY is set, else offline), offline, or claude.', default: 'auto', check: oneOf('auto', 'offline', 'claude'), fromEnv: (t) => t },
  model: { description: 'Claude model id for the claude synthesizer.', default: 'claude-haiku-5-5', check: modelId, fromEnv: (t) => t },
  max_tokens: { description: 'Most output tokens per Claude call.', default: 400, check: int(64, 8192), fromEnv: asNumber },
  max_llm_calls: { description: 'Most Claude calls per run; later clusters wait for the next night (never dropped).', default: 20, check: int(0, 10_000), fromEnv: asNumber },
  llm_token_budget: { description: 'Most input+output tokens per run; later clusters wait for the next night.', default: 100_000, check: int(0), fromEnv: asNumber },
  llm_timeout_ms: { description: 'Timeout of one Claude request, in ms.', default: 30_000, check: int(1000, 600_000), fromEnv: asNumber },
  llm_max_retries: { description: "Retries of a failed Claude request (the SDK's backoff), before falling back to offline.", default: 2, check: int(0, 10), fromEnv: asNumber },
  url_allowlist: { description: 'Hosts a Claude-written rule may link to; any other URL makes the answer invalid.', default: [], check: hosts, fromEnv: asList },
  reject_cooldown_days: { description: 'How long a pattern rejected in review is not proposed again, in days.', default: 90, check: num(0), fromEnv: asNumber },
  error_categories: {
    description:
      'Extra error categories, tried in order before the built-in ones when telemetry is logged or imported: a list of {category, pattern}, the pattern a regular expression matched case-insensitively against the error text.',
    default: [],
    check: categoryPatterns,
  },
};

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export function defaultSettings(): Settings {
  return structuredClone(
    Object.fromEntries(SETTING_KEYS.map((key) => [key, SETTINGS[key].default])),
  ) as unknown as Settings;
}
