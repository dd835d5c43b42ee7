import type { HookRule } from './hook-index.js';
import { IN_TARGET } from './state.js';

/**
 * What the session-start hook puts in front of the agent: the rules in memory, the most useful first,
 * within a character budget. Pure: the hook reads the ledger, MEMORY.md and the log's tail and passes
 * them in. Only rules whose text is in their target file count (a rule a human deleted from MEMORY.md
 * today is not shown, and the text shown is the file's, human edits included).
 */
export interface SessionContextInput {
  rules: Record<string, HookRule>;
  /** Rule id -> text of the derived bullets in the memory file now; null when the agent reads that file itself. */
  memoryText: ReadonlyMap<string, string> | null;
  /** Tool families the agent called lately: skill rules are shown only for those. */
  recentTools: ReadonlySet<string>;
  budgetChars: number;
}

export interface SessionContext {
  /** The text for additionalContext ('' when no rule fits or none is active). */
  text: string;
  /** The ids of the rules in `text`, in order: what the exposure line records. */
  shown: string[];
  /** Rules that qualified but did not fit the budget. */
  omitted: number;
}

export const SESSION_HEADER = 'sleep-cycle: rules learnt from repeated tool failures in this project (most useful first):';

export function buildSessionContext(input: SessionContextInput): SessionContext {
  const candidates = orderForSession(eligible(input));
  const lines: string[] = [];
  const shown: string[] = [];
  let used = SESSION_HEADER.length;
  for (const { id, text } of candidates) {
    const line = `\n- ${text} [${id}]`;
    // A rule that does not fit is skipped, not cut: half a rule can say the opposite of the whole.
    if (used + line.length + OMITTED_RESERVE > input.budgetChars) continue;
    lines.push(line);
    shown.push(id);
    used += line.length;
  }
  const omitted = candidates.length - shown.length;
  if (shown.length === 0) return { text: '', shown, omitted };
  const more = omitted > 0 ? `\n(${omitted} more in MEMORY.md and skills/)` : '';
  return { text: `${SESSION_HEADER}${lines.join('')}${more}`, shown, omitted };
}

/** Room kept for the "(N more …)" line, so the whole text stays within the budget. */
const OMITTED_RESERVE = 40;

interface Candidate {
  id: string;
  text: string;
  first: boolean;
  weight: number;
  evidence: number;
}

/** Rules in their target file, not superseded or flagged by the policy, with the text to show. */
function eligible(input: SessionContextInput): Candidate[] {
  const out: Candidate[] = [];
  for (const rule of Object.values(input.rules)) {
    if (!IN_TARGET.includes(rule.state) || rule.status === 'refined' || rule.status === 'invalidated') continue;
    const text = textFor(rule, input);
    if (text === undefined || text === '') continue;
    out.push({ id: rule.id, text, first: rule.pinned || rule.state === 'pinned' || rule.status === 'validated', weight: rule.weight, evidence: rule.count + rule.hits });
  }
  return out;
}

function textFor(rule: HookRule, input: SessionContextInput): string | undefined {
  if (rule.target === 'memory') {
    if (input.memoryText === null) return undefined;
    const text = input.memoryText.get(rule.id);
    return text === undefined ? undefined : oneLine(text);
  }
  const skill = rule.target.startsWith('skill:') ? rule.target.slice('skill:'.length) : rule.target;
  return input.recentTools.has(rule.tool_name) || input.recentTools.has(skill) ? oneLine(rule.text) : undefined;
}

/** Pinned and validated first, then by weight, then by evidence, then by id (a stable order). */
export function orderForSession<T extends Candidate>(candidates: T[]): T[] {
  return [...candidates].sort((a, b) => Number(b.first) - Number(a.first) || b.weight - a.weight || b.evidence - a.evidence || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Whitespace (a newline above all) would let one rule pose as several lines of context. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
