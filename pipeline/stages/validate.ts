import type { RunContext } from '../context.js';
import { evaluateDraft, type SafetyVerdict } from '../safety/evaluate.js';
import { errorTextsOf } from '../safety/error-quote.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { suspiciousReasons } from '../synth/echo.js';
import type { DraftRule } from '../model/draft.js';
import type { PromotedCluster } from '../model/cluster.js';

export interface ReviewedDraft {
  draft: DraftRule;
  verdict: SafetyVerdict;
  /** The policy file the draft was checked against. */
  policy: string;
  accepted: boolean;
  /** Why it was quarantined (or warned about): one line per fired policy rule. */
  reasons: string[];
}

export interface Validated {
  reviewed: ReviewedDraft[];
}

/**
 * validate: every draft, from any synthesizer, is checked against the safety policy and for echoes of
 * instruction-like evidence. A blocking violation or a suspicious draft goes to quarantine; warnings
 * travel with an accepted draft to the report.
 */
export async function validate<I extends { drafts: DraftRule[]; policy: SafetyPolicy; promoted: PromotedCluster[] }>(
  input: I,
  _ctx: RunContext,
): Promise<I & Validated> {
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  const reviewed: ReviewedDraft[] = [];
  for (const draft of input.drafts) {
    const cluster = clusters.get(draft.clusterId);
    const verdict = await evaluateDraft(draft, input.policy, cluster ? errorTextsOf(cluster) : []);
    const suspicious = suspiciousReasons(draft.text, cluster, draft.synthesizer.startsWith('claude'));
    reviewed.push({
      draft,
      verdict,
      policy: input.policy.file,
      accepted: verdict.verdict !== 'block' && suspicious.length === 0,
      reasons: [...verdict.violations.map((v) => `${v.severity} ${v.ruleId}: ${v.reason}`), ...suspicious],
    });
  }
  return { ...input, reviewed };
}
