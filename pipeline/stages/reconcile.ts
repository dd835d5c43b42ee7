import type { RunContext } from '../context.js';
import { humanLines, parseMemory } from '../memory/memory-md.js';
import { parseSkillRules } from '../memory/skills-yaml.js';
import { IN_ARCHIVE, IN_TARGET, type LedgerEntry, type RuleState, type State } from '../memory/state.js';
import { textSha } from '../model/rule-id.js';
import { archivedIds } from '../memory/archive-md.js';
import { skillPath, targetKey } from '../model/rule-target.js';

export interface HumanChange {
  rule_id: string;
  kind: 'deleted' | 'edited';
  target: string;
  /** The rule's state before the change. */
  from: RuleState;
}

export interface Reconciled {
  state: State;
  humanChanges: HumanChange[];
  /** Target (`memory`, `skill:<name>`) -> rule id -> text, for every target file that exists. */
  present: Map<string, Map<string, string>>;
  /**
   * Rules the ledger has in memory but a crashed run already moved to the archive file (it is written
   * before the target files): not deleted by a human. Plan puts them back if they stay in memory.
   */
  movedByCrashedRun: Set<string>;
  /** Archived rules whose line is still in their file (a `restore` interrupted before its state write): plan takes it out. */
  leftInTarget: Set<string>;
}

/**
 * reconcile: reads what humans did to derived rules since the last run. A rule whose line is gone is
 * rejected and its pattern burned (never proposed again); an edited rule keeps the human's text.
 */
export async function reconcile<I extends { state: State; memoryText: string | undefined; claudeText?: string | undefined; skillTexts: Record<string, string | undefined>; unreadableSkills?: Record<string, string>; archiveText?: string | undefined; notices: string[] }>(
  input: I,
  ctx: RunContext,
): Promise<I & Reconciled> {
  const notices = [...input.notices];
  const present = presentRules(input, ctx, notices);
  const rules: Record<string, LedgerEntry> = {};
  const burned = { ...input.state.burned };
  const humanChanges: HumanChange[] = [];
  const inArchive = archivedIds(input.archiveText);
  const movedByCrashedRun = new Set<string>();
  const leftInTarget = new Set<string>();
  for (const [id, rule] of Object.entries(input.state.rules)) {
    const found = present.get(rule.target);
    // Plan takes the line out again, unless tonight's lifecycle restores the rule anyway.
    if (IN_ARCHIVE.includes(rule.state) && found?.has(id)) leftInTarget.add(id);
    if (!IN_TARGET.includes(rule.state) || found === undefined) {
      rules[id] = rule;
      continue;
    }
    const text = found.get(id);
    if (text === undefined && inArchive.has(id)) {
      rules[id] = rule;
      movedByCrashedRun.add(id);
    } else if (text === undefined) {
      rules[id] = { ...rule, state: 'rejected', state_since: ctx.now.toISOString(), pinned: false };
      burned[rule.cluster_id] = { rule_id: id, reason: `deleted by a human from ${rule.target}`, at: ctx.now.toISOString() };
      humanChanges.push({ rule_id: id, kind: 'deleted', target: rule.target, from: rule.state });
    } else if (textSha(text) !== rule.text_sha) {
      rules[id] = { ...rule, text, text_sha: textSha(text) };
      humanChanges.push({ rule_id: id, kind: 'edited', target: rule.target, from: rule.state });
    } else {
      rules[id] = rule;
    }
  }
  const said = stillSaid(input.state.said_by_human, { 'CLAUDE.md': input.claudeText, [ctx.settings.memory_file]: input.memoryText });
  return { ...input, notices, state: { ...input.state, rules, burned, ...(said ? { said_by_human: said } : {}) }, humanChanges, present, movedByCrashedRun, leftInTarget };
}

/**
 * Clusters covered by a human line stay covered while that line is there (found again by its text where
 * lines above it moved); a line the human changed or removed uncovers its cluster, which may be proposed again.
 */
function stillSaid(said: State['said_by_human'], texts: Record<string, string | undefined>): State['said_by_human'] {
  if (said === undefined) return undefined;
  const lines = new Map<string, Map<string, number>>();
  const where = (file: string) => {
    if (!lines.has(file)) lines.set(file, new Map(humanLines(texts[file] ?? '').reverse().map((line) => [textSha(line.text), line.line])));
    return lines.get(file)!;
  };
  const kept = Object.entries(said).flatMap(([id, entry]) => {
    const line = where(entry.file).get(entry.text_sha);
    return line === undefined ? [] : [[id, { ...entry, line }] as const];
  });
  return Object.fromEntries(kept);
}

/** Target -> (rule id -> text) for every target file that exists; a missing file proves nothing. */
function presentRules(
  input: { memoryText: string | undefined; skillTexts: Record<string, string | undefined>; unreadableSkills?: Record<string, string> },
  ctx: RunContext,
  notices: string[],
): Map<string, Map<string, string>> {
  const present = new Map<string, Map<string, string>>();
  if (input.memoryText !== undefined) {
    const parsed = parseMemory(input.memoryText);
    if (parsed.duplicateHeadings > 0) {
      notices.push(`${ctx.settings.memory_file} has ${parsed.duplicateHeadings + 1} "## Derived Rules" headings: only the first is managed.`);
    }
    const ids = parsed.rules.map((rule) => rule.id);
    const repeated = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
    if (repeated.length > 0) {
      notices.push(`${ctx.settings.memory_file} has the same rule id on more than one line (${repeated.join(', ')}): the last line's text is kept; remove the others.`);
    }
    present.set('memory', new Map(parsed.rules.map((rule) => [rule.id, rule.text])));
  }
  for (const [skill, text] of Object.entries(input.skillTexts)) {
    // An unreadable file proves nothing either (load said why): its rules keep their state.
    if (text === undefined || input.unreadableSkills?.[skill] !== undefined) continue;
    const rules = parseSkillRules(text, skillPath(skill, ctx.settings));
    present.set(targetKey({ kind: 'skill', skill }), new Map(rules.map((rule) => [rule.id, rule.text])));
  }
  return present;
}
