/**
 * A Claude Code call's own duration, without the time it spent waiting for a human. Neither the hook
 * nor the transcript says when a permission prompt was answered, so the wall time from the call to its
 * result includes the prompt: a Write approved after four minutes "ran" for four minutes, and slow-call
 * rules learned from that are about the human, not the tool. What is known:
 * - some tools are a question to the human (AskUserQuestion, ExitPlanMode): all of their time is his;
 * - a transcript's progress lines (`bash_progress`) say how long the command had been running, so the
 *   wait before it started can be cut off exactly;
 * - a hook installed on PermissionRequest sees the prompt open (then the wait cannot be measured);
 * - the permission mode says whether a prompt was possible at all (bypassPermissions: never;
 *   acceptEdits: not for file edits).
 * A duration that cannot be separated from a possible wait is recorded as 0, the contract's "not
 * measured" (as for a hook call whose PreToolUse was never seen): such a call is never judged slow.
 * For file edits, whose own work takes milliseconds, that is the case whenever a prompt was possible.
 */
export interface CallTiming {
  tool: string;
  /** When the call was made (epoch ms). */
  startMs: number;
  /** When its result came (epoch ms). */
  endMs: number;
  /** The session's permission mode at the time, when known (`default`, `acceptEdits`, …). */
  permissionMode?: string | undefined;
  /** A permission prompt was seen for this call (hook: PermissionRequest). */
  asked?: boolean | undefined;
  /** When the tool started running, from a progress line (epoch ms). */
  runningSinceMs?: number | undefined;
}

/** How a duration was found: the wall time, the wall time less a measured wait, or not measurable. */
export type HumanWait = 'none' | 'excluded' | 'unmeasured';

/** Tools whose whole run is a question to the human. */
export const ASKS_HUMAN: ReadonlySet<string> = new Set(['AskUserQuestion', 'ExitPlanMode']);
/** Tools whose own work is a local file edit: milliseconds, whatever the wall time says. */
const LOCAL_EDITS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** Modes in which Claude Code never opens a prompt. */
const NO_PROMPTS: ReadonlySet<string> = new Set(['bypassPermissions', 'dontAsk']);

/** Whether a permission prompt could have held this call (an unknown mode could have). */
export function mayPrompt(tool: string, permissionMode: string | undefined): boolean {
  if (permissionMode !== undefined && NO_PROMPTS.has(permissionMode)) return false;
  return !(permissionMode === 'acceptEdits' && LOCAL_EDITS.has(tool));
}

export function ownDuration(timing: CallTiming): { durationMs: number; wait: HumanWait } {
  const wall = Math.max(0, timing.endMs - timing.startMs);
  if (ASKS_HUMAN.has(timing.tool)) return { durationMs: 0, wait: 'unmeasured' };
  if (timing.runningSinceMs !== undefined && Number.isFinite(timing.runningSinceMs)) {
    // Progress is reported in whole seconds: a start within a second of the call is no wait at all.
    if (timing.runningSinceMs - timing.startMs < 1000) return { durationMs: wall, wait: 'none' };
    return { durationMs: Math.max(0, Math.min(wall, timing.endMs - timing.runningSinceMs)), wait: 'excluded' };
  }
  if (timing.asked === true) return { durationMs: 0, wait: 'unmeasured' };
  if (LOCAL_EDITS.has(timing.tool) && mayPrompt(timing.tool, timing.permissionMode)) return { durationMs: 0, wait: 'unmeasured' };
  return { durationMs: wall, wait: 'none' };
}
