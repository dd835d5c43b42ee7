import { resolve } from 'node:path';
import { failureKeyOf } from '../ingest/failure-key.js';
import { findReminder, renderReminder } from '../memory/reminder.js';
import type { HookRule } from '../memory/hook-index.js';
import type { TelemetryEvent } from '../telemetry/event.js';
import { appendExposure } from '../telemetry/exposure.js';
import { claimReminder } from '../telemetry/hook-reminded.js';
import { REMINDED_FILE, type HookDay, type HookOutput } from './hook-day.js';
import { readHookMemory } from './hook-memory.js';

/**
 * Just in time: when a recorded failure belongs to a rule's cluster (keyed as the night keys it), the
 * rule goes next to the failure, once per rule and session, and an exposure line records it. No match,
 * or a rule already shown in this session: nothing. Never blocks: the caller catches and moves on.
 */
export async function remind(event: TelemetryEvent, day: HookDay): Promise<{ rule: string; output: HookOutput } | null> {
  if (event.error_category === 'interrupted' || event.error_category === 'benign') return null;
  const memory = await readHookMemory(day);
  const present = Object.fromEntries(Object.entries(memory.rules).filter(([, rule]) => inTargetFile(rule, memory.memoryText)));
  const rule = findReminder(present, failureKeyOf(event), memory.templates);
  if (rule === null) return null;
  const session = event.session_id ?? '';
  const first = await claimReminder(day.fs, resolve(day.root, day.settings.state_dir, REMINDED_FILE), session, rule.id, day.arrival.getTime());
  if (!first) return null;
  await appendExposure(resolve(day.root, day.settings.logs[0]!), 'reminder', [rule.id], event.session_id, day.arrival);
  const text = renderReminder(rule, memory.memoryText?.get(rule.id));
  return { rule: rule.id, output: { hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: text } } };
}

/** A memory rule a human deleted from the file today is not shown; skill rules are kept in their YAML. */
function inTargetFile(rule: HookRule, memoryText: ReadonlyMap<string, string> | null): boolean {
  return rule.target !== 'memory' || memoryText === null || memoryText.has(rule.id);
}
