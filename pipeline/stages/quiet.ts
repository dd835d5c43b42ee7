import type { RunContext } from '../context.js';
import type { State } from '../memory/state.js';
import { emptyUsage } from '../telemetry/usage.js';
import type { LlmRunStats } from './synthesize.js';

/**
 * quiet: a night without telemetry, for `sleep-cycle decay`. It stands in for ingest, gate, synthesize
 * and validate: nothing is read, promoted or drafted, and cursors, baselines and pending clusters stay
 * as they are, so only the memory lifecycle changes anything.
 */
export async function quiet<I extends { state: State }>(input: I, ctx: RunContext) {
  const llm: LlmRunStats = {
    synthesizer: 'none (lifecycle only)', calls: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0,
    cache_hits: 0, fallbacks: [], deferred: [],
  };
  ctx.logger.info('lifecycle only: no telemetry is read');
  return {
    ...input,
    lines: { read: 0, valid: 0, invalid: 0, old: 0, blank: 0, invalid_by_reason: {} },
    invalidSamples: [],
    clusters: [],
    window: { from: null, to: null },
    usage: emptyUsage(),
    cursors: input.state.cursors,
    baselines: input.state.baselines,
    pending: input.state.pending,
    outcomes: {},
    windowCounts: {},
    recurrences: [],
    promoted: [],
    expired: 0,
    drafts: [],
    deferred: [],
    templates: input.state.templates,
    templateMerges: new Map<string, string>(),
    unwritten: [],
    reviewed: [],
    llm,
    llmCache: input.state.llm_cache,
  };
}
