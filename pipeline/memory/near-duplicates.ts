import { ruleParts } from './rule-parts.js';
import type { Similarity } from './similarity.js';

/** A line (or wrapped bullet) a human wrote in a memory file; `line` is 1-based, as an editor shows it. */
export interface HumanLine {
  file: string;
  line: number;
  text: string;
}

export interface DraftText {
  id: string;
  cluster_id: string;
  text: string;
  /** The ineffective rule this draft would supersede: repeating it is no rewrite at all. */
  refines?: string;
}

export interface KnownRule {
  id: string;
  text: string;
}

/**
 * What a draft turned out to repeat: a rule in memory (which it corroborates instead of being added),
 * a draft written earlier tonight (one bullet for both clusters), a human's line (the cluster is
 * covered), or the very rule it was meant to replace (no rewrite: a human or Claude must say it better).
 */
export type DuplicateMatch =
  | { kind: 'rule'; rule_id: string; score: number }
  | { kind: 'draft'; rule_id: string; score: number }
  | { kind: 'human'; file: string; line: number; text: string; score: number }
  | { kind: 'predecessor'; rule_id: string; score: number };

/**
 * For each draft, in order, the first of: a byte-identical rule; the most similar rule at or above the
 * threshold; the most similar draft kept earlier tonight; the most similar human line. Drafts without a
 * match are kept (and later drafts are compared with them). Pure apart from the similarity port.
 */
export async function findNearDuplicates(
  drafts: readonly DraftText[],
  rules: readonly KnownRule[],
  human: readonly HumanLine[],
  similarity: Similarity,
): Promise<Map<string, DuplicateMatch>> {
  const found = new Map<string, DuplicateMatch>();
  if (drafts.length === 0) return found;
  const texts = drafts.map((d) => d.text);
  const [toRules, toHuman, toDrafts] = await Promise.all([
    subjectScores(similarity, texts, rules.map((r) => r.text)),
    subjectScores(similarity, texts, human.map((h) => h.text)),
    subjectScores(similarity, texts, texts),
  ]);
  const kept: number[] = [];
  drafts.forEach((draft, i) => {
    const match = matchOf(draft, i, { rules, human, drafts, kept, toRules: toRules[i]!, toHuman: toHuman[i]!, toDrafts: toDrafts[i]! }, similarity.threshold);
    if (match) found.set(draft.id, match);
    else kept.push(i);
  });
  return found;
}

/**
 * Scores that respect what a rule is about. Two offline rules about different tools say the same only if
 * their advice does (`Read` and `python` both told to confirm a path exists); two about one tool are
 * compared whole (error and advice); a bare fact ("`tool_a` fails with `…`") repeats another only when
 * both quote the same error about the same tool: its template is its cause. Texts without the offline
 * shape (Claude's rules, human lines) are compared whole.
 */
export async function subjectScores(similarity: Similarity, candidates: readonly string[], references: readonly string[]): Promise<number[][]> {
  const whole = await similarity.scores(candidates, references);
  const a = candidates.map(ruleParts);
  const b = references.map(ruleParts);
  const bothShaped = (i: number, j: number) => a[i]!.tool !== null && b[j]!.tool !== null;
  if (!candidates.some((_, i) => references.some((_, j) => bothShaped(i, j)))) return whole;
  const advice = await similarity.scores(a.map((p) => p.advice ?? ''), b.map((p) => p.advice ?? ''));
  return whole.map((row, i) => row.map((score, j) => {
    if (!bothShaped(i, j)) return score;
    // Two bare facts repeat each other only when they quote the same error about the same tool: two
    // templates of one tool (`version of package failed` / `module of package failed`) are two causes.
    if (a[i]!.advice === null && b[j]!.advice === null) return a[i]!.tool === b[j]!.tool && quoted(candidates[i]!) === quoted(references[j]!) ? score : 0;
    // One tool: the whole text (its error and its advice); tools that differ: the advice alone.
    if (a[i]!.tool === b[j]!.tool) return score;
    return a[i]!.advice === null || b[j]!.advice === null ? 0 : advice[i]![j]!;
  }));
}

/** The error an offline rule quotes (its second code span), for comparing two bare facts. */
function quoted(text: string): string {
  return (/`[^`]*`[^`]*`([^`]*)`/.exec(text)?.[1] ?? '').toLowerCase();
}

interface Candidates {
  rules: readonly KnownRule[];
  human: readonly HumanLine[];
  drafts: readonly DraftText[];
  kept: readonly number[];
  toRules: number[];
  toHuman: number[];
  toDrafts: number[];
}

function matchOf(draft: DraftText, index: number, c: Candidates, threshold: number): DuplicateMatch | null {
  const ruleMatch = (id: string, score: number): DuplicateMatch => (id === draft.refines ? { kind: 'predecessor', rule_id: id, score } : { kind: 'rule', rule_id: id, score });
  // Byte-identical never depends on a threshold (nor on a text with no words left to compare).
  const same = c.rules.find((rule) => rule.text === draft.text);
  if (same) return ruleMatch(same.id, 1);
  const sameDraft = c.kept.find((k) => c.drafts[k]!.text === draft.text);
  if (sameDraft !== undefined) return { kind: 'draft', rule_id: c.drafts[sameDraft]!.id, score: 1 };
  const rule = best(c.rules.map((_, j) => j), c.toRules, threshold);
  if (rule !== null) return ruleMatch(c.rules[rule]!.id, c.toRules[rule]!);
  const earlier = best(c.kept.filter((k) => k < index), c.toDrafts, threshold);
  if (earlier !== null) return { kind: 'draft', rule_id: c.drafts[earlier]!.id, score: c.toDrafts[earlier]! };
  const line = best(c.human.map((_, j) => j), c.toHuman, threshold);
  if (line !== null) {
    const { file, line: n, text } = c.human[line]!;
    return { kind: 'human', file, line: n, text, score: c.toHuman[line]! };
  }
  return null;
}

/** The index with the highest score at or above the threshold (the first on ties), or null. */
function best(indexes: number[], scores: number[], threshold: number): number | null {
  let chosen: number | null = null;
  for (const j of indexes) {
    const score = scores[j]!;
    if (score >= threshold && (chosen === null || score > scores[chosen]!)) chosen = j;
  }
  return chosen;
}

export function describeMatch(match: DuplicateMatch, method: string): string {
  const score = `${method} similarity ${match.score.toFixed(2)}`;
  switch (match.kind) {
    case 'rule':
      return `near duplicate of ${match.rule_id} (${score}): corroborates it instead of adding a bullet`;
    case 'draft':
      return `near duplicate of tonight's ${match.rule_id} (${score}): one bullet for both clusters`;
    case 'human':
      return `already said in ${match.file} line ${match.line} (${score}): the cluster is covered`;
    case 'predecessor':
      return `repeats the rule it would replace, ${match.rule_id} (${score}): not a rewrite; its failures count against ${match.rule_id}, which needs a human or Claude`;
  }
}
