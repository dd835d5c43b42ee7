import type { FsPort } from './io/fs.js';
import type { GitPort } from './io/git.js';
import type { RangeFolderPort } from './ingest/range-folder.js';
import type { Settings } from './settings/schema.js';
import type { ClaudeSynthesizer } from './synth/claude.js';
import type { Synthesizer } from './synth/port.js';

export interface RunOptions {
  dryRun: boolean;
  /** ISO-8601: read every line from this time on, ignoring the cursors. */
  since?: string;
  commit: boolean;
  requireGit: boolean;
  /** Fail the run (E_LLM) when Claude rejects the key, instead of falling back to offline. */
  requireLlm?: boolean;
  /** Commit to this branch (parent: HEAD) instead of HEAD itself: the nightly pull-request branch. */
  branch?: string;
  /** Push the branch to this remote after committing (with a lease on what the remote held). */
  push?: string;
  /** Run only the memory lifecycle (`sleep-cycle decay`): no telemetry is read. */
  lifecycleOnly?: boolean;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Progress of a long read, for a terminal (the CLI decides whether to show it). */
export interface Progress {
  start(totalBytes: number): void;
  update(doneBytes: number): void;
  finish(): void;
}

/** Everything with an effect, plus `now`, read once at the entry point and passed to every stage. */
export interface RunContext {
  root: string;
  now: Date;
  runId: string;
  settings: Settings;
  options: RunOptions;
  fs: FsPort;
  git: GitPort;
  /** The deterministic offline synthesizer: the default, and the fallback whenever Claude fails. */
  synthesizer: Synthesizer;
  /** The Claude synthesizer, when a key is set (or `synthesizer: claude`). */
  llm?: { synthesizer: ClaudeSynthesizer; model: string; promptVersion: string };
  logger: Logger;
  /** What the entry point decided that the report should say (e.g. which synthesizer and why). */
  startupNotices: string[];
  /** Shown on a terminal during ingest; absent with --json, in CI and in tests. */
  progress?: Progress;
  /** Folds the end of a large night's last log on another thread (absent: one thread reads everything). */
  rangeFolder?: RangeFolderPort;
}

export const silentLogger: Logger = { info: () => {}, warn: () => {} };
