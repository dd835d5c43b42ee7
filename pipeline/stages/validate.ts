import type { RunContext } from '../context.js';
import { evaluateDraft, type SafetyVerdict } from '../safety/evaluate.js';
import type { SafetyPolicy } from '../safety/policy.js';
import type { DraftRule } from '../synth/port.js';

export interface ReviewedDraft {
  draft: DraftRule;
  verdict: SafetyVerdict;
  accepted: boolean;
  /** Why it was quarantined (or warned about): one line per fired policy rule. */
  reasons: string[];
}

export interface Validated {
  reviewed: ReviewedDraft[];
}

/**
 * validate: every draft, from any synthesizer, is checked against the safety policy. A blocking
 * violation sends the draft to quarantine; warnings travel with an accepted draft to the report.
 */
export async function validate<I extends { drafts: DraftRule[]; policy: SafetyPolicy }>(input: I, _ctx: RunContext): Promise<I & Validated> {
  const reviewed: ReviewedDraft[] = [];
  for (const draft of input.drafts) {
    const verdict = await evaluateDraft(draft, input.policy);
    reviewed.push({
      draft,
      verdict,
      accepted: verdict.verdict !== 'block',
      reasons: verdict.violations.map((v) => `${v.severity} ${v.ruleId}: ${v.reason}`),
    });
  }
  return { ...input, reviewed };
}
