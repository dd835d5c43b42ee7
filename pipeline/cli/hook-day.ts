import { resolve } from 'node:path';
import type { Clock } from '../io/clock.js';
import { confineFs } from '../io/confine.js';
import { nodeFs, type FsPort } from '../io/fs.js';
import type { Settings } from '../settings/schema.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import { appendHookReject, buildHookReject } from '../telemetry/hook-rejects.js';
import type { CliDeps } from './context-from-options.js';

/** What the hook's parts share: its effects, results, output and files (hook-command.ts runs them). */

/**
 * What the hook uses: fewer effects than a command (no git, no worker), so its own small entry
 * (hook-main.ts) can run it without loading the rest of the CLI.
 */
export type HookDeps = Pick<CliDeps, 'fs' | 'clock' | 'env' | 'cwd' | 'stdout' | 'stderr'> & {
  readStdin(): Promise<string>;
};

export type HookResult =
  | { outcome: 'pending'; tool_use_id: string | null }
  | { outcome: 'prompt' }
  /**
   * `human`: paired, less the time a human was asked (or 0 when that cannot be told apart). `reminded`:
   * the rule shown next to this failure (null when none matched or it was shown before in the session).
   */
  | { outcome: 'event'; event: TelemetryEvent; duration: 'paired' | 'human' | 'unknown'; reminded: string | null }
  /** SessionStart: the rules put in the agent's context, in order, and how many did not fit. */
  | { outcome: 'context'; shown: string[]; omitted: number; notice: string | null }
  | { outcome: 'rejected'; reason: string };

/** What Claude Code reads from a hook's stdout (see ../shared/formats/claude-code.md). */
export interface HookOutput {
  hookSpecificOutput: { hookEventName: 'SessionStart' | 'PostToolUseFailure'; additionalContext: string };
}

export const PENDING_FILE = 'hook-pending.json';
export const REJECTS_FILE = 'hook-rejects.jsonl';
export const REMINDED_FILE = 'hook-reminded.json';
/** The rules a reminder matches against, indexed (hook-memory.ts); named here so the path check knows it without loading the memory code. */
export const HOOK_INDEX_FILE = 'hook-index.json';

/** What the day-time parts of the hook (session start, reminder) need. */
export interface HookDay {
  root: string;
  settings: Settings;
  fs: FsPort;
  clock: Clock;
  arrival: Date;
}

export async function rejectPayload(root: string, settings: Settings, now: Date, reason: string, text: string): Promise<HookResult & { outcome: 'rejected' }> {
  const reject = buildHookReject(now, reason, text);
  try {
    const path = resolve(root, settings.state_dir, REJECTS_FILE);
    // Confined like a run's writes: a state folder that is a link out of the project is refused.
    await confineFs(nodeFs, root).identify(path);
    await appendHookReject(path, reject);
  } catch {
    // Nowhere left to report to (read-only checkout?): dropping the payload beats blocking the agent.
  }
  return { outcome: 'rejected', reason: reject.reason };
}

export interface HookOptions {
  root?: string;
  json?: boolean;
}
