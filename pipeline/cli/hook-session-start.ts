import { resolve } from 'node:path';
import { buildSessionContext, SESSION_HEADER, type SessionContext } from '../memory/session-context.js';
import { readRecentTools } from '../telemetry/recent-tools.js';
import { rejectPayload, type HookDay, type HookOutput, type HookResult } from './hook-day.js';
import { memoryKey } from './hook-keys.js';
import { readHookMemory, type HookMemory } from './hook-memory.js';
import { presentSessionContext, writeSessionCache } from './hook-session-cache.js';

/**
 * SessionStart: the active rules for the agent's context, the most useful first, within
 * `context_budget_chars`, and one exposure line in the telemetry log naming them. Read-only otherwise:
 * it never runs the pipeline and never takes the run lock. A state it cannot read falls back to the
 * memory file's bullets in file order (and says why in the rejects file); nothing to show prints nothing.
 * What it built is kept for the next session starts (hook-session-cache.ts) when it depends on nothing
 * but the two files and the budget.
 */
export async function sessionStart(sessionId: string | undefined, day: HookDay): Promise<{ result: HookResult; output: HookOutput | null }> {
  const key = await memoryKey(day);
  const memory = await readHookMemory(day);
  const context = Object.keys(memory.rules).length > 0 ? await fromLedger(memory, day) : fromMemoryFile(memory, day.settings.context_budget_chars);
  let notice: string | null = null;
  if (memory.problem !== null) {
    notice = `the rule ledger could not be read, the memory file's order was used: ${memory.problem}`;
    await rejectPayload(day.root, day.settings, day.arrival, notice, '');
  } else if (!hasSkillRules(memory)) {
    await writeSessionCache(day, key, context);
  }
  return presentSessionContext(context, sessionId, day, notice);
}

function hasSkillRules(memory: HookMemory): boolean {
  return Object.values(memory.rules).some((rule) => rule.target !== 'memory');
}

async function fromLedger(memory: HookMemory, day: HookDay): Promise<SessionContext> {
  // Skill rules only for tools in use: read from the log's tail only when there are skill rules.
  const recentTools = hasSkillRules(memory) ? await readRecentTools(resolve(day.root, day.settings.logs[0]!)) : new Set<string>();
  return buildSessionContext({ rules: memory.rules, memoryText: memory.memoryText, recentTools, budgetChars: day.settings.context_budget_chars });
}

/** Without a ledger (a broken state.json): the memory file's derived bullets as they stand, in order. */
function fromMemoryFile(memory: HookMemory, budget: number): SessionContext {
  const lines: string[] = [];
  const shown: string[] = [];
  let used = SESSION_HEADER.length;
  for (const id of memory.memoryOrder) {
    const line = `\n- ${(memory.memoryText?.get(id) ?? '').replace(/\s+/g, ' ').trim()} [${id}]`;
    if (used + line.length > budget) break;
    lines.push(line);
    shown.push(id);
    used += line.length;
  }
  return { text: shown.length > 0 ? `${SESSION_HEADER}${lines.join('')}` : '', shown, omitted: memory.memoryOrder.length - shown.length };
}
