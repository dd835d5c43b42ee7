import type { PromotedCluster } from '../stages/gate.js';

/** Where an accepted rule is written: MEMORY.md's `## Derived Rules`, or `skills/<skill>.yaml`. */
export type RuleTarget = { kind: 'memory' } | { kind: 'skill'; skill: string };

/** A rule text drafted for one promoted cluster, before the safety check. */
export interface DraftRule {
  /** Rule id: `r-` + 6 hex, derived from the cluster id and its generation. */
  id: string;
  clusterId: string;
  kind: 'failure' | 'slow';
  toolName: string;
  errorCategory: string | null;
  text: string;
  target: RuleTarget;
  synthesizer: string;
  /** For model-written drafts: the model id and the prompt version that produced the text. */
  model?: string;
  promptVersion?: string;
  /** Problems the synthesizer itself noticed (e.g. instruction-like evidence it refused to quote). */
  notes: string[];
}

export interface SynthesizeRequest {
  cluster: PromotedCluster;
  target: RuleTarget;
  /** The id the rule will carry (from the cluster and its generation; see rule-id.ts). */
  ruleId: string;
}

/** The port every rule writer implements: offline (deterministic) now, Claude next. */
export interface Synthesizer {
  readonly name: string;
  draft(request: SynthesizeRequest): Promise<DraftRule>;
}

/** A draft for the request's cluster: the one place that copies the cluster's identity into a draft. */
export function draftFor(
  request: SynthesizeRequest,
  written: { text: string; synthesizer: string; notes: string[]; model?: string; promptVersion?: string },
): DraftRule {
  const { cluster } = request;
  return {
    id: request.ruleId,
    clusterId: cluster.id,
    kind: cluster.kind,
    toolName: cluster.tool_name,
    errorCategory: cluster.error_category,
    target: request.target,
    ...written,
  };
}
