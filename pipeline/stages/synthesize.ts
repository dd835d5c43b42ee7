import { createHash } from 'node:crypto';
import type { RunContext } from '../context.js';
import { SleepCycleError } from '../model/errors.js';
import type { LlmCacheEntry, State } from '../memory/state.js';
import { checkAnswer } from '../synth/answer.js';
import { LlmOutputError, LlmUnavailableError, type LlmUsage } from '../synth/claude.js';
import { draftFor, type SynthesizeRequest } from '../synth/port.js';
import { type DraftRule } from '../model/draft.js';
import { ruleId } from '../model/rule-id.js';
import type { PromotedCluster } from '../model/cluster.js';
import { targetFor, targetKey } from '../model/rule-target.js';
import { parseAnswerCache } from '../memory/answer-cache.js';
import { repoPaths } from '../io/paths.js';
import { JUDGE_APPROVED } from '../synth/judge.js';

export interface LlmRunStats extends LlmUsage {
  synthesizer: string;
  cache_hits: number;
  /** Clusters that fell back to the offline synthesizer, and why. */
  fallbacks: { cluster_id: string; code: string; reason: string }[];
  /** Clusters past the call or token budget: back to pending, drafted on a later night. */
  deferred: string[];
}

export interface Synthesized {
  drafts: DraftRule[];
  deferred: PromotedCluster[];
  /** Clusters no rule was written for (offline: nothing safe and specific to say): for a human or Claude. */
  unwritten: { cluster: PromotedCluster; reason: string }[];
  llm: LlmRunStats;
  llmCache: Record<string, LlmCacheEntry>;
  /** Answers Claude gave tonight: a dry run keeps them for the run that applies it (write-report). */
  newAnswers: Record<string, LlmCacheEntry>;
}

const CACHE_LIMIT = 500;

/**
 * synthesize: one draft per promoted cluster. With Claude configured, each cluster costs one call
 * (or none, from the response cache); invalid answers, outages and a rejected key fall back to the
 * offline synthesizer for that cluster; clusters past the budget wait for the next night.
 */
export async function synthesize<I extends { promoted: PromotedCluster[]; state: State; notices: string[] }>(input: I, ctx: RunContext): Promise<I & Synthesized> {
  const llm = ctx.llm;
  const stats: LlmRunStats = {
    synthesizer: llm ? `claude:${llm.model}` : ctx.synthesizer.name,
    calls: 0, judge_calls: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0,
    cache_hits: 0, fallbacks: [], deferred: [],
  };
  // A dry run's answers first, state's over them: the same key is the same evidence, model and prompt.
  const previewed = llm ? parseAnswerCache(await ctx.fs.readText(repoPaths(ctx.root, ctx.settings).answers)) : {};
  const cache = { ...previewed, ...input.state.llm_cache };
  const newAnswers: Record<string, LlmCacheEntry> = {};
  const drafts: DraftRule[] = [];
  const deferred: PromotedCluster[] = [];
  const notices = [...input.notices];
  let llmUsable = Boolean(llm);

  // Oldest first: a cluster deferred past an earlier budget is drafted before tonight's newcomers.
  // Then by tool and id, so the order does not change when ids do (they hash the template).
  const ordered = [...input.promoted].sort((a, b) => compare(a.first_seen, b.first_seen) || compare(a.tool_name, b.tool_name) || compare(a.id, b.id));
  for (const cluster of ordered) {
    const request: SynthesizeRequest = {
      cluster,
      target: targetFor(cluster.tool_name, ctx.settings.routing),
      ruleId: ruleId(cluster.id, generation(input.state, cluster.id)),
    };
    if (!llm || !llmUsable) {
      drafts.push(await ctx.synthesizer.draft(request));
      continue;
    }
    const key = cacheKey(cluster, llm.model, llm.promptVersion, `${targetKey(request.target)}|${ctx.settings.url_allowlist.join(',')}`);
    const cached = cache[key];
    // State is a file anyone with commit access can edit: a cached answer is checked like a fresh one,
    // and one the judge has not approved (under this judge version) goes to the judge before it is used.
    if (cached && checkAnswer({ rule: cached.text, target: 'memory', rationale: 'cached', confidence: 1 }, cluster, { urlAllowlist: ctx.settings.url_allowlist }).ok) {
      stats.cache_hits += 1;
      const draft = fromCache(cached, request);
      if (cached.notes.includes(JUDGE_APPROVED)) {
        drafts.push(draft);
        continue;
      }
    }
    // A hard cap: a call is made only when its worst case still fits what is left of the budget.
    const used = llm.synthesizer.usage();
    const spent = used.input_tokens + used.output_tokens + used.cache_creation_input_tokens + used.cache_read_input_tokens;
    if (used.calls >= ctx.settings.max_llm_calls || spent + llm.synthesizer.estimate(request) > ctx.settings.llm_token_budget) {
      stats.deferred.push(cluster.id);
      deferred.push(cluster);
      continue;
    }
    try {
      const written = cached && cached.text !== '' && !cached.notes.includes(JUDGE_APPROVED) ? fromCache(cached, request) : await llm.synthesizer.draft(request);
      // The independent judge (a fresh context that sees only the rule text) approves every model-written rule.
      const verdict = await llm.synthesizer.review(written.text, cluster.id);
      if (!verdict.approved) throw new LlmOutputError(cluster.id, ['the independent judge did not approve the rule']);
      const draft = { ...written, notes: [...written.notes.filter((n) => !n.startsWith('judge v')), JUDGE_APPROVED] };
      cache[key] = { text: draft.text, model: llm.model, prompt_version: llm.promptVersion, notes: draft.notes.filter((n) => n !== 'from the response cache (no new call)'), at: ctx.now.toISOString() };
      newAnswers[key] = cache[key];
      drafts.push(draft);
    } catch (error) {
      const fallback = await ctx.synthesizer.draft(request);
      const { code, reason } = describeFailure(error, ctx);
      stats.fallbacks.push({ cluster_id: cluster.id, code, reason });
      drafts.push({ ...fallback, notes: [...fallback.notes, `${code}: ${reason}; written offline instead`] });
      if (code === 'E_LLM') {
        llmUsable = false;
        notices.push(`Claude refused the request: the remaining clusters were written offline. ${reason}`);
      }
    }
  }
  if (stats.deferred.length > 0) {
    notices.push(`${stats.deferred.length} clusters passed the LLM budget (max_llm_calls ${ctx.settings.max_llm_calls}, llm_token_budget ${ctx.settings.llm_token_budget}) and wait for the next night.`);
  }
  Object.assign(stats, llm?.synthesizer.usage() ?? {});
  const byId = new Map(ordered.map((cluster) => [cluster.id, cluster]));
  const unwritten = drafts.filter((draft) => draft.unwritten !== undefined).map((draft) => ({ cluster: byId.get(draft.clusterId)!, reason: draft.unwritten! }));
  return { ...input, drafts: drafts.filter((draft) => draft.unwritten === undefined), deferred, unwritten, llm: stats, llmCache: trimCache(cache), newAnswers, notices };
}

/** Same evidence, model and prompt: same answer. Counts are part of the evidence (the rule quotes them). */
export function cacheKey(cluster: PromotedCluster, model: string, promptVersion: string, context = ''): string {
  const evidence = {
    id: cluster.id, count: cluster.count, distinct: cluster.distinct_inputs, sessions: cluster.sessions.length,
    signatures: cluster.signatures, samples: cluster.samples.map((s) => [s.file, s.offset, s.input_hash, s.message, s.duration_ms]),
    ...(cluster.refines ? { refines: cluster.refines } : {}),
  };
  return createHash('sha256').update(JSON.stringify([evidence, model, promptVersion, context])).digest('hex').slice(0, 24);
}

function fromCache(entry: LlmCacheEntry, request: SynthesizeRequest): DraftRule {
  return draftFor(request, {
    text: entry.text, synthesizer: `claude:${entry.model}`, model: entry.model, promptVersion: entry.prompt_version,
    notes: [...entry.notes, 'from the response cache (no new call)'],
  });
}

/**
 * How many rules this cluster had before: the successor of a rejected, burned or superseded rule (or
 * of a draft rejected in review) gets a new id, so its history is its own.
 */
function generation(state: State, clusterId: string): number {
  // Every earlier rule of the cluster counts: an ineffective rule is still in memory when its successor is drafted.
  const retired = Object.values(state.rules).filter((rule) => rule.cluster_id === clusterId).length;
  const burn = state.burned[clusterId];
  const rejectedDraft = burn?.rule_id && !state.rules[burn.rule_id] ? 1 : 0;
  return retired + rejectedDraft;
}

function describeFailure(error: unknown, ctx: RunContext): { code: string; reason: string } {
  if (error instanceof LlmOutputError) return { code: 'E_LLM_OUTPUT', reason: error.problems.join('; ') };
  if (error instanceof LlmUnavailableError) return { code: 'E_LLM_UNAVAILABLE', reason: `${error.reason}${error.status ? ` (HTTP ${error.status})` : ''}` };
  if (error instanceof SleepCycleError && error.code === 'E_LLM') {
    if (ctx.options.requireLlm) throw error;
    return { code: 'E_LLM', reason: error.message };
  }
  throw error;
}

export function trimCache(cache: Record<string, LlmCacheEntry>): Record<string, LlmCacheEntry> {
  const entries = Object.entries(cache);
  if (entries.length <= CACHE_LIMIT) return cache;
  return Object.fromEntries(entries.sort(([, a], [, b]) => (a.at < b.at ? 1 : -1)).slice(0, CACHE_LIMIT));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
