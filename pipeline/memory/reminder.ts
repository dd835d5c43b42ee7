import { clusterId } from '../model/cluster.js';
import { TemplateMiner } from '../templates/miner.js';
import type { TemplateMinerState } from '../templates/miner-state.js';
import type { HookRule } from './hook-index.js';
import { IN_TARGET } from './state.js';

/**
 * Just in time: the rule whose cluster a failure belongs to, found with the night's own keys (see
 * ingest/cluster.ts and ingest/by-template.ts): the tool family, the category and the template the
 * masked error line matches among the templates in state. A rule written before templates existed
 * covers its whole family + category, as the gate counts it. Pure; the hook computes the key.
 */
export interface FailureKey {
  /** The cleaned tool family (a shell call's program) and category, as the fold keys them. */
  tool: string;
  category: string;
  /** The template scope of that family and category (by-template.ts templateScope). */
  scope: string;
  /** The masked, redacted error line the miner matches (signatureText of it); '' when there is none. */
  line: string;
}

export function findReminder(rules: Record<string, HookRule>, key: FailureKey, templates: TemplateMinerState | undefined): HookRule | null {
  const family = clusterId('failure', key.tool, key.category);
  const remindable = Object.values(rules).filter((rule) => rule.kind === 'failure' && isRemindable(rule));
  const own = (rule: HookRule) => rule.tool_name === key.tool && rule.error_category === key.category;
  // A rule of this tool + category, or one that covers clusters of others (a near duplicate it took in).
  const candidates = remindable.filter((rule) => own(rule) || rule.covers.length > 0);
  if (candidates.length === 0) return null;
  const template = candidates.some((rule) => !own(rule) || rule.cluster_id !== family) ? matchTemplate(key, templates) : null;
  const cluster = template === null ? null : clusterId('failure', key.tool, key.category, template);
  const matches = candidates.filter((rule) => rule.covers.includes(family) || (own(rule) && rule.cluster_id === family)
    || (cluster !== null && (rule.covers.includes(cluster) || (own(rule) && (rule.cluster_id === cluster || rule.template_id === template)))));
  // The template's own rule before one that took it in, before a family-wide one; then the heavier; then a stable order.
  const rank = (rule: HookRule) => (!own(rule) ? 1 : rule.cluster_id === family ? 2 : 0);
  matches.sort((a, b) => rank(a) - rank(b) || b.weight - a.weight || (a.id < b.id ? -1 : 1));
  return matches[0] ?? null;
}

/** In memory, neither superseded nor flagged by the policy. */
function isRemindable(rule: HookRule): boolean {
  return IN_TARGET.includes(rule.state) && rule.status !== 'refined' && rule.status !== 'invalidated';
}

/** The id of the template the line matches in its scope, loading only that scope's templates. */
function matchTemplate(key: FailureKey, templates: TemplateMinerState | undefined): string | null {
  const saved = templates?.scopes[key.scope];
  if (saved === undefined || saved.length === 0) return null;
  const miner = new TemplateMiner({ version: 1, scopes: { [key.scope]: saved } });
  return miner.match(key.scope, key.line)?.id ?? null;
}

/** The reminder shown next to the failure. */
export function renderReminder(rule: HookRule, memoryText: string | undefined): string {
  const text = (memoryText ?? rule.text).replace(/\s+/g, ' ').trim();
  return `sleep-cycle: this failure matches a rule learnt from earlier sessions: ${text} [${rule.id}]`;
}
