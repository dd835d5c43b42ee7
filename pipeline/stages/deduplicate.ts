import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { openEmbedder } from '../io/embeddings.js';
import { humanLines } from '../memory/memory-md.js';
import { describeMatch, findNearDuplicates, type DraftText, type DuplicateMatch, type HumanLine } from '../memory/near-duplicates.js';
import { corroborate, mergeDraftClusters } from '../memory/corroborate.js';
import { embeddingMethod, lexicalMethod, type EmbeddingCache, type Similarity } from '../memory/similarity.js';
import { IN_ARCHIVE, IN_TARGET, type State } from '../memory/state.js';
import { textSha } from '../model/rule-id.js';
import type { PromotedCluster, Recurrence } from '../model/cluster.js';
import type { ReviewedDraft } from './validate.js';
import { finalRuleText } from '../synth/rule-text.js';

/** A draft that repeats what memory already says, and what that means for it (see plan). */
export interface Duplicate {
  match: DuplicateMatch;
  /** The similarity method that found it (`lexical` or `embeddings`). */
  method: string;
  /** One line for the report and `run --json`. */
  reason: string;
}

export interface Deduplicated {
  /** Draft id -> what it repeats. Plan writes none of these. */
  duplicates: Record<string, Duplicate>;
}

interface DeduplicateInput {
  state: State;
  reviewed: ReviewedDraft[];
  promoted: PromotedCluster[];
  memoryText: string | undefined;
  claudeText?: string | undefined;
  recurrences?: Recurrence[];
}

/**
 * deduplicate: before a rule is added, it is compared with every rule in memory and with what humans
 * wrote in MEMORY.md (and CLAUDE.md). A near duplicate of a rule corroborates that rule (its counts and
 * evidence grow, the recurrence reinforces it — or restores it when archived — and it covers the cluster
 * from now on); a near duplicate
 * of a draft written tonight joins that draft's rule; a human line that already says it covers the
 * cluster; a rewrite that repeats the rule it was meant to replace is not written (its failures are
 * recorded against that rule, which stays flagged for a human).
 */
export async function deduplicate<I extends DeduplicateInput>(input: I, ctx: RunContext): Promise<I & Deduplicated> {
  const drafts = candidates(input);
  if (drafts.length === 0) return { ...input, duplicates: {} };
  const cache: EmbeddingCache = { ...(input.state.embeddings ?? {}) };
  const similarity = await similarityOf(ctx, cache);
  // Archived rules too: a recurrence restores one (see decay) instead of writing its twin.
  const rules = Object.values(input.state.rules)
    .filter((rule) => [...IN_TARGET, ...IN_ARCHIVE].includes(rule.state) && rule.status !== 'refined' && rule.status !== 'invalidated')
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((rule) => ({ id: rule.id, text: rule.text }));
  const human = humanText(input, ctx.settings.memory_file);
  const found = await findNearDuplicates(drafts, rules, human, similarity);
  const duplicates: Record<string, Duplicate> = {};
  for (const [id, match] of found) duplicates[id] = { match, method: similarity.method, reason: describeMatch(match, similarity.method) };
  const texts = new Map(drafts.map((draft) => [draft.id, draft.text]));
  const applied = applyMatches(input, found, { at: ctx.now.toISOString(), sampleSize: ctx.settings.sample_size, texts });
  const state: State = { ...applied.state, ...(similarity.method === 'embeddings' ? { embeddings: cache } : {}) };
  return { ...input, ...applied, state, duplicates };
}

/** The accepted drafts not yet in memory (a draft already there is plan's plain duplicate). */
function candidates(input: DeduplicateInput): DraftText[] {
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  return input.reviewed
    .filter((item) => item.accepted && !IN_TARGET.includes(input.state.rules[item.draft.id]?.state ?? 'rejected'))
    .map(({ draft }) => {
      const refines = clusters.get(draft.clusterId)?.refines?.rule_id;
      // The text as plan would write it (one line, redacted): compared, and kept in state, only in that form.
      return { id: draft.id, cluster_id: draft.clusterId, text: finalRuleText(draft.text), ...(refines ? { refines } : {}) };
    });
}

async function similarityOf(ctx: RunContext, cache: EmbeddingCache): Promise<Similarity> {
  const s = ctx.settings;
  if (s.similarity !== 'embeddings') return lexicalMethod(s.similarity_threshold_lexical);
  const embedder = await openEmbedder({ model: s.embedding_model, modelPath: resolve(ctx.root, s.embedding_model_path), allowRemote: s.embedding_allow_remote });
  return embeddingMethod(embedder, s.similarity_threshold_embeddings, cache, ctx.now, s.embedding_cache_max);
}

function humanText(input: DeduplicateInput, memoryFile: string): HumanLine[] {
  const lines = (file: string, text: string | undefined) => (text === undefined ? [] : humanLines(text).map((line) => ({ file, ...line })));
  return [...lines(memoryFile, input.memoryText), ...lines('CLAUDE.md', input.claudeText)];
}

/** Turns the matches into state: corroborated rules, merged clusters, covered clusters, rewrites refused. */
function applyMatches(input: DeduplicateInput, found: Map<string, DuplicateMatch>, options: { at: string; sampleSize: number; texts: Map<string, string> }) {
  const { at, sampleSize } = options;
  let state = input.state;
  const recurrences = [...(input.recurrences ?? [])];
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  const clusterOf = new Map(input.reviewed.map((item) => [item.draft.id, clusters.get(item.draft.clusterId)!]));
  let promoted = input.promoted;
  for (const [id, match] of found) {
    const cluster = clusterOf.get(id)!;
    if (match.kind === 'rule') {
      state = { ...state, rules: { ...state.rules, [match.rule_id]: corroborate(state.rules[match.rule_id]!, cluster, sampleSize) } };
      recurrences.push({ rule_id: match.rule_id, cluster_id: cluster.id, count: cluster.count, last_seen: cluster.last_seen });
    } else if (match.kind === 'draft') {
      promoted = mergeDraftClusters(promoted, clusterOf.get(match.rule_id)!.id, cluster, sampleSize);
    } else if (match.kind === 'human') {
      const said = { file: match.file, line: match.line, text_sha: textSha(match.text), score: round(match.score), rule_text: options.texts.get(id)!, at };
      state = { ...state, said_by_human: { ...state.said_by_human, [cluster.id]: said } };
    } else {
      // No rewrite: the failures still count against the rule they were meant to replace, so its
      // effectiveness keeps measuring them (the report lists it for a human).
      recurrences.push({ rule_id: match.rule_id, cluster_id: cluster.id, count: cluster.count, last_seen: cluster.last_seen });
    }
  }
  return { state, recurrences, promoted };
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
