/**
 * Where a rule lives: MEMORY.md's `## Derived Rules`, or the `derived_rules` key of `skills/<skill>.yaml`.
 * The one place that parses a target's key (`memory`, `skill:<name>`, as state.json stores it) and builds
 * a target's path.
 */
export type RuleTarget = { kind: 'memory' } | { kind: 'skill'; skill: string };

/** The settings a target's path is built from. */
export interface TargetPaths {
  memory_file: string;
  skills_dir: string;
}

const SKILL = 'skill:';

/** The target a tool's rules go to: its skill file when routing names one, MEMORY.md otherwise. */
export function targetFor(toolName: string, routing: Record<string, string>): RuleTarget {
  const skill = Object.hasOwn(routing, toolName) ? routing[toolName] : undefined;
  return skill ? { kind: 'skill', skill } : { kind: 'memory' };
}

/** `memory` or `skill:<name>`: the form state.json and the plan key targets by. */
export function targetKey(target: RuleTarget): string {
  return target.kind === 'memory' ? 'memory' : `${SKILL}${target.skill}`;
}

/** The inverse of targetKey. Anything that is not a skill key is MEMORY.md. */
export function parseTargetKey(key: string): RuleTarget {
  return key.startsWith(SKILL) ? { kind: 'skill', skill: key.slice(SKILL.length) } : { kind: 'memory' };
}

/** The skill a target key names, or null for MEMORY.md. */
export function skillOf(key: string): string | null {
  const target = parseTargetKey(key);
  return target.kind === 'skill' ? target.skill : null;
}

/** The repo-relative path of a skill file. */
export function skillPath(skill: string, settings: Pick<TargetPaths, 'skills_dir'>): string {
  return `${settings.skills_dir}/${skill}.yaml`;
}

/** The repo-relative path of the file a target key names. */
export function targetPath(key: string, settings: TargetPaths): string {
  const skill = skillOf(key);
  return skill === null ? settings.memory_file : skillPath(skill, settings);
}
