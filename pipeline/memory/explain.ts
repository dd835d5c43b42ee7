import type { LifecycleEvent } from './lifecycle.js';
import { logLocation } from '../model/log-location.js';
import type { State } from './state.js';
import { unknownId } from './review.js';
import { plural } from '../model/plural.js';
import { shownOrWithheld } from '../safety/scan.js';
import { describeEffect, effectFigures } from './call-rates.js';

/**
 * Pure: why a rule (or a quarantined draft) exists, from the ledger and the lifecycle audit. `minCalls`
 * (exposed_min_calls) is the fewest calls a failure rate is shown for.
 */
export function buildExplanation(id: string, state: State, events: LifecycleEvent[], minCalls = 20) {
  const rule = state.rules[id];
  const draft = state.quarantine[id];
  if (!rule && !draft) throw unknownId(id, [...Object.keys(state.rules), ...Object.keys(state.quarantine)], 'rule or quarantined draft');
  const source = rule ?? draft!;
  const provenance = source.provenance;
  return {
    id,
    state: rule ? rule.state : 'quarantined',
    status: rule?.status ?? null,
    pinned: rule?.pinned ?? false,
    weight: rule?.weight ?? null,
    last_reinforced: rule?.last_reinforced ?? null,
    effectiveness: rule?.effectiveness ?? null,
    accesses: rule?.accesses ?? 0,
    exposures: rule?.exposures ?? null,
    /** Did it work, in calls: failures per 100 calls of its family before and since adoption, exposed or not, after a reminder. */
    effect: rule?.effect ? effectFigures(rule.effect, minCalls) : null,
    supersedes: rule?.supersedes ?? null,
    superseded_by: rule?.superseded_by ?? null,
    /** Clusters whose drafts repeated this rule: they corroborated it, and it covers them. */
    near_duplicates: rule?.near_duplicates ?? [],
    text: source.text,
    target: source.target,
    cluster: { id: source.cluster_id, kind: rule?.kind ?? draft?.kind ?? 'failure', tool_name: source.tool_name, error_category: source.error_category },
    template: rule?.template ?? null,
    templates: provenance?.templates ?? [],
    follow_ups: provenance?.follow_ups ?? [],
    counts: provenance ? { count: provenance.count, distinct_inputs: provenance.distinct_inputs, sessions: provenance.sessions } : null,
    first_seen: provenance?.first_seen ?? null,
    last_seen: rule?.last_seen ?? provenance?.last_seen ?? null,
    hits_since_created: rule?.hits ?? 0,
    evidence: provenance?.evidence ?? [],
    synthesizer: provenance?.synthesizer ?? null,
    model: provenance?.model ?? null,
    prompt_version: provenance?.prompt_version ?? null,
    safety: provenance?.safety ?? null,
    quarantine_reasons: draft?.reasons ?? [],
    history: events.filter((event) => event.rule === id || event.rule === source.cluster_id),
  };
}

export type Explanation = ReturnType<typeof buildExplanation>;

const BASIS = { exposure: 'failures per 100 calls exposed vs not', calls: 'failures per 100 calls before vs since', days: 'failures per day' } as const;

export function renderExplanation(e: Explanation): string {
  const out = [
    `${e.id} (${e.state}${e.status ? `, ${e.status}` : ''}${e.pinned ? ', pinned' : ''}${e.weight !== null ? `, weight ${e.weight.toFixed(2)} at the last run` : ''}) → ${e.target}`,
    `  "${e.text}"`,
    `  cluster ${e.cluster.id}: ${e.cluster.kind} of ${e.cluster.tool_name}${e.cluster.error_category ? ` / ${e.cluster.error_category}` : ''}`,
  ];
  if (e.template) out.push(`  template: ${shownOrWithheld(e.template)}`);
  for (const template of e.templates) out.push(`  template (promoted together): ${shownOrWithheld(template)}`);
  for (const up of e.follow_ups) out.push(`  what worked next: ${up.shape} (${plural(up.count, 'time')}, ${plural(up.sessions.length, 'session')})`);
  if (e.counts) out.push(`  seen ${plural(e.counts.count, 'time')}, ${plural(e.counts.distinct_inputs, 'distinct input')}, ${plural(e.counts.sessions, 'session')}, ${e.first_seen} → ${e.last_seen}; ${e.hits_since_created} more since`);
  if (e.effectiveness) out.push(`  effectiveness: ${e.effectiveness.verdict}${e.effectiveness.basis ? ` (by ${BASIS[e.effectiveness.basis]})` : ''} — ${e.effectiveness.why ?? `${e.effectiveness.before_per_day} failures per day before, ${e.effectiveness.after_per_day} since`}, ${plural(e.effectiveness.tool_calls_since, 'call')} of the tool since adoption`);
  if (e.effect) out.push(...describeEffect(e.effect, e.cluster.tool_name, e.effect.min_calls).map((line) => `  ${line}`));
  if (e.exposures) out.push(`  exposed: ${plural(e.exposures.session_start, 'session start')}, ${plural(e.exposures.reminder, 'reminder')} after a failure, in ${plural(e.exposures.sessions, 'session')}; last ${e.exposures.last}`);
  if (e.accesses > 0) out.push(`  accessed ${plural(e.accesses, 'time')} (exposures and memory_refs), last reinforced ${e.last_reinforced}`);
  if (e.supersedes) out.push(`  supersedes ${e.supersedes} (which proved ineffective)`);
  if (e.superseded_by) out.push(`  superseded by ${e.superseded_by}`);
  if (e.near_duplicates.length > 0) out.push(`  corroborated by ${plural(e.near_duplicates.length, 'other cluster')} whose rule would have said the same: ${e.near_duplicates.join(', ')}`);
  out.push(`  written by ${e.synthesizer ?? 'unknown'}${e.model ? ` (${e.model}, prompt v${e.prompt_version})` : ''}`);
  if (e.safety) out.push(`  safety: ${e.safety.verdict} against ${e.safety.policy || 'the policy'} (${plural(e.safety.evaluated?.length ?? 0, 'rule')} evaluated${e.safety.violations.length ? `; fired: ${e.safety.violations.join(', ')}` : ''})`);
  for (const reason of e.quarantine_reasons) out.push(`  quarantined: ${reason}`);
  if (e.evidence.length > 0) out.push('  evidence:');
  for (const item of e.evidence) out.push(`    ${item.timestamp} ${logLocation(item)} input ${item.input_hash} session ${item.session_id ?? '–'}: ${item.message.replace(/\s+/g, ' ').slice(0, 160) || `${item.duration_ms} ms`}`);
  if (e.history.length > 0) out.push('  history:');
  for (const h of e.history) out.push(`    ${h.time} ${h.from} → ${h.to}${h.forced ? ' (forced)' : ''}: ${h.reason}`);
  return `${out.join('\n')}\n`;
}
