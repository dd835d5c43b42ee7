import { countLines, parseMemory } from './memory-md.js';
import { IN_TARGET, type LedgerEntry } from './state.js';

export interface CeilingOutcome {
  max_lines: number;
  lines_before: number;
  lines_after: number;
  /** Derived rules archived to get under the ceiling, lowest weight first. */
  archived: string[];
  /** Lines that are not derived rules: when they alone exceed the ceiling, nothing is archived. */
  human_lines: number;
  warning: string | null;
}

/**
 * MEMORY.md stays at or under `maxLines`: the lowest-weight unpinned derived rules are chosen for the
 * archive until it fits (on equal weight: superseded, then unused, then active, then validated rules;
 * then the rules written tonight, `addedAt`, so a flood of new rules cannot push out the rules that
 * were there before it; then the longest unreinforced). Human text is never touched; when human text
 * alone is over the ceiling, nothing is archived and the outcome carries a warning.
 */
export function enforceCeiling(text: string | undefined, rules: Record<string, LedgerEntry>, maxLines: number, addedAt?: string): CeilingOutcome {
  const lines = text === undefined ? 0 : countLines(text);
  const parsed = text === undefined ? [] : parseMemory(text).rules;
  const humanLines = lines - parsed.length;
  const outcome: CeilingOutcome = { max_lines: maxLines, lines_before: lines, lines_after: lines, archived: [], human_lines: humanLines, warning: null };
  if (lines <= maxLines) return outcome;
  if (humanLines > maxLines) {
    return { ...outcome, warning: `MEMORY.md has ${humanLines} lines of human text, over the ${maxLines}-line ceiling on its own: no derived rule was archived for it (shorten the human part, or raise memory_max_lines).` };
  }
  const inFile = new Set(parsed.map((rule) => rule.id));
  const candidates = Object.values(rules)
    .filter((rule) => rule.target === 'memory' && IN_TARGET.includes(rule.state) && !rule.pinned && inFile.has(rule.id))
    .sort((a, b) => (a.weight ?? 1) - (b.weight ?? 1) || rank(a) - rank(b) || Number(b.created === addedAt) - Number(a.created === addedAt) || cmp(a.last_reinforced ?? a.created, b.last_reinforced ?? b.created) || cmp(a.id, b.id));
  // A hand-duplicated id has several bullets, and removing the rule removes them all.
  const bullets = new Map<string, number>();
  for (const rule of parsed) bullets.set(rule.id, (bullets.get(rule.id) ?? 0) + 1);
  const archived: string[] = [];
  let remaining = lines;
  for (const rule of candidates) {
    if (remaining <= maxLines) break;
    archived.push(rule.id);
    remaining -= bullets.get(rule.id) ?? 1;
  }
  const warning = remaining > maxLines
    ? `MEMORY.md stays at ${remaining} lines, over its ${maxLines}-line ceiling: what is left is human text, pinned rules or lines sleep-cycle does not track (unpin or remove some, or raise memory_max_lines).`
    : null;
  return { ...outcome, archived, lines_after: remaining, warning };
}

/** On equal weight (every rule in its grace period weighs 1): superseded rules go first, proven ones last. */
function rank(rule: LedgerEntry): number {
  if (rule.status === 'refined' || rule.status === 'invalidated') return 0;
  if (rule.status === 'validated') return 3;
  return rule.effectiveness?.verdict === 'unused' ? 1 : 2;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
