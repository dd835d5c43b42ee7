import type { FileChange } from '../model/file-change.js';
import { skillOf, skillPath, type TargetPaths } from '../model/rule-target.js';
import { addRules, removeRules } from './memory-md.js';
import { addSkillRules, removeSkillRules, type SkillRule } from './skills-yaml.js';

/** The settings that name the files rules are written to and archived in. */
export interface TargetSettings extends TargetPaths {
  archive_file: string;
}

/** The new content of each memory or skill file that gains or loses (archived) rules. */
export function buildTargetChanges(
  input: { memoryText: string | undefined; skillTexts: Record<string, string | undefined> },
  additions: Map<string, SkillRule[]>,
  removals: Map<string, Set<string>>,
  settings: TargetSettings,
): FileChange[] {
  const changes: FileChange[] = [];
  for (const target of [...new Set([...additions.keys(), ...removals.keys()])].sort()) {
    const removed = removals.get(target) ?? new Set<string>();
    const added = additions.get(target) ?? [];
    if (target === 'memory') {
      if (input.memoryText === undefined && added.length === 0) continue;
      const content = addRules(removeRules(input.memoryText ?? '', removed), added);
      if (content !== input.memoryText) changes.push({ path: settings.memory_file, role: 'memory', content });
    } else {
      const skill = skillOf(target)!;
      const path = skillPath(skill, settings);
      const text = input.skillTexts[skill];
      if (text === undefined && added.length === 0) continue;
      const content = addSkillRules(text === undefined ? undefined : removeSkillRules(text, path, removed), skill, path, added);
      if (content !== text) changes.push({ path, role: 'skill', content });
    }
  }
  return changes;
}
