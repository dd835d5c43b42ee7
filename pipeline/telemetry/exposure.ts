import { appendTelemetry } from './append.js';
import type { TelemetryEvent } from './event.js';
import { inputHash } from './input-hash.js';
import type { ExposureKind } from './usage.js';

/** The tool name of exposure lines: not a tool the agent calls (ingest never counts them as calls). */
export const EXPOSURE_TOOL = 'sleep-cycle';
const MAX_SESSION_CHARS = 200;

/**
 * The line a hook appends when it puts rules in front of the agent: the rule ids in memory_refs (so a
 * night reinforces them as accesses, with no cooperation from the agent) and the kind of exposure, in
 * the telemetry log the night already reads. With session_id, a rule's failures can later be compared
 * between sessions that saw it and sessions that did not.
 */
export function buildExposureEvent(kind: ExposureKind, ruleIds: readonly string[], sessionId: string | undefined, at: Date): TelemetryEvent {
  const session = sessionId !== undefined && sessionId.length > 0 && sessionId.length <= MAX_SESSION_CHARS ? sessionId : undefined;
  return {
    timestamp: at.toISOString(),
    tool_name: EXPOSURE_TOOL,
    input_hash: inputHash({ exposure: kind, rules: ruleIds, session: session ?? null }),
    exit_code: 0,
    duration_ms: 0,
    ...(session !== undefined ? { session_id: session } : {}),
    agent: EXPOSURE_TOOL,
    memory_refs: [...ruleIds],
    exposure: kind,
  };
}

export async function appendExposure(path: string, kind: ExposureKind, ruleIds: readonly string[], sessionId: string | undefined, at: Date): Promise<void> {
  if (ruleIds.length === 0) return;
  await appendTelemetry(path, [buildExposureEvent(kind, ruleIds, sessionId, at)]);
}
