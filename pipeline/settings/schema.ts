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
  max_new_rules: number;
  max_pending: number;
  max_line_bytes: number;
  max_bytes_per_night: number;
  ingest_worker_min_mb: number;
  lock_stale_minutes: number;
  logs: string[];
  rotated_logs: string;
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
  decay_function: DecayFunctionName;
  decay_half_life_days: number;
  decay_grace_days: number;
  decay_grace_days_skills: number;
  decay_linear_days: number;
  decay_steps: DecayStep[];
  decay_fast_grace_days: number;
  decay_fast_half_life_days: number;
  decaying_threshold: number;
  archive_threshold: number;
  ttl_days: number;
  importance_max_multiplier: number;
  archive_retention_days: number;
  expired_retention_days: number;
  memory_max_lines: number;
  archive_file: string;
  effectiveness_min_days: number;
  ineffective_ratio: number;
  validate_quiet_days: number;
  validate_min_calls: number;
  exposed_min_calls: number;
  exposed_ineffective_ratio: number;
  similarity: 'lexical' | 'embeddings';
  similarity_threshold_lexical: number;
  similarity_threshold_embeddings: number;
  embedding_model: string;
  embedding_model_path: string;
  embedding_allow_remote: boolean;
  embedding_cache_max: number;
  context_budget_chars: number;
}

export type DecayFunctionName = 'power-law' | 'exponential' | 'linear' | 'step';

/** From `after_days` past the grace period on, a rule's weight is at most `weight`. */
export interface DecayStep {
  after_days: number;
  weight: number;
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

export const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
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
    // One that can backtrack without bound is kept here and left out where patterns are compiled (with a
    // notice): a repository's settings must not cost the night its rules.
    specs.push({ category, pattern });
  }
  return { ok: true as const, value: specs };
};

const bool = (value: unknown) =>
  typeof value === 'boolean' ? { ok: true as const, value } : { ok: false as const, expected: 'true or false' };

/** `true`/`false`/`1`/`0` in an environment variable (anything else is quoted back in the error). */
const asBool = (text: string): unknown => (/^(true|1)$/i.test(text.trim()) ? true : /^(false|0)$/i.test(text.trim()) ? false : text);

/** A Hugging Face model id (`owner/name`): it becomes a folder under embedding_model_path. */
const hubModel = (value: unknown) =>
  typeof value === 'string' && /^[a-z0-9][\w.-]{0,95}(?:\/[a-z0-9][\w.-]{0,95})?$/i.test(value) && !value.includes('..')
    ? { ok: true as const, value }
    : { ok: false as const, expected: 'a model id such as Xenova/all-MiniLM-L6-v2' };

const fraction = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1
    ? { ok: true as const, value }
    : { ok: false as const, expected: 'a number from 0 to 1' };

/** `[{after_days, weight}]` with days increasing and weights not increasing, so weight stays monotone. */
const decaySteps = (value: unknown) => {
  const expected = (problem: string) => ({ ok: false as const, expected: `a list of {after_days, weight} (days increasing, weights from 1 down to 0, never rising) — ${problem}` });
  if (!Array.isArray(value) || value.length === 0) return expected('found no list');
  const steps: DecayStep[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return expected(`item ${i + 1} is not a map`);
    const { after_days, weight, ...rest } = item as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return expected(`item ${i + 1} has unknown key "${Object.keys(rest)[0]}"`);
    if (typeof after_days !== 'number' || !Number.isFinite(after_days) || after_days < 0) return expected(`item ${i + 1} has after_days ${JSON.stringify(after_days)}`);
    if (!fraction(weight).ok) return expected(`item ${i + 1} has weight ${JSON.stringify(weight)}`);
    const previous = steps.at(-1);
    if (previous && (after_days <= previous.after_days || (weight as number) > previous.weight)) return expected(`item ${i + 1} does not follow item ${i}`);
    steps.push({ after_days, weight: weight as number });
  }
  return { ok: true as const, value: steps };
};

/** `30:0.5,60:0.25,90:0` in an environment variable. */
const asSteps = (text: string): unknown =>
  text.split(',').map((pair) => {
    const [days, weight] = pair.split(':');
    return { after_days: asNumber(days ?? ''), weight: asNumber(weight ?? '') };
  });

/** The number an environment variable holds; its text when it holds none, so an error can quote it. */
const asNumber = (text: string): unknown => {
  const value = Number(text);
  return text.trim() === '' || Number.isNaN(value) ? text : value;
};
const asList = (text: string): unknown => text.split(',').map((item) => item.trim()).filter(Boolean);

export const SETTINGS: Record<SettingKey, SettingSpec> = {
  min_repeats: { description: 'How many times a pattern must repeat (inside the window) before it becomes a rule.', default: 3, check: int(1, 1000), fromEnv: asNumber },
  window_days: { description: 'A pattern becomes a rule when it repeats min_repeats times within this many days (older history read in one run is judged as of its own time); sub-threshold clusters carry over between nights inside this window, counted back from the newest event.', default: 7, check: num(0), fromEnv: asNumber },
  slow_factor: { description: "A success is slow when its duration exceeds this multiple of the tool's baseline.", default: 2, check: num(1), fromEnv: asNumber },
  slow_min_ms: { description: 'A success shorter than this (ms) is never slow, whatever its baseline: a 150 ms call is not worth a rule.', default: 1000, check: int(0), fromEnv: asNumber },
  baseline_min_samples: { description: 'Successes a tool needs before its duration baseline is trusted.', default: 10, check: int(1, 100_000), fromEnv: asNumber },
  sample_size: { description: 'Evidence samples kept per cluster (redacted).', default: 5, check: int(1, 50), fromEnv: asNumber },
  max_clusters: { description: 'Most distinct clusters one night keeps (memory bound): past it a new cluster replaces the lightest (a heavy-hitters sketch, so a repeated failure is kept), and the dropped events are counted in a warning.', default: 10_000, check: int(1, 10_000_000), fromEnv: asNumber },
  max_new_rules: { description: 'Most clusters one night promotes to new rules (the heaviest first); the rest wait in pending for the next nights, so a flood cannot fill MEMORY.md in one night.', default: 250, check: int(1, 100_000), fromEnv: asNumber },
  max_pending: { description: 'Most sub-threshold clusters carried over between nights (the heaviest in the window are kept), a bound on state.json.', default: 500, check: int(1, 1_000_000), fromEnv: asNumber },
  max_line_bytes: { description: 'Longer telemetry lines are counted invalid (line_too_long) without being read.', default: 1 << 20, check: int(256), fromEnv: asNumber },
  max_bytes_per_night: { description: 'Most log bytes one run reads (decompressed, for rotated .gz copies): the cursor stops after the last whole line read, and the next run goes on from there.', default: 1 << 30, check: int(1 << 16), fromEnv: asNumber },
  ingest_worker_min_mb: {
    description: 'A night with at least this many MiB to read in one log is split: a worker thread folds the end of the file (a little under half of what is left once the worker is ready) while the main thread folds the rest, and the two are merged into exactly the same result (on machines with 2 or more cores; 0 never splits).',
    default: 32,
    check: (value: unknown) =>
      typeof value === 'number' && Number.isFinite(value) && value >= 0 ? { ok: true as const, value } : { ok: false as const, expected: 'a number of MiB, 0 or more (0: never split)' },
    fromEnv: asNumber,
  },
  lock_stale_minutes: { description: 'A lock older than this is taken over even if its process seems alive.', default: 60, check: num(0), fromEnv: asNumber },
  logs: { description: 'Telemetry files to read, relative to the repository root.', default: ['logs/telemetry.jsonl'], check: paths, fromEnv: asList },
  rotated_logs: {
    description: "Where rotated copies of a log are looked for, next to it: a file-name pattern where {log} is the log's file name, * any characters and [0-9] a character class (the default finds telemetry.jsonl.1 and telemetry.jsonl.2.gz but not telemetry.jsonl.bak; .gz copies are decompressed, other compressions skipped).",
    default: '{log}.[0-9]*',
    check: (value: unknown) =>
      typeof value === 'string' && value.includes('{log}') && !/[/\\\0]/.test(value) && value.length <= 200
        ? { ok: true as const, value }
        : { ok: false as const, expected: 'a file-name pattern containing {log} and no path separator, such as {log}.[0-9]* or {log}-*.gz' },
    fromEnv: (t) => t,
  },
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
      'Extra error categories, tried in order before the built-in ones when telemetry is logged or imported (and when a night reads a hook\'s failure line, written without a category): a list of {category, pattern}, the pattern a regular expression matched case-insensitively against the error text. A pattern that could backtrack without bound (a backreference, a repeated group that repeats or alternates, two unbounded quantifiers) is refused.',
    default: [],
    check: categoryPatterns,
  },
  decay_function: { description: 'How a rule loses weight once its grace period is over: power-law (ACT-R, b = 0.5), exponential (half-life), linear (to zero over decay_linear_days), or step (decay_steps).', default: 'power-law', check: oneOf('power-law', 'exponential', 'linear', 'step'), fromEnv: (t) => t },
  decay_half_life_days: { description: 'Days after the grace period at which a rule weighs 0.5 (power-law and exponential).', default: 30, check: num(0), fromEnv: asNumber },
  decay_grace_days: { description: 'Days after its last reinforcement during which a MEMORY.md rule does not decay at all.', default: 28, check: int(0, 36_500), fromEnv: asNumber },
  decay_grace_days_skills: { description: 'The grace period of rules in skills/*.yaml (a separate tier).', default: 28, check: int(0, 36_500), fromEnv: asNumber },
  decay_linear_days: { description: 'With decay_function linear: days after the grace period at which the weight reaches 0.', default: 90, check: num(0), fromEnv: asNumber },
  decay_steps: { description: 'With decay_function step: a list of {after_days, weight} applied after the grace period.', default: [{ after_days: 30, weight: 0.5 }, { after_days: 60, weight: 0.25 }, { after_days: 90, weight: 0 }], check: decaySteps, fromEnv: asSteps },
  decay_fast_grace_days: { description: 'Grace period of refined (superseded) and invalidated rules.', default: 7, check: int(0, 36_500), fromEnv: asNumber },
  decay_fast_half_life_days: { description: 'Half-life of refined (superseded) and invalidated rules.', default: 14, check: num(0), fromEnv: asNumber },
  decaying_threshold: { description: 'Below this weight an active rule is "decaying": still in memory, flagged in the report.', default: 0.5, check: fraction, fromEnv: asNumber },
  archive_threshold: { description: 'Below this weight a rule is archived (moved to archive_file). Must be below decaying_threshold.', default: 0.1, check: fraction, fromEnv: asNumber },
  ttl_days: { description: 'A rule not reinforced for this many days is archived whatever its weight (extended by importance).', default: 90, check: num(0), fromEnv: asNumber },
  importance_max_multiplier: { description: 'Most that evidence (count, sessions) and accesses can stretch a rule\'s grace period and TTL.', default: 4, check: (v: unknown) => (typeof v === 'number' && v >= 1 && v <= 100 ? { ok: true as const, value: v } : { ok: false as const, expected: 'a number from 1 to 100' }), fromEnv: asNumber },
  archive_retention_days: { description: 'Days an archived rule stays restorable before it expires.', default: 180, check: num(0), fromEnv: asNumber },
  expired_retention_days: { description: 'Days an expired rule stays listed in the archive before it is deleted (its audit history stays).', default: 30, check: num(0), fromEnv: asNumber },
  memory_max_lines: { description: 'Ceiling on MEMORY.md lines: above it, the lowest-weight unpinned derived rules are archived.', default: 500, check: int(10, 1_000_000), fromEnv: asNumber },
  archive_file: { description: 'Human-readable, git-tracked file listing archived and expired rules.', default: 'memory/archive.md', check: path, fromEnv: (t) => t },
  effectiveness_min_days: { description: 'Days a rule must be in place before its effectiveness is judged.', default: 14, check: num(0), fromEnv: asNumber },
  ineffective_ratio: { description: 'A rule whose failures since adoption come at this fraction of the old daily rate or more is ineffective.', default: 0.5, check: fraction, fromEnv: asNumber },
  validate_quiet_days: { description: 'Days without its failure (while the tool kept being used) after which a rule is validated.', default: 14, check: num(0), fromEnv: asNumber },
  validate_min_calls: { description: 'Calls of the tool since adoption needed before a quiet rule counts as working rather than unused.', default: 20, check: int(1), fromEnv: asNumber },
  exposed_min_calls: { description: 'Calls of a rule\'s tool family a failure rate needs before it is shown or judged (before adoption, since, exposed, not exposed); under it the rate prints as "–" (not enough calls).', default: 20, check: int(1), fromEnv: asNumber },
  exposed_ineffective_ratio: { description: 'A rule whose failures per 100 calls when it was in front of the agent (session start or reminder) come at this multiple of the rate when it was not (or, with too few such calls, of the rate before adoption) or more is ineffective.', default: 1, check: num(0), fromEnv: asNumber },
  similarity: { description: 'How a new rule is compared with the rules in memory and the human lines of MEMORY.md (and CLAUDE.md) before it is added: lexical (words; no download) or embeddings (a sentence-embedding model, see embedding_model). A near duplicate corroborates the existing rule instead of adding a bullet.', default: 'lexical', check: oneOf('lexical', 'embeddings'), fromEnv: (t) => t },
  similarity_threshold_lexical: { description: 'With similarity lexical: the score (0 to 1) from which two rule texts say the same thing (calibrated on eval/rule-pairs: npm run eval).', default: 0.4, check: fraction, fromEnv: asNumber },
  similarity_threshold_embeddings: { description: 'With similarity embeddings: the cosine (0 to 1) from which two rule texts say the same thing.', default: 0.8, check: fraction, fromEnv: asNumber },
  embedding_model: { description: 'With similarity embeddings: the feature-extraction model (ONNX, transformers.js layout), looked up under embedding_model_path.', default: 'Xenova/all-MiniLM-L6-v2', check: hubModel, fromEnv: (t) => t },
  embedding_model_path: { description: 'Folder holding local models (<path>/<owner>/<name>/ with tokenizer.json, config.json and onnx/model.onnx), relative to the repository root.', default: '.sleep-cycle/models', check: path, fromEnv: (t) => t },
  embedding_allow_remote: { description: 'Let the embeddings method download embedding_model from the Hugging Face Hub when it is not under embedding_model_path (off: nothing is downloaded).', default: false, check: bool, fromEnv: asBool },
  embedding_cache_max: { description: 'Most embedding vectors kept in state (by text hash) between nights.', default: 2000, check: int(0, 1_000_000), fromEnv: asNumber },
  context_budget_chars: { description: 'Most characters of rules the session-start hook puts in the agent\'s context (0: none).', default: 2000, check: int(0, 100_000), fromEnv: asNumber },
};

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export function defaultSettings(): Settings {
  return structuredClone(
    Object.fromEntries(SETTING_KEYS.map((key) => [key, SETTINGS[key].default])),
  ) as unknown as Settings;
}
