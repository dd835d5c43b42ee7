import type { RunContext } from '../context.js';
import { IN_ARCHIVE, IN_TARGET, isBurned, type LedgerEntry, type PendingCluster, type State } from '../memory/state.js';
import { windowStartDay } from '../memory/pending-window.js';
import { followTemplateMerges } from '../memory/template-merges.js';
import { addDays, mergeSamples, mergeSignatures, sumDays as sum, unionIds as union } from '../memory/pending-merge.js';
import { mergeFollowUps } from '../ingest/recovery.js';
import { clusterId, type FollowUp, type Cluster, type ClusterOutcome, type Evidence, type PromotedCluster, type Recurrence, type Refines, type Signature } from '../model/cluster.js';

export interface GateResult {
  promoted: PromotedCluster[];
  outcomes: Record<string, ClusterOutcome>;
  /** Per cluster: tonight's count plus what earlier nights carried over inside the window. */
  windowCounts: Record<string, number>;
  recurrences: Recurrence[];
  pending: Record<string, PendingCluster>;
  /** Carried-over events that left the window this run (older than window_days before now). */
  expired: number;
  /**
   * Events read tonight, older than the window, that did not repeat min_repeats times within
   * window_days of each other either (so count toward nothing), and the first day among them.
   */
  olderUncounted?: { count: number; from: string };
  /** What the flood bounds held back tonight (see limitFlood). */
  held?: FloodHeld;
  /**
   * Per group promoted tonight (templates of one family promoted together): its members. A group that
   * gets no rule tonight (past the LLM budget, held, unwritten) goes back to pending as these, so the
   * next night groups them again, with any new events, instead of carrying a group without its templates.
   */
  groupMembers?: Record<string, PendingCluster[]>;
}

/** Counts of what the gate's flood bounds held back, shown in the run's notices. */
export interface FloodHeld {
  /** Clusters at the threshold past max_new_rules: they wait, heaviest first, for the next nights. */
  rules_deferred: number;
  /** One-off templates not promoted together (a group needs templates that repeated). */
  singletons_held: number;
  /** Pending clusters dropped past max_pending, the lightest first. */
  pending_dropped: number;
}

/** The gate's settings slice; the flood bounds are off when absent (tests that build the gate by hand). */
export interface GateSettings {
  min_repeats: number;
  window_days: number;
  sample_size: number;
  max_new_rules?: number;
  max_pending?: number;
}

const KEPT_IDS = 50;
/** How many times a cluster's ineffective rule is rewritten before it is left to a human. */
export const MAX_REFINEMENTS = 2;

/**
 * gate: a cluster becomes a rule candidate when it was seen `min_repeats` times inside the rolling
 * window, counting what earlier nights carried over, or, for older history read tonight, within
 * `window_days` of each other (see busiestSpan). Clusters an active rule already covers, or whose
 * pattern a human burned, are not proposed again; a covered cluster's recurrence is recorded instead.
 */
export async function gate<I extends { state: State; clusters: Cluster[]; notices: string[]; window: { to: string | null }; templateMerges?: ReadonlyMap<string, string> }>(
  input: I,
  ctx: RunContext,
): Promise<I & GateResult> {
  // The window ends at the newest event read (or now); older history read tonight is judged as of its own time.
  const newest = input.window.to ? Date.parse(input.window.to) : ctx.now.getTime();
  const reference = new Date(Math.min(newest, ctx.now.getTime()));
  const rereadFrom = ctx.options.since ? new Date(ctx.options.since).toISOString().slice(0, 10) : undefined;
  // Templates that generalised tonight take what was keyed by the templates they absorbed.
  const state = followTemplateMerges(input.state, input.templateMerges ?? new Map());
  const result = computeGate(input.clusters, state, ctx.settings, ctx.now, { reference, ...(rereadFrom ? { rereadFrom } : {}) });
  const { window_days: days, min_repeats: repeats } = ctx.settings;
  const notices = [...input.notices];
  const carried = result.expired - (result.olderUncounted?.count ?? 0);
  if (carried > 0) notices.push(expiredNotice(carried, days, input.window.to !== null));
  if (result.olderUncounted) {
    const { count, from } = result.olderUncounted;
    notices.push(`${count} events read tonight (from ${from}) are more than ${days} days older than the newest one and did not repeat ${repeats} times within ${days} days of each other: they count toward no rule and are not carried over. To count repeats spread further apart, run once over that history with a wider window, e.g. SLEEP_CYCLE_WINDOW_DAYS=365 sleep-cycle run --since ${from}.`);
  }
  if (result.held) notices.push(...heldNotices(result.held, ctx.settings));
  return { ...input, ...result, state, notices };
}

/** What the flood bounds held back, for a reviewer (a flood is an attack or a broken log). */
function heldNotices(held: FloodHeld, settings: { max_new_rules: number; max_pending: number; min_repeats: number }): string[] {
  const notices: string[] = [];
  if (held.rules_deferred > 0) notices.push(`${held.rules_deferred} clusters reached the threshold past max_new_rules (${settings.max_new_rules}) tonight: they wait in pending and are promoted on the next nights, the heaviest first. A night with this many new patterns looks like a broken log or an attack.`);
  if (held.singletons_held > 0) notices.push(`${held.singletons_held} error templates seen once each were not promoted together with others of their tool: only templates that repeated make a group rule.`);
  if (held.pending_dropped > 0) notices.push(`${held.pending_dropped} sub-threshold clusters were not carried over past max_pending (${settings.max_pending}): the lightest were dropped.`);
  return notices;
}

/** Carried-over counts that aged out: against the clock on a night that read nothing, else against the newest event. */
function expiredNotice(expired: number, windowDays: number, readAny: boolean): string {
  if (!readAny) return `${expired} events carried over from earlier nights are now more than ${windowDays} days old and no longer count toward a rule.`;
  return `${expired} events carried over from earlier nights left the ${windowDays}-day window and no longer count toward a rule.`;
}

export interface GateOptions {
  /** End of the rolling window (default: now). */
  reference?: Date;
  /** First day (YYYY-MM-DD) read again tonight (--since): carried counts from then on are not added twice. */
  rereadFrom?: string;
}

export function computeGate(
  clusters: Cluster[],
  state: State,
  settings: GateSettings,
  now: Date,
  options: GateOptions = {},
): GateResult {
  const windowStart = windowStartDay(options.reference ?? now, settings.window_days);
  const reread = options.rereadFrom;
  const { covering, refining } = rulesByCluster(state);
  const pending: Record<string, PendingCluster> = {};
  let expired = 0;
  for (const [id, item] of Object.entries(state.pending)) {
    const kept = reread ? Object.fromEntries(Object.entries(item.days).filter(([day]) => day < reread)) : item.days;
    const days = inWindow(kept, windowStart);
    expired += sum(kept) - sum(days);
    if (Object.keys(days).length > 0) pending[id] = { ...item, days };
  }
  const result: GateResult = { promoted: [], outcomes: {}, windowCounts: {}, recurrences: [], pending, expired };

  for (const cluster of clusters) {
    result.windowCounts[cluster.id] = cluster.count;
    const rule = covering.get(cluster.id) ?? legacyRule(covering, cluster);
    if (rule) {
      result.outcomes[cluster.id] = IN_ARCHIVE.includes(rule.state) ? 'restored' : 'covered';
      result.recurrences.push({ rule_id: rule.id, cluster_id: cluster.id, count: cluster.count, last_seen: cluster.last_seen });
      delete pending[cluster.id];
      continue;
    }
    if (state.said_by_human?.[cluster.id]) {
      // A human line already says what its rule would say (see deduplicate): nothing to propose.
      result.outcomes[cluster.id] = 'covered';
      delete pending[cluster.id];
      continue;
    }
    if (isBurned(state, cluster.id, now) || (cluster.family_id !== undefined && cluster.template_id && isBurned(state, cluster.family_id, now))) {
      result.outcomes[cluster.id] = 'burned';
      delete pending[cluster.id];
      continue;
    }
    const carried = pending[cluster.id];
    let merged = mergeCarried(cluster, carried, windowStart, settings.sample_size);
    const older = Object.entries(cluster.days).filter(([day]) => day < windowStart).sort();
    if (merged.count < settings.min_repeats && older.length > 0) merged = busiestSpan(merged, cluster.days, carried?.days ?? {}, settings);
    if (merged.count < settings.min_repeats && older.length > 0) {
      const count = older.reduce((total, [, n]) => total + n, 0);
      result.expired += count;
      const from = result.olderUncounted && result.olderUncounted.from < older[0]![0] ? result.olderUncounted.from : older[0]![0];
      result.olderUncounted = { count: (result.olderUncounted?.count ?? 0) + count, from };
    }
    result.windowCounts[cluster.id] = merged.count;
    if (merged.count >= settings.min_repeats) {
      result.outcomes[cluster.id] = 'promoted';
      result.promoted.push(withRefines(merged, refining.get(cluster.id)));
      delete pending[cluster.id];
    } else {
      result.outcomes[cluster.id] = 'pending';
      pending[cluster.id] = toPending(merged);
    }
  }
  // Pending clusters at the threshold without new events tonight: deferred past an LLM budget.
  for (const [id, item] of Object.entries(pending)) {
    if (result.outcomes[id] !== undefined || sum(item.days) < settings.min_repeats) continue;
    if (covering.has(id) || isBurned(state, id, now) || state.said_by_human?.[id]) continue;
    result.outcomes[id] = 'promoted';
    result.windowCounts[id] = sum(item.days);
    result.promoted.push(withRefines(fromPending(item), refining.get(id)));
    delete pending[id];
  }
  const groups = promoteTogether(result, settings.min_repeats, settings.sample_size);
  if (groups.size > 0) result.groupMembers = Object.fromEntries(groups);
  limitFlood(result, settings);
  return result;
}

/**
 * The hierarchical half of the gate: templates of one tool family + category that reach min_repeats
 * only together are promoted together, as one cluster that names them, so nothing a tool + category
 * cluster learnt before templates is lost. Its id is derived from its templates' ids. Only templates
 * that repeated make a group, each joined by at most as many one-off templates as they have events
 * (the heaviest first): a thousand errors seen once each are noise, not a pattern, and never a rule.
 * Returns the groups with their members (a group the flood bounds defer gives its members back).
 */
function promoteTogether(result: GateResult, minRepeats: number, sampleSize: number): Map<string, PendingCluster[]> {
  const byFamily = new Map<string, PendingCluster[]>();
  for (const item of Object.values(result.pending)) {
    if (item.kind !== 'failure' || !item.family_id || !item.template_id) continue;
    const family = byFamily.get(item.family_id);
    if (family) family.push(item);
    else byFamily.set(item.family_id, [item]);
  }
  const groups = new Map<string, PendingCluster[]>();
  let singletons = 0;
  for (const all of byFamily.values()) {
    const sorted = all.sort((a, b) => sum(b.days) - sum(a.days) || (a.id < b.id ? -1 : 1));
    const repeated = sorted.filter((item) => sum(item.days) > 1);
    const room = repeated.reduce((n, item) => n + sum(item.days), 0);
    const members = [...repeated, ...sorted.filter((item) => sum(item.days) <= 1).slice(0, room)];
    const total = members.reduce((n, item) => n + sum(item.days), 0);
    if (members.length < 2 || total < minRepeats) {
      if (all.reduce((n, item) => n + sum(item.days), 0) >= minRepeats && all.length >= 2) singletons += all.length - repeated.length;
      continue;
    }
    singletons += all.length - members.length;
    const group = groupOf(members, sampleSize);
    for (const item of members) {
      delete result.pending[item.id];
      result.outcomes[item.id] = 'promoted';
    }
    result.windowCounts[group.id] = group.count;
    result.promoted.push(group);
    groups.set(group.id, members);
  }
  if (singletons > 0) result.held = { ...(result.held ?? { rules_deferred: 0, singletons_held: 0, pending_dropped: 0 }), singletons_held: singletons };
  return groups;
}

/**
 * The flood bounds. A night promotes at most max_new_rules clusters (the heaviest: most events, then
 * most sessions): the rest wait in pending, at the threshold, and are promoted on the next nights, so a
 * flood of junk that repeats cannot write hundreds of rules in one night and push real ones out of
 * MEMORY.md. And at most max_pending clusters are carried over (the heaviest in the window), so state
 * stays bounded whatever a log holds.
 */
function limitFlood(result: GateResult, settings: GateSettings): void {
  const held: FloodHeld = result.held ?? { rules_deferred: 0, singletons_held: 0, pending_dropped: 0 };
  const maxRules = settings.max_new_rules ?? Number.POSITIVE_INFINITY;
  if (result.promoted.length > maxRules) {
    const ranked = [...result.promoted].sort(heaviestFirst);
    for (const cluster of ranked.slice(maxRules)) {
      for (const item of backToPending(cluster, result.groupMembers)) {
        result.pending[item.id] = item;
        result.outcomes[item.id] = 'pending';
      }
      held.rules_deferred += 1;
    }
    const kept = new Set(ranked.slice(0, maxRules));
    result.promoted = result.promoted.filter((cluster) => kept.has(cluster));
  }
  const maxPending = settings.max_pending ?? Number.POSITIVE_INFINITY;
  const pending = Object.values(result.pending);
  if (pending.length > maxPending) {
    const ranked = pending.sort((a, b) => sum(b.days) - sum(a.days) || b.sessions.length - a.sessions.length || (a.last_seen > b.last_seen ? -1 : a.last_seen < b.last_seen ? 1 : a.id < b.id ? -1 : 1));
    for (const item of ranked.slice(maxPending)) delete result.pending[item.id];
    held.pending_dropped += ranked.length - maxPending;
  }
  if (held.rules_deferred + held.singletons_held + held.pending_dropped > 0) result.held = held;
}

function heaviestFirst(a: PromotedCluster, b: PromotedCluster): number {
  return b.count - a.count || b.sessions.length - a.sessions.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function groupOf(members: PendingCluster[], sampleSize: number): PromotedCluster {
  const [first] = members as [PendingCluster, ...PendingCluster[]];
  const templates = members.map((item) => ({ id: item.template_id!, template: item.template ?? '', count: sum(item.days) }));
  const days = members.reduce<Record<string, number>>((all, item) => addDays(all, item.days), {});
  const inputs = members.reduce<string[]>((all, item) => union(all, item.input_hashes), []);
  const count = sum(days);
  return {
    id: clusterId('failure', first.tool_name, first.error_category, `group:${templates.map((t) => t.id).sort().join(',')}`),
    kind: 'failure', tool_name: first.tool_name, error_category: first.error_category, count, carried_over: count,
    distinct_inputs: inputs.length, input_hashes: inputs.slice(0, KEPT_IDS),
    sessions: members.reduce<string[]>((all, item) => union(all, item.sessions), []).slice(0, KEPT_IDS),
    first_seen: members.map((item) => item.first_seen).sort()[0]!, last_seen: members.map((item) => item.last_seen).sort().at(-1)!,
    days,
    samples: members.reduce<Evidence[]>((all, item) => mergeSamples(all, item.samples, sampleSize), []),
    signatures: members.reduce<Signature[]>((all, item) => mergeSignatures(all, item.signatures), []),
    baseline_ms: null, template_id: null, template: null, family_id: first.family_id!, templates,
    ...withFollowUps(members.map((item) => item.follow_ups ?? [])),
  };
}

/**
 * A rule written before templates existed covers its tool + category, so every template of that family
 * (the id of a family is what a cluster's id was then); rules written since cover their own clusters.
 */
function legacyRule(covering: Map<string, LedgerEntry>, cluster: Cluster): LedgerEntry | undefined {
  if (!cluster.family_id || !cluster.template_id) return undefined;
  const rule = covering.get(cluster.family_id);
  return rule && rule.covers === undefined && rule.template === undefined ? rule : undefined;
}

/**
 * Per cluster, the rule that covers it (in memory, or archived: a recurrence restores it) — unless that
 * rule proved ineffective, in which case the cluster is promoted again and its new rule refines the old.
 * The newest unrefined rule of a cluster speaks for it.
 */
function rulesByCluster(state: State): { covering: Map<string, LedgerEntry>; refining: Map<string, Refines> } {
  const covering = new Map<string, LedgerEntry>();
  const refining = new Map<string, Refines>();
  const refinedBefore = new Map<string, number>();
  for (const rule of Object.values(state.rules)) if (rule.status === 'refined') refinedBefore.set(rule.cluster_id, (refinedBefore.get(rule.cluster_id) ?? 0) + 1);
  const live = Object.values(state.rules)
    // Refined rules have a successor; invalidated ones failed the current policy and never come back.
    .filter((rule) => [...IN_TARGET, ...IN_ARCHIVE].includes(rule.state) && rule.status !== 'refined' && rule.status !== 'invalidated')
    .sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
  for (const rule of live) {
    // After MAX_REFINEMENTS rewrites that did not help, another rewrite will not either: a human decides
    // (the report lists the rule under failures that continued after adoption).
    const ineffective = rule.effectiveness?.verdict === 'ineffective' && !rule.pinned && IN_TARGET.includes(rule.state) && (refinedBefore.get(rule.cluster_id) ?? 0) < MAX_REFINEMENTS;
    if (ineffective) {
      covering.delete(rule.cluster_id);
      const { before_per_day, after_per_day, why } = rule.effectiveness!;
      refining.set(rule.cluster_id, { rule_id: rule.id, before_per_day, after_per_day, ...(why ? { why } : {}) });
    } else {
      covering.set(rule.cluster_id, rule);
      refining.delete(rule.cluster_id);
      // Templates promoted together are each covered by their rule, and so are the clusters whose drafts repeated it.
      for (const id of [...(rule.covers ?? []), ...(rule.near_duplicates ?? [])]) covering.set(id, rule);
    }
  }
  return { covering, refining };
}

function withRefines(cluster: PromotedCluster, refines: Refines | undefined): PromotedCluster {
  return refines ? { ...cluster, refines } : cluster;
}

function fromPending(item: PendingCluster): PromotedCluster {
  const count = sum(item.days);
  return {
    ...item, count, carried_over: count, distinct_inputs: item.input_hashes.length, baseline_ms: item.baseline_ms ?? null,
  };
}

function mergeCarried(cluster: Cluster, carried: PendingCluster | undefined, windowStart: string, sampleSize: number): PromotedCluster {
  // Only events inside the window count, tonight's as much as those carried over from earlier nights.
  const tonight = inWindow(cluster.days, windowStart);
  if (!carried) return { ...cluster, count: sum(tonight), days: tonight, carried_over: 0 };
  const carriedDays = inWindow(carried.days, windowStart);
  const carriedCount = sum(carriedDays);
  const days = addDays(carriedDays, tonight);
  const inputs = union(carried.input_hashes, cluster.input_hashes);
  return {
    ...cluster,
    count: sum(tonight) + carriedCount,
    carried_over: carriedCount,
    distinct_inputs: Math.max(cluster.distinct_inputs, inputs.length),
    input_hashes: inputs.slice(0, KEPT_IDS),
    sessions: union(carried.sessions, cluster.sessions).slice(0, KEPT_IDS),
    first_seen: carried.first_seen < cluster.first_seen ? carried.first_seen : cluster.first_seen,
    days,
    samples: mergeSamples(carried.samples, cluster.samples, sampleSize),
    signatures: mergeSignatures(carried.signatures, cluster.signatures),
    ...withFollowUps([carried.follow_ups ?? [], cluster.follow_ups ?? []]),
  };
}

/**
 * History read tonight that is older than the window (an import, a first read of an old log, after live
 * hook events moved the newest one to today) is judged as of its own time: the busiest window_days span
 * of the cluster's days, tonight's and carried, counts wherever it lies. Used only when the window
 * before the newest event does not reach min_repeats, so a live night is judged exactly as before;
 * promotes or changes nothing (the older days are not carried over).
 */
function busiestSpan(merged: PromotedCluster, tonight: Record<string, number>, carried: Record<string, number>, settings: { window_days: number; min_repeats: number }): PromotedCluster {
  const all: Record<string, number> = { ...carried };
  for (const [day, n] of Object.entries(tonight)) all[day] = (all[day] ?? 0) + n;
  const days = Object.keys(all).sort();
  let best: string[] = [];
  let bestCount = merged.count;
  for (const end of days) {
    const start = windowStartDay(new Date(`${end}T00:00:00Z`), settings.window_days);
    const span = days.filter((day) => day >= start && day <= end);
    const count = span.reduce((total, day) => total + all[day]!, 0);
    if (count > bestCount) [best, bestCount] = [span, count];
  }
  // Below the threshold anywhere: the cluster waits with its days inside the window, as before.
  if (bestCount < settings.min_repeats) return merged;
  const carriedOver = best.reduce((total, day) => total + (carried[day] ?? 0), 0);
  return { ...merged, count: bestCount, carried_over: carriedOver, days: Object.fromEntries(best.map((day) => [day, all[day]!])) };
}

/** What goes back to pending for a promoted cluster that got no rule: a group's members, or the cluster itself. */
export function backToPending(cluster: PromotedCluster, groupMembers: Record<string, PendingCluster[]> | undefined): PendingCluster[] {
  return (groupMembers && Object.hasOwn(groupMembers, cluster.id) ? groupMembers[cluster.id] : undefined) ?? [toPending(cluster)];
}

export function toPending(cluster: PromotedCluster): PendingCluster {
  const { id, kind, tool_name, error_category, days, input_hashes, sessions, first_seen, last_seen, samples, signatures, baseline_ms } = cluster;
  const template = cluster.template_id ? { template_id: cluster.template_id, template: cluster.template ?? null } : {};
  return {
    id, kind, tool_name, error_category, days, input_hashes, sessions, first_seen, last_seen, samples, signatures, baseline_ms, ...template,
    ...(cluster.family_id ? { family_id: cluster.family_id } : {}), ...(cluster.follow_ups?.length ? { follow_ups: cluster.follow_ups } : {}),
  };
}

function withFollowUps(lists: FollowUp[][]): { follow_ups?: FollowUp[] } {
  const ups = mergeFollowUps(lists);
  return ups.length > 0 ? { follow_ups: ups } : {};
}

function inWindow(days: Record<string, number>, windowStart: string): Record<string, number> {
  return Object.fromEntries(Object.entries(days).filter(([day]) => day >= windowStart).sort());
}

