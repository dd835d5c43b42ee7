import type { FileChange } from '../model/file-change.js';
import { skillOf, skillPath, type TargetPaths } from '../model/rule-target.js';
import { orderRules } from './memory-md.js';
import { addSkillRules, parseSkillRules, removeSkillRules } from './skills-yaml.js';
import { IN_TARGET, type LedgerEntry } from './state.js';

/**
 * The derived rules of each file, most useful first: pinned rules (a human said they matter), then by
 * weight, ties by rule id. Weights move only through the lifecycle, so the order changes from night to
 * night only when two rules' weights cross; a new rule (weight 1) comes in among the strongest.
 */
export function rankRules(rules: Record<string, LedgerEntry>, target: string): string[] {
  return Object.values(rules)
    .filter((rule) => rule.target === target && IN_TARGET.includes(rule.state))
    .sort((a, b) => Number(b.pinned) - Number(a.pinned) || (b.weight ?? 1) - (a.weight ?? 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((rule) => rule.id);
}

/**
 * Puts the rules of every memory and skill file in rank order: rewrites the change a file already has,
 * or adds one when only the order changed. Human text never moves (see orderRules).
 */
export function orderTargets(
  input: { memoryText: string | undefined; skillTexts: Record<string, string | undefined> },
  changes: FileChange[],
  rules: Record<string, LedgerEntry>,
  settings: TargetPaths,
): FileChange[] {
  const out = [...changes];
  const targets = new Set(Object.values(rules).filter((rule) => IN_TARGET.includes(rule.state)).map((rule) => rule.target));
  for (const target of [...targets].sort()) {
    const skill = skillOf(target);
    const path = skill === null ? settings.memory_file : skillPath(skill, settings);
    const index = out.findIndex((change) => change.path === path);
    const text = index >= 0 ? out[index]!.content : skill === null ? input.memoryText : input.skillTexts[skill];
    if (text === undefined) continue;
    const ordered = skill === null ? orderRules(text, rankRules(rules, target)) : orderSkill(text, skill, path, rules, target);
    if (ordered === text) continue;
    if (index >= 0) out[index] = { ...out[index]!, content: ordered };
    else out.push({ path, role: skill === null ? 'memory' : 'skill', content: ordered });
  }
  return out;
}

function orderSkill(text: string, skill: string, path: string, rules: Record<string, LedgerEntry>, target: string): string {
  return orderSkillRules(text, skill, path, rankRules(rules, target), (id) => rules[id]?.cluster_id ?? '');
}

/** A skill file's derived_rules in this order: taken out and put back, when it differs. */
export function orderSkillRules(text: string, skill: string, path: string, order: readonly string[], clusterOf: (id: string) => string): string {
  const present = parseSkillRules(text, path);
  const rank = new Map(order.map((id, i) => [id, i]));
  // Items sleep-cycle does not know keep their place; the known ones are put in order around them.
  const known = present.filter((rule) => rank.has(rule.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  let next = 0;
  const sorted = present.map((rule, i) => ({ rule: rank.has(rule.id) ? known[next++]! : rule, i }));
  if (sorted.every((item) => item.rule === present[item.i])) return text;
  const without = removeSkillRules(text, path, new Set(present.map((rule) => rule.id)));
  return addSkillRules(without, skill, path, sorted.map(({ rule }) => ({ ...rule, cluster: clusterOf(rule.id) })));
}
