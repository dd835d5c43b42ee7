import { resolve } from 'node:path';
import type { Logger, RunContext, RunOptions } from '../context.js';
import { systemClock, type Clock } from '../io/clock.js';
import { confineFs } from '../io/confine.js';
import { nodeFs, type FsPort } from '../io/fs.js';
import { packageRoot } from '../io/paths.js';
import type { GitPort } from '../io/git.js';
import { lazyGitPort } from '../io/lazy-git.js';
import { workerRangeFolder, type RangeFolderPort } from '../ingest/range-folder.js';
import { stripControls } from '../model/control-chars.js';
import { errors } from '../model/errors.js';
import { CONFIG_FILE, resolveSettings, type ResolvedSettings } from '../settings/resolve.js';
import type { Settings } from '../settings/schema.js';
import { createClaudeSynthesizer } from '../synth/claude.js';
import { createOfflineSynthesizer } from '../synth/offline.js';
import { categoryPatternNotices } from '../telemetry/classify.js';
import { PROMPT_VERSION } from '../synth/prompt.js';

/** The effects a command may use; tests swap any of them. Defaults are read only here. */
export interface CliDeps {
  fs: FsPort;
  git: GitPort;
  clock: Clock;
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Folds the end of a large night's last log on a worker thread (absent: one thread). */
  rangeFolder?: RangeFolderPort;
}

export function defaultDeps(): CliDeps {
  quietWhenReaderLeaves(process.stdout);
  quietWhenReaderLeaves(process.stderr);
  return {
    fs: nodeFs,
    git: lazyGitPort,
    clock: systemClock,
    env: process.env,
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    ...rangeFolderDep(),
  };
}

/**
 * `sleep-cycle templates … | head`: the reader closes the pipe, and the next write fails with EPIPE as an
 * 'error' event, which with no listener is an uncaught exception and a stack trace. Output nobody reads is
 * dropped instead; the command goes on to its end (a night still commits), so nothing is lost.
 */
function quietWhenReaderLeaves(stream: NodeJS.WriteStream): void {
  if (stream.listenerCount('error') > 0) return;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

export { CONFIG_FILE } from '../settings/resolve.js';

export async function loadSettings(deps: CliDeps, root: string, flags: Partial<Settings>): Promise<ResolvedSettings> {
  const filePath = resolve(root, CONFIG_FILE);
  return resolveSettings({ fileText: await confineFs(deps.fs, root).readText(filePath), filePath: CONFIG_FILE, env: deps.env, flags });
}

export function buildRunContext(deps: CliDeps, root: string, settings: Settings, options: RunOptions, nowFlag?: string, verbose = false): RunContext {
  const now = resolveNow(deps, nowFlag);
  // Stage start/finish lines only on request (--verbose): on every terminal run they buried the result.
  const logger: Logger = {
    info: verbose ? (m) => deps.stderr(`sleep-cycle: ${stripControls(m)}\n`) : () => {},
    warn: (m) => deps.stderr(`sleep-cycle: warning: ${stripControls(m)}\n`),
  };
  return {
    root,
    now,
    runId: `run-${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}`,
    settings,
    options,
    // Confined to the repository (links resolved); the package's bundled policy stays readable.
    fs: confineFs(deps.fs, root, [packageRoot()]),
    git: deps.git,
    synthesizer: createOfflineSynthesizer(),
    ...llmFor(settings, deps.env),
    logger,
    startupNotices: [...synthesizerNotices(settings, deps.env), ...categoryPatternNotices(settings.error_categories)],
    ...(deps.rangeFolder ? { rangeFolder: deps.rangeFolder } : {}),
  };
}

function rangeFolderDep(): { rangeFolder?: RangeFolderPort } {
  const rangeFolder = workerRangeFolder();
  return rangeFolder ? { rangeFolder } : {};
}

/**
 * The run's clock: `--now <iso>`, else SLEEP_CYCLE_NOW, else the system clock. Evaluating the lifecycle at
 * another date lets a user preview what a month of quiet would archive (with --dry-run, nothing is written).
 */
export function resolveNow(deps: Pick<CliDeps, 'clock' | 'env'>, flag?: string): Date {
  const [text, where] = flag !== undefined ? [flag, '--now'] : [deps.env.SLEEP_CYCLE_NOW, 'SLEEP_CYCLE_NOW'];
  if (text === undefined || text.trim() === '') return deps.clock.now();
  const match = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(text.trim());
  // A time without an offset is UTC, as a date alone is: the same --now means the same instant on every machine.
  const iso = match ? (match[4] && !match[5] ? `${text.trim()}Z` : text.trim()) : '';
  const ms = match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw errors.usage(`${where} must be an ISO-8601 date or time such as 2026-12-01 or 2026-12-01T03:00:00Z, found ${JSON.stringify(text.slice(0, 40))}.`);
  }
  return new Date(ms);
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Claude writes the rules when a key is set (synthesizer auto or claude); offline stays the fallback. */
function llmFor(settings: Settings, env: Record<string, string | undefined>): Pick<RunContext, 'llm'> {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  // max_llm_calls 0 means no calls at all: the offline writer, rather than deferring every cluster forever.
  if (settings.synthesizer === 'offline' || !apiKey || settings.max_llm_calls === 0) return {};
  const synthesizer = createClaudeSynthesizer({
    apiKey,
    baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined,
    model: settings.model,
    maxTokens: settings.max_tokens,
    timeoutMs: settings.llm_timeout_ms,
    maxRetries: settings.llm_max_retries,
    urlAllowlist: settings.url_allowlist,
  });
  return { llm: { synthesizer, model: settings.model, promptVersion: PROMPT_VERSION } };
}

function synthesizerNotices(settings: Settings, env: Record<string, string | undefined>): string[] {
  if (settings.synthesizer === 'claude' && !env.ANTHROPIC_API_KEY?.trim()) {
    return ['synthesizer is claude but ANTHROPIC_API_KEY is not set: rules were written by the offline synthesizer.'];
  }
  return [];
}
