import { DERIVED_HEADING, parseMemory } from './memory-md.js';

export type LogPolicy = 'commit' | 'ignore';

export interface InitFile {
  path: string;
  /** created: did not exist; updated: a section was appended; kept: left exactly as it was. */
  action: 'created' | 'updated' | 'kept';
  content: string;
}

export const SETTINGS_TEMPLATE = `# sleep-cycle settings (optional; unknown keys are errors). Precedence: this file < SLEEP_CYCLE_*
# environment variables < command-line flags. \`npx sleep-cycle config --print\` shows every setting.

# A pattern becomes a rule once seen this many times inside the window.
min_repeats: 3
window_days: 7

# A success is slow when it takes more than slow_factor x the tool's usual duration (and at least slow_min_ms).
slow_factor: 2
slow_min_ms: 1000

# Rule writer: auto = Claude when ANTHROPIC_API_KEY is set, else the offline writer.
synthesizer: auto
max_llm_calls: 20

# Send rules about some tools to skills/<name>.yaml instead of MEMORY.md, e.g.
# routing:
#   git_push: git
routing: {}

# Memory lifecycle: a rule not reinforced (recurrence, memory_refs, touch, human edit) decays after its
# grace period, is archived to archive_file below archive_threshold or after ttl_days, and expires later.
decay_function: power-law   # or exponential, linear, step
decay_grace_days: 28
decay_half_life_days: 30
ttl_days: 90
memory_max_lines: 500
`;

const STATE_IGNORE = `# Written by sleep-cycle while it runs; never committed.
lock
lock.stale-*
*.tmp
hook-pending.json
hook-pending.json.lock
hook-reminded.json
hook-reminded.json.lock
hook-settings.json
hook-index.json
hook-keys.json
hook-session.json
hook-rejects.jsonl
imported.json
preview.md
llm-answers.json
# Local embedding models (similarity: embeddings): tens of MB, fetched per machine.
models/
`;

const LOGS_IGNORE = `# sleep-cycle: telemetry stays on this machine (init --logs ignore).
*
!.gitignore
`;

/** Appends the section with the file's own line ending (CRLF stays CRLF). */
function appendSection(memory: string): string {
  const eol = memory.includes('\r\n') ? '\r\n' : '\n';
  if (memory === '') return `${DERIVED_HEADING}${eol}`;
  const ended = memory.endsWith('\n') ? memory : `${memory}${eol}`;
  return `${ended}${eol}${DERIVED_HEADING}${eol}`;
}

const STATE_IGNORE_HEADER = STATE_IGNORE.slice(0, STATE_IGNORE.indexOf('\n'));

/**
 * The state directory's ignore file. One an earlier version wrote (it starts with our header) gains the
 * entries added since (hook tables, the answer cache), after the user's own lines; any other is the user's.
 */
function stateIgnore(existing: string | undefined): InitFile {
  const path = '.sleep-cycle/.gitignore';
  if (existing === undefined) return { path, action: 'created', content: STATE_IGNORE };
  if (!existing.startsWith(STATE_IGNORE_HEADER)) return { path, action: 'kept', content: existing };
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const have = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = STATE_IGNORE.split('\n').filter((line) => line !== '' && !line.startsWith('#') && !have.has(line));
  if (missing.length === 0) return { path, action: 'kept', content: existing };
  const ended = existing.endsWith('\n') ? existing : `${existing}${eol}`;
  return { path, action: 'updated', content: `${ended}${missing.join(eol)}${eol}` };
}

/** Pure: what `init` writes, given what exists. A file a user has is never overwritten. */
export function buildInitPlan(existing: Record<string, string | undefined>, options: { policy: LogPolicy; safetyRules: string }): InitFile[] {
  const keepOr = (path: string, content: string): InitFile =>
    existing[path] === undefined ? { path, action: 'created', content } : { path, action: 'kept', content: existing[path]! };
  const memory = existing['MEMORY.md'];
  const memoryFile: InitFile =
    memory === undefined
      ? { path: 'MEMORY.md', action: 'created', content: `# Project memory\n\n${DERIVED_HEADING}\n` }
      : parseMemory(memory).section
        ? { path: 'MEMORY.md', action: 'kept', content: memory }
        : { path: 'MEMORY.md', action: 'updated', content: appendSection(memory) };
  const files = [
    keepOr('config/safety-rules.yaml', options.safetyRules),
    keepOr('config/sleep-cycle.yaml', SETTINGS_TEMPLATE),
    memoryFile,
    stateIgnore(existing['.sleep-cycle/.gitignore']),
  ];
  if (options.policy === 'ignore' || existing['logs/.gitignore'] !== undefined) files.push(keepOr('logs/.gitignore', LOGS_IGNORE));
  return files;
}
