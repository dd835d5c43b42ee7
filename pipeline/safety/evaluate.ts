import type { Engine, EngineResult } from 'json-rules-engine';
import { errors } from '../model/errors.js';
import type { DraftRule } from '../model/draft.js';
import { extractFacts } from './facts.js';
import type { RuleFacts } from './facts.js';
import { registerOperators } from './operators.js';
import type { SafetyPolicy, Severity } from './policy.js';
import { isModelWritten, modelTextFindings } from './model-text.js';

export interface Violation {
  ruleId: string;
  severity: Severity;
  reason: string;
  /** The policy file the rule came from, so a reviewer knows where to change it. */
  source: string;
}

export interface SafetyVerdict {
  verdict: 'accept' | 'warn' | 'block';
  /** Every rule that fired, in policy order; never only the first. */
  violations: Violation[];
  /** Ids of every rule the draft was checked against. */
  evaluated: string[];
}

interface PolicyEngine {
  /** Built on first use: a night with no draft and no policy change never loads json-rules-engine. */
  engine: Promise<Engine>;
  /** Tail of the run queue for this engine (see `runSerialized`). */
  tail: Promise<unknown>;
}

// Keyed by the policy object: a run checks many drafts against one policy, and a reloaded policy gets a
// fresh engine without anyone having to invalidate a cache.
const engines = new WeakMap<SafetyPolicy, PolicyEngine>();

/**
 * `errorTexts`: the error texts of the cluster the draft is about (its templates, signatures, evidence
 * messages): the only text a model-written rule may quote in code formatting (error-quote.ts).
 */
export async function evaluateDraft(draft: DraftRule, policy: SafetyPolicy, errorTexts: readonly string[] = []): Promise<SafetyVerdict> {
  const { results, failureResults } = await runSerialized(engineFor(policy), extractFacts(draft));
  // A rule the engine skipped would read as "did not fire", i.e. accept: never let that pass silently.
  if (results.length + failureResults.length !== policy.rules.length) {
    throw errors.internal(`safety check of ${draft.id} evaluated ${results.length + failureResults.length} of ${policy.rules.length} rules`);
  }
  const fired = new Set(results.map((result) => result.name));
  const violations: Violation[] = policy.rules
    .filter((rule) => fired.has(rule.id))
    .map((rule) => ({ ruleId: rule.id, severity: rule.severity, reason: rule.reason, source: policy.file }));
  // A model's text is held to the command policy too: every command parsed, the prose to listed actions.
  if (isModelWritten(draft.synthesizer)) {
    for (const finding of await modelTextFindings(draft.text, draft.toolName, policy.commands, errorTexts)) {
      violations.push({ ruleId: `commands/${finding.id}`, severity: 'block', reason: finding.reason, source: policy.file });
    }
  }
  return { verdict: verdictOf(violations), violations, evaluated: policy.rules.map((rule) => rule.id) };
}

function verdictOf(violations: Violation[]): SafetyVerdict['verdict'] {
  if (violations.some((v) => v.severity === 'block')) return 'block';
  return violations.length > 0 ? 'warn' : 'accept';
}

function engineFor(policy: SafetyPolicy): PolicyEngine {
  let entry = engines.get(policy);
  if (!entry) {
    entry = { engine: buildEngine(policy), tail: Promise.resolve() };
    engines.set(policy, entry);
  }
  return entry;
}

async function buildEngine(policy: SafetyPolicy): Promise<Engine> {
  const { Engine } = await import('json-rules-engine');
  // Every fact is supplied on each run, so an undefined fact can only be an engine misuse: fail loudly.
  const engine = new Engine([], { allowUndefinedFacts: false, allowUndefinedConditions: false });
  registerOperators(engine);
  for (const rule of policy.rules) {
    engine.addRule({
      name: rule.id,
      // All rules share one priority: the engine evaluates them together and none can stop the others.
      priority: 1,
      conditions: structuredClone(rule.conditions),
      event: { type: 'safety-violation', params: { ruleId: rule.id } },
    });
  }
  return engine;
}

/**
 * json-rules-engine keeps a single `status` on the Engine: a run that finishes while another has not yet
 * started its rules flips it to FINISHED, and the other run then skips every rule and reports nothing
 * fired (observed with 7.3.1 on staggered concurrent runs). Queue runs per engine so concurrent callers
 * stay correct.
 */
function runSerialized(entry: PolicyEngine, facts: RuleFacts): Promise<EngineResult> {
  const run = entry.tail.then(async () => (await entry.engine).run({ ...facts }));
  entry.tail = run.catch(() => undefined);
  return run;
}
