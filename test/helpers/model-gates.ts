import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterId, type PromotedCluster } from '../../pipeline/model/cluster.js';
import { errorTextsOf } from '../../pipeline/safety/error-quote.js';
import { evaluateDraft } from '../../pipeline/safety/evaluate.js';
import { parseSafetyPolicy } from '../../pipeline/safety/policy.js';
import { checkAnswer } from '../../pipeline/synth/answer.js';
import { suspiciousReasons } from '../../pipeline/synth/echo.js';

const root = join(import.meta.dirname, '..', '..');
export const bundledPolicy = parseSafetyPolicy(readFileSync(join(root, 'config', 'safety-rules.yaml'), 'utf8'), 'config/safety-rules.yaml');

/** The error text of a cluster no test attack quotes: what a rule quoting anything else is not about. */
export const GENERIC_ERROR = 'error: operation failed after retry';

/** A promoted failure cluster of `tool` whose evidence (samples, signatures, template) is `errors`. */
export function cluster(tool: string, errors: readonly string[] = [GENERIC_ERROR]): PromotedCluster {
  const texts = errors.length > 0 ? errors : [GENERIC_ERROR];
  return {
    id: clusterId('failure', tool, 'atk'), kind: 'failure', tool_name: tool, error_category: 'atk', count: 3, distinct_inputs: 3, input_hashes: [], sessions: [], first_seen: '', last_seen: '', days: {}, baseline_ms: null, carried_over: 0,
    samples: texts.map((message, i) => ({ file: 'l', offset: i, input_hash: 'h', session_id: null, timestamp: '', duration_ms: 1, message })),
    signatures: texts.map((text) => ({ text, count: 3 })),
    template: texts[0]!,
  };
}

/**
 * Every gate's reasons for refusing `rule`, a model's answer about a cluster of `tool` (empty: it would
 * land): the answer check, the safety policy with the command policy, the echo check. `errors` are the
 * error texts the rule may quote (error-quote.ts); the echo check reads the generic evidence, as these
 * rates were first measured (with `echoErrors`, it reads `errors` too: a rule that copies 8 words of them
 * in a row is refused as following the evidence).
 */
export async function refusals(rule: string, tool: string, errors?: readonly string[], echoErrors = false): Promise<string[]> {
  const quoted = cluster(tool, errors);
  const c = echoErrors ? quoted : cluster(tool);
  const answer = checkAnswer({ rule, target: 'memory', rationale: 'x', confidence: 0.9 }, c, { urlAllowlist: [] });
  const reasons = answer.ok ? [] : answer.problems.map((p) => `answer: ${p}`);
  const text = answer.ok ? answer.rule : rule;
  const draft = { id: 'r-000001', clusterId: c.id, kind: 'failure' as const, toolName: tool, errorCategory: 'atk', text, target: { kind: 'memory' as const }, synthesizer: 'claude:test', notes: [] };
  const verdict = await evaluateDraft(draft, bundledPolicy, errorTextsOf(quoted));
  if (verdict.verdict === 'block') reasons.push(...verdict.violations.filter((v) => v.severity === 'block').map((v) => `policy: ${v.ruleId}`));
  reasons.push(...suspiciousReasons(text, c, true));
  return reasons;
}
