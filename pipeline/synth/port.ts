import type { PromotedCluster } from '../model/cluster.js';
import type { DraftRule } from '../model/draft.js';
import type { RuleTarget } from '../model/rule-target.js';

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
