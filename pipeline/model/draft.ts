import type { RuleTarget } from './rule-target.js';

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
  /**
   * Set when the synthesizer writes no rule for the cluster (offline: the error cannot be quoted safely
   * and no known failure matches): why. The cluster waits for a human or Claude; `text` is empty.
   */
  unwritten?: string;
}
