import { parseEvents } from '../memory/lifecycle.js';
import { buildTrends } from '../memory/trends.js';
import { trendTable } from './trend-table.js';
import { describeAfterReminder, shortRate } from '../memory/call-rates.js';
import type { RunContext } from '../context.js';
import type { RepoInfo } from '../io/git.js';
import { commitSkipReason } from './commit.js';
import { scanInstructionLike, shownOrWithheld } from '../safety/scan.js';
import type { PendingCluster, State } from '../memory/state.js';
import type { Cluster, Evidence } from '../model/cluster.js';
import type { ClusterOutcome, PromotedCluster, Recurrence } from '../model/cluster.js';
import type { InvalidLine, LineCounts } from './ingest.js';
import type { Plan, Proposal } from './plan.js';
import type { HumanChange } from './reconcile.js';
import type { ReviewedDraft } from './validate.js';
import type { LlmRunStats } from './synthesize.js';
import { logLocation } from '../model/log-location.js';
import { targetPath } from '../model/rule-target.js';

import type { Duplicate } from './deduplicate.js';

export interface ReportInput {
  lines: LineCounts;
  invalidSamples: InvalidLine[];
  window: { from: string | null; to: string | null };
  clusters: Cluster[];
  outcomes: Record<string, ClusterOutcome>;
  promoted: PromotedCluster[];
  pending: Record<string, PendingCluster>;
  recurrences: Recurrence[];
  reviewed: ReviewedDraft[];
  /** Clusters no rule was written for (see synthesize). */
  unwritten?: { cluster: PromotedCluster; reason: string }[];
  humanChanges: HumanChange[];
  llm: LlmRunStats;
  notices: string[];
  state: State;
  plan: Plan;
  repo: RepoInfo;
  /** The audit log before tonight (the trend's rules added, archived and restored per night). */
  lifecycleText?: string | undefined;
  /** Drafts that repeat a rule, tonight's earlier draft or a human line (see deduplicate). */
  duplicates?: Record<string, Duplicate>;
}

export interface ReportMeta {
  /** Why this run does not commit, or null when it commits what it writes. */
  commitSkip: string | null;
  now: Date;
  runId: string;
  dryRun: boolean;
  memoryFile: string;
  skillsDir: string;
  /** Fewest calls a failure rate is shown for (exposed_min_calls; 20 when absent). */
  minCalls?: number;
}

/** report: renders the plan into proposed_memory_updates.md. Pure and deterministic for the same input and clock. */
export async function report<I extends ReportInput>(input: I, ctx: RunContext): Promise<I & { reportText: string }> {
  const meta: ReportMeta = {
    commitSkip: commitSkipReason(input.repo, ctx),
    now: ctx.now, runId: ctx.runId, dryRun: ctx.options.dryRun,
    memoryFile: ctx.settings.memory_file, skillsDir: ctx.settings.skills_dir, minCalls: ctx.settings.exposed_min_calls,
  };
  return { ...input, reportText: renderReport(input, meta) };
}

export function renderReport(input: ReportInput, meta: ReportMeta): string {
  const out: string[] = [];
  const mode = meta.dryRun ? 'dry run: nothing was written but this report' : 'applied';
  out.push('# Proposed memory updates', '', `_sleep-cycle ${meta.runId} at ${meta.now.toISOString()} (${mode})._`, '');
  summary(out, input, meta);
  trend(out, input, meta);
  proposals(out, input, meta, false);
  proposals(out, input, meta, true);
  unwrittenClusters(out, input);
  recurrences(out, input);
  lifecycle(out, input, meta);
  didItWork(out, input, meta);
  humanChanges(out, input);
  pendingClusters(out, input);
  invalidLines(out, input);
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function summary(out: string[], input: ReportInput, meta: ReportMeta): void {
  const { lines } = input;
  const count = (outcome: ClusterOutcome) => Object.values(input.outcomes).filter((o) => o === outcome).length;
  const byStatus = (status: Proposal['status']) => input.plan.proposals.filter((p) => p.status === status).length;
  out.push('## Summary', '', '| | |', '|---|---|');
  out.push(`| events read | ${input.window.from ?? '–'} → ${input.window.to ?? '–'} |`);
  out.push(`| lines | ${lines.read} read, ${lines.valid} valid, ${lines.invalid} invalid, ${lines.old} old, ${lines.blank} blank |`);
  const replaced = Object.entries(lines.identifiers_replaced ?? {}).sort();
  if (replaced.length > 0) out.push(`| identifiers replaced by placeholders | ${replaced.map(([field, n]) => `${n} ${field}`).join(', ')} (not a valid name, or a URL, flag, secret or instruction inside) |`);
  out.push(`| clusters | ${input.clusters.length} (${count('promoted')} promoted, ${count('pending')} pending, ${count('covered')} covered by a rule, ${count('restored')} restored a rule, ${count('burned')} burned) |`);
  // In a real run a `proposed` rule was held back: its skill file could not be read (see the notices).
  const heldBack = !meta.dryRun && byStatus('proposed') > 0 ? `, ${byStatus('proposed')} held back (file unreadable)` : '';
  const accepted = meta.dryRun ? `${byStatus('proposed')} proposed` : `${byStatus('applied')} applied${heldBack}`;
  out.push(`| rules | ${accepted}, ${byStatus('quarantined')} quarantined, ${byStatus('duplicate')} duplicate |`);
  const llm = input.llm;
  const usage = llm.synthesizer.startsWith('claude')
    ? ` (LLM calls: ${llm.calls}, tokens in/out: ${llm.input_tokens}/${llm.output_tokens}, prompt cache reads: ${llm.cache_read_input_tokens}, response cache hits: ${llm.cache_hits}, offline fallbacks: ${llm.fallbacks.length}, deferred: ${llm.deferred.length})`
    : ' (no LLM calls)';
  out.push(`| synthesizer | ${llm.synthesizer}${usage} |`);
  out.push(`| commit | ${meta.commitSkip ?? `\`${input.plan.commitMessage}\` (what sleep-cycle wrote, nothing else)`} |`, '');

  if (input.notices.length > 0) {
    out.push('### Notices', '', ...input.notices.map((notice) => `- ${escapeProse(notice)}`), '');
  }
}

/** Failures over the last nights, tonight included (tonight is recorded only when the run applies). */
function trend(out: string[], input: ReportInput, meta: ReportMeta): void {
  const events = [...parseEvents(input.lifecycleText), ...input.plan.events];
  const table = trendTable(buildTrends(input.plan.nextState, events, meta.now));
  if (table !== '') out.push('## Trend', '', table);
}

function proposals(out: string[], input: ReportInput, meta: ReportMeta, quarantined: boolean): void {
  const list = input.plan.proposals.filter((p) => (p.status === 'quarantined') === quarantined);
  out.push(quarantined ? '## Quarantined drafts' : '## Proposed rules', '');
  if (list.length === 0) {
    out.push(quarantined ? '_None: every draft passed the safety policy._' : '_No new rules this run._', '');
    return;
  }
  if (quarantined) out.push('These drafts were blocked by the safety policy. They are kept in state for review and never written to memory.', '');
  const clusters = new Map(input.promoted.map((cluster) => [cluster.id, cluster]));
  const reviewed = new Map(input.reviewed.map((item) => [item.draft.id, item]));
  for (const proposal of list) {
    const cluster = clusters.get(proposal.cluster_id);
    const verdict = reviewed.get(proposal.id)?.verdict;
    out.push(`### \`${proposal.id}\` → ${targetName(proposal.target, meta)} (${proposal.status})`, '');
    out.push(`> ${withheldIfInstructionLike(proposal.text, 'rule text')}`, '');
    out.push(`- cluster: \`${proposal.cluster_id}\` — ${proposal.kind} of \`${escapeCode(proposal.tool_name)}\`${proposal.error_category ? ` / \`${escapeCode(proposal.error_category)}\`` : ''}`);
    if (cluster) templateLines(out, cluster);
    if (cluster) {
      const carried = cluster.carried_over > 0 ? ` (${cluster.carried_over} carried over from earlier nights)` : '';
      out.push(`- seen: ${cluster.count} times${carried}, ${cluster.distinct_inputs} distinct inputs, ${cluster.sessions.length} sessions, ${cluster.first_seen} → ${cluster.last_seen}`);
    }
    if (verdict) {
      const fired = verdict.violations.map((v) => `${v.severity} \`${v.ruleId}\` (${escapeInline(v.reason)})`).join('; ');
      out.push(`- safety: **${verdict.verdict}** after ${verdict.evaluated.length} policy rules${fired ? `: ${fired}` : ''}`);
    }
    // Our own words (a rule id, a file name from the settings, a line number): shown as they are, never withheld.
    const duplicate = input.duplicates?.[proposal.id];
    if (duplicate && proposal.status === 'duplicate') out.push(`- not written: ${escapeProse(duplicate.reason)}`);
    for (const reason of proposal.reasons.filter((r) => !verdict?.violations.some((v) => r.includes(v.ruleId)) && r !== duplicate?.reason)) {
      out.push(`- note: ${withheldIfInstructionLike(reason, 'note')}`);
    }
    if (cluster) evidenceTable(out, cluster.samples);
    out.push('');
  }
}

/** The template(s) a cluster stands for, and what worked next. */
function templateLines(out: string[], cluster: PromotedCluster): void {
  if (cluster.template) out.push(`- template: \`${escapeCode(shownOrWithheld(cluster.template))}\` (\`${cluster.template_id}\`)`);
  for (const t of cluster.templates ?? []) out.push(`- template (promoted together): \`${escapeCode(shownOrWithheld(t.template))}\` × ${t.count} (\`${t.id}\`)`);
  for (const up of cluster.follow_ups ?? []) {
    out.push(`- what worked next: \`${escapeCode(up.shape)}\` × ${up.count} in ${up.sessions.length} session${up.sessions.length === 1 ? '' : 's'}`);
  }
}

/** Clusters over the threshold that got no rule: nothing safe and specific could be said offline. */
function unwrittenClusters(out: string[], input: ReportInput): void {
  const unwritten = input.unwritten ?? [];
  if (unwritten.length === 0) return;
  out.push('## Needs a human or Claude', '', 'These clusters reached the threshold, but no rule was written: the offline writer had nothing safe and specific to say. They stay pending; write a rule by hand, or run with Claude.', '');
  for (const { cluster, reason } of unwritten) {
    out.push(`### \`${cluster.id}\` — \`${escapeCode(cluster.tool_name)}\`${cluster.error_category ? ` / \`${escapeCode(cluster.error_category)}\`` : ''}`, '');
    out.push(`- why: ${escapeProse(reason)}`);
    templateLines(out, cluster);
    out.push(`- seen: ${cluster.count} times, ${cluster.distinct_inputs} distinct inputs, ${cluster.sessions.length} sessions, ${cluster.first_seen} → ${cluster.last_seen}`);
    evidenceTable(out, cluster.samples);
    out.push('');
  }
}

function evidenceTable(out: string[], samples: Evidence[]): void {
  if (samples.length === 0) return;
  out.push('', '| time | session | input | where in the log | ms | message (redacted) |', '|---|---|---|---|---|---|');
  for (const e of samples) {
    out.push(`| ${e.timestamp} | ${escapeCell(e.session_id ?? '–')} | \`${escapeCode(e.input_hash)}\` | ${escapeCell(logLocation(e))} | ${e.duration_ms} | ${evidenceMessage(e.message)} |`);
  }
}

/** Quarantined drafts and model notes are untrusted too: shown only when nothing instruction-like is in them. */
function withheldIfInstructionLike(text: string, what: string): string {
  const scan = scanInstructionLike(text);
  if (!scan.flagged) return escapeInline(text);
  return `_${what} withheld: instruction-like text (${[...new Set(scan.findings.map((f) => f.kind))].join(', ')}); see the state file_`;
}

/** A PR body may be read by another model: instruction-like evidence is named, not repeated. */
function evidenceMessage(message: string): string {
  if (message === '') return '–';
  const scan = scanInstructionLike(message);
  if (!scan.flagged) return escapeCell(message);
  const kinds = [...new Set(scan.findings.map((f) => f.kind))].join(', ');
  return `_withheld: instruction-like text (${kinds}); the redacted message is in the state file at this offset_`;
}

function recurrences(out: string[], input: ReportInput): void {
  if (input.recurrences.length === 0) return;
  out.push('## Failures that continued after a rule', '', 'These clusters already have an active rule; the recurrence was recorded on it.', '');
  for (const r of input.recurrences) {
    const rule = input.state.rules[r.rule_id];
    out.push(`- \`${r.rule_id}\` (${escapeInline(rule?.tool_name ?? '')}): ${r.count} more, last ${r.last_seen}`);
  }
  out.push('');
}

/** Lifecycle changes, rules flagged as decaying, rules whose failures continued, and the line ceiling. */
function lifecycle(out: string[], input: ReportInput, meta: ReportMeta): void {
  const { plan } = input;
  const rules = plan.nextState.rules;
  const decaying = Object.values(rules).filter((rule) => rule.state === 'decaying').sort((a, b) => (a.weight ?? 1) - (b.weight ?? 1) || (a.id < b.id ? -1 : 1));
  const ineffective = Object.values(rules).filter((rule) => rule.effectiveness?.verdict === 'ineffective' && rule.status !== 'refined' && ['active', 'decaying', 'pinned'].includes(rule.state));
  out.push('## Memory lifecycle', '');
  const anyJudged = Object.values(rules).some((rule) => rule.effectiveness && rule.effectiveness.verdict !== 'measuring');
  if (plan.lifecycle.length === 0 && decaying.length === 0 && ineffective.length === 0 && !anyJudged && plan.ceiling.archived.length === 0 && !plan.ceiling.warning) {
    out.push('_No rule changed state this run._', '');
    return;
  }
  if (plan.lifecycle.length > 0) {
    out.push('| rule | change | why |', '|---|---|---|');
    for (const change of plan.lifecycle) {
      const what = change.field === 'status' ? `status ${change.from} → ${change.to}` : `${change.from} → ${change.to}`;
      out.push(`| \`${change.rule}\` | ${what} | ${escapeCell(change.reason)} |`);
    }
    out.push('');
  }
  if (decaying.length > 0) {
    out.push(`Decaying (still in memory; archived if not reinforced): ${decaying.map((r) => `\`${r.id}\` (weight ${(r.weight ?? 1).toFixed(2)})`).join(', ')}`, '');
  }
  if (ineffective.length > 0) {
    out.push('Rules whose failures continued after adoption (re-written when their failure recurs):', '');
    for (const rule of ineffective) {
      const e = rule.effectiveness!;
      out.push(`- \`${rule.id}\` (${escapeInline(rule.tool_name)}): ${e.why ? escapeProse(e.why) : `${e.before_per_day} failures per day before, ${e.after_per_day} since (${Math.round(e.change * 100)}%)`} over ${Math.floor(e.days_since_adoption)} days`);
    }
    out.push('');
  }
  const judged = Object.values(rules)
    .filter((rule) => rule.effectiveness && rule.effectiveness.verdict !== 'measuring' && ['active', 'decaying', 'pinned'].includes(rule.state))
    .sort((a, b) => b.effectiveness!.change - a.effectiveness!.change || (a.id < b.id ? -1 : 1));
  if (judged.length > 0) {
    out.push(`Effectiveness of the rules in memory (failures per day before adoption vs since; worst first${judged.length > 50 ? ', first 50' : ''}):`, '');
    out.push('| rule | tool | before | since | change | verdict |', '|---|---|---:|---:|---:|---|');
    for (const rule of judged.slice(0, 50)) {
      const e = rule.effectiveness!;
      out.push(`| \`${rule.id}\` | \`${escapeCode(rule.tool_name)}\` | ${e.before_per_day} | ${e.after_per_day} | ${Math.round(e.change * 100)}% | ${e.verdict} |`);
    }
    out.push('');
  }
  const { ceiling } = plan;
  if (ceiling.archived.length > 0) {
    out.push(`${meta.memoryFile} would have ${ceiling.lines_before} lines, over its ${ceiling.max_lines}-line ceiling: archived the lowest-weight unpinned rules ${ceiling.archived.map((id) => `\`${id}\``).join(', ')} (now ${ceiling.lines_after} lines).`, '');
  }
  if (ceiling.warning) out.push(`**Warning:** ${escapeProse(ceiling.warning)}`, '');
}

/**
 * Did it work, in calls: per rule in memory with calls counted, failures of its cluster per 100 calls of
 * its family before adoption and since, when it was in front of the agent and when not, and how often the
 * next call after a reminder succeeded ("–": fewer calls than exposed_min_calls, or no reminder yet).
 */
function didItWork(out: string[], input: ReportInput, meta: ReportMeta): void {
  const minCalls = meta.minCalls ?? 20;
  const rules = Object.values(input.plan.nextState.rules)
    .filter((rule) => rule.effect && ['active', 'decaying', 'pinned'].includes(rule.state) && rule.status !== 'refined')
    .sort((a, b) => b.effect!.after.failures - a.effect!.after.failures || (a.id < b.id ? -1 : 1));
  if (rules.length === 0) return;
  out.push('## Did the rules work', '', `Failures of each rule's cluster per 100 calls of its tool family (– under ${minCalls} calls); exposed: calls made after the rule was put in front of the agent in that session (session start or reminder)${rules.length > 50 ? '; the 50 with the most failures since adoption' : ''}.`, '');
  out.push('| rule | tool | before | since | exposed | not exposed | next call after a reminder | verdict |', '|---|---|---:|---:|---:|---:|---:|---|');
  for (const rule of rules.slice(0, 50)) {
    const e = rule.effect!;
    out.push(`| \`${rule.id}\` | \`${escapeCode(rule.tool_name)}\` | ${shortRate(e.before, minCalls)} | ${shortRate(e.after, minCalls)} | ${shortRate(e.exposed, minCalls)} | ${shortRate(e.unexposed, minCalls)} | ${describeAfterReminder(e.after_reminder)} | ${rule.effectiveness?.verdict ?? '–'} |`);
  }
  out.push('');
}

function humanChanges(out: string[], input: ReportInput): void {
  if (input.humanChanges.length === 0) return;
  out.push('## Human edits since the last run', '');
  for (const change of input.humanChanges) {
    const what = change.kind === 'deleted' ? 'deleted: recorded as rejected, its pattern will not be proposed again' : 'edited: the human text is kept';
    out.push(`- \`${change.rule_id}\` in ${change.target}: ${what}`);
  }
  out.push('');
}

/** Rows of the table of clusters below the threshold: a flood of them would make the report unreadable. */
const MAX_PENDING_ROWS = 200;

function pendingClusters(out: string[], input: ReportInput): void {
  const all = input.clusters.filter((c) => input.outcomes[c.id] === 'pending');
  if (all.length === 0) return;
  const counted = (id: string) => Object.values(input.pending[id]?.days ?? {}).reduce((sum, n) => sum + n, 0);
  // Past the row cap, the heaviest are shown (in the usual order).
  const shown = all.length <= MAX_PENDING_ROWS ? null : new Set([...all].sort((a, b) => counted(b.id) - counted(a.id) || b.count - a.count).slice(0, MAX_PENDING_ROWS));
  out.push('## Below the threshold (carried over)', '', '| cluster | kind | tool | category | template | read tonight | counted in the window |', '|---|---|---|---|---|---|---|');
  for (const c of shown ? all.filter((c) => shown.has(c)) : all) {
    const template = c.template ? `\`${escapeCode(shownOrWithheld(c.template))}\`` : '–';
    out.push(`| \`${c.id}\` | ${c.kind} | \`${escapeCode(c.tool_name)}\` | ${escapeCell(c.error_category ?? '–')} | ${template} | ${c.count} | ${counted(c.id)} |`);
  }
  if (shown) out.push('', `… and ${all.length - MAX_PENDING_ROWS} lighter clusters below the threshold, not listed (\`sleep-cycle status\` counts them).`);
  out.push('');
}

function invalidLines(out: string[], input: ReportInput): void {
  if (input.lines.invalid === 0) return;
  out.push('## Invalid lines', '', '| reason | count |', '|---|---|');
  for (const [reason, count] of Object.entries(input.lines.invalid_by_reason).sort()) out.push(`| ${reason} | ${count} |`);
  out.push('', `First ${input.invalidSamples.length}: ${input.invalidSamples.map((s) => `${escapeCell(logLocation(s))}: ${s.reason}`).join('; ')}`, '');
}

function targetName(target: string, meta: ReportMeta): string {
  return targetPath(target, { memory_file: meta.memoryFile, skills_dir: meta.skillsDir });
}

/**
 * Untrusted text (log text, names, model notes, a repository's policy reasons) as one code span: inside
 * one nothing renders (no link, image, mention, autolink, emphasis or HTML), whatever the text holds.
 * Backticks become quotes (no way out of the span), line breaks spaces; in a table cell pipes are escaped
 * too (GitHub splits cells before it reads spans).
 */
function codeSpan(text: string, inTable: boolean): string {
  const flat = text.replace(/[\r\n]+/g, ' ').replace(/`/g, "'");
  const inner = (inTable ? flat.replace(/\|/g, '\\|') : flat).trim();
  return inner === '' ? '–' : `\`${inner}\``;
}

const escapeInline = (text: string): string => codeSpan(text, false);

/**
 * A sentence sleep-cycle composed (a notice, a reason, a warning): shown as prose, on one line, with no
 * HTML. The names it quotes come from settings and state, which the run has checked; text from a log or a
 * model goes through `codeSpan`.
 */
function escapeProse(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
const escapeCell = (text: string): string => codeSpan(text, true);

function escapeCode(text: string): string {
  return text.replace(/[\r\n`|]/g, ' ');
}
