import { skillOf } from '../model/rule-target.js';
import type { LifecycleResult } from './lifecycle-evaluate.js';
import type { LedgerEntry } from './state.js';

/**
 * Skill files the run cannot read (see load) are held as they are for the night: no rule is written to
 * them and none of their rules moves, since every move (an archive, a restore) needs its line changed in
 * the file. Skill name -> why the file cannot be read.
 */
export type UnreadableSkills = Record<string, string>;

/** Whether a target (`memory`, `skill:<name>`) is a file held tonight. */
export function isHeldTarget(target: string, unreadable: UnreadableSkills | undefined): boolean {
  const skill = skillOf(target);
  return skill !== null && unreadable !== undefined && Object.hasOwn(unreadable, skill);
}

/** The lifecycle's result with the rules of held files as they were before it ran. */
export function holdRules(result: LifecycleResult, before: Record<string, LedgerEntry>, unreadable: UnreadableSkills | undefined): LifecycleResult {
  const held = new Set(Object.keys(before).filter((id) => isHeldTarget(before[id]!.target, unreadable)));
  if (held.size === 0) return result;
  const rules = { ...result.rules };
  for (const id of held) rules[id] = before[id]!;
  return {
    rules,
    changes: result.changes.filter((change) => !held.has(change.rule)),
    restored: result.restored.filter((id) => !held.has(id)),
    archived: result.archived.filter((id) => !held.has(id)),
  };
}
