import { createHash } from 'node:crypto';
import { IN_ARCHIVE, IN_TARGET, type LedgerEntry } from './state.js';
import { evaluateDraft, type Violation } from '../safety/evaluate.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { parseTargetKey } from '../model/rule-target.js';
import { textSha } from '../model/rule-id.js';

/** What the current policy says about a rule already in memory. */
export interface Recheck {
  /** `block` or `warn`; rules the policy accepts are not listed. */
  severity: 'block' | 'warn';
  violations: string[];
}

export interface RecheckResult {
  /** Rule id -> what fired, for rules the current policy no longer accepts. */
  flagged: Record<string, Recheck>;
  /** Rule id -> the `policy:text` fingerprint it was checked at (unchanged rules are not checked again). */
  checked: Record<string, string>;
}

// Per policy object: plan marks every rule it writes with the fingerprint, and serialising and hashing the
// whole policy (its rules and command lists) for each of them was most of the plan stage on 45 drafts.
const fingerprints = new WeakMap<SafetyPolicy, string>();

/** A fingerprint of the policy's rules: when it changes, every rule in memory is checked again. */
export function policyFingerprint(policy: SafetyPolicy): string {
  let fingerprint = fingerprints.get(policy);
  if (fingerprint === undefined) {
    // The command policy is part of it: a tightened command list re-checks yesterday's model-written rules too.
    const checked = policy.commands === undefined ? policy.rules : [policy.rules, policy.commands];
    fingerprint = createHash('sha256').update(JSON.stringify(checked)).digest('hex').slice(0, 16);
    fingerprints.set(policy, fingerprint);
  }
  return fingerprint;
}

/**
 * Rules written under an older policy are checked against the current one (only when the policy or the
 * rule's text changed since the last check): a policy tightened today applies to yesterday's rules too.
 */
/** The current policy's verdict on one rule (for `restore` and `pin`, before it goes back into memory). */
export async function policyVerdict(rule: LedgerEntry, policy: SafetyPolicy): Promise<Recheck | null> {
  const result = await recheckRules({ [rule.id]: { ...rule, state: 'active', policy_checked: undefined } }, policy);
  return result.flagged[rule.id] ?? null;
}

export async function recheckRules(rules: Record<string, LedgerEntry>, policy: SafetyPolicy): Promise<RecheckResult> {
  const fingerprint = policyFingerprint(policy);
  const result: RecheckResult = { flagged: {}, checked: {} };
  for (const rule of Object.values(rules)) {
    // Archived rules too: a recurrence or a `restore` must not bring back what the policy now blocks.
    if (!IN_TARGET.includes(rule.state) && !IN_ARCHIVE.includes(rule.state)) continue;
    // The hash of the text itself, never the stored `text_sha`: state.json is a file anyone with commit
    // access can edit, and a text edited there with its old hash left in place must be checked again.
    const mark = `${fingerprint}:${textSha(rule.text)}`;
    if (rule.policy_checked === mark) continue;
    const verdict = await evaluateDraft(
      { id: rule.id, clusterId: rule.cluster_id, kind: rule.kind, toolName: rule.tool_name, errorCategory: rule.error_category, text: rule.text, target: parseTargetKey(rule.target), synthesizer: rule.provenance.synthesizer, notes: [] },
      policy,
      errorTextsOfRule(rule),
    );
    result.checked[rule.id] = mark;
    if (verdict.verdict !== 'accept') result.flagged[rule.id] = { severity: verdict.verdict, violations: verdict.violations.map(describe) };
  }
  return result;
}

/** The error texts a rule in memory is about, as its ledger entry keeps them (template, templates, evidence). */
function errorTextsOfRule(rule: LedgerEntry): string[] {
  return [...(rule.template ? [rule.template] : []), ...(rule.provenance.templates ?? []), ...rule.provenance.evidence.map((e) => e.message)];
}

function describe(violation: Violation): string {
  return `${violation.severity} ${violation.ruleId}: ${violation.reason}`;
}
