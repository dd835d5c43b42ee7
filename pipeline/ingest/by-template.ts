import { clusterId, type Cluster, type FollowUp, type TemplateRef } from '../model/cluster.js';
import { mergeFollowUps } from './recovery.js';
import { signatureText } from '../templates/signature.js';
import { ClusterBuilder, type ClusterLimits, type ClusterState } from './cluster.js';

/** What the night needs of a template miner (see templates/miner.ts). */
export interface TemplateMinerPort {
  /**
   * Learns a message of a scope, seen `weight` times; its template (which later messages may
   * generalise). Past the miner's caps the weight decides which templates stay.
   */
  add(scope: string, message: string, weight?: number): { id: string; template: string };
  /** The template a message has now, without learning; null when none covers it. */
  match(scope: string, message: string): { id: string; template: string } | null;
}

/**
 * Tonight's template for a line instead of the one the miner found, or null to keep it: see
 * held-coverage.ts (a rule's widened template does not cover lines its own template does not admit).
 */
export type CoverageGuard = (scope: string, found: { id: string; template: string }, line: string) => { id: string; template: string } | null;

/** The scope templates are mined in: a tool family and an error category. */
export function templateScope(tool: string, category: string | null): string {
  return `${tool}\u0000${category ?? ''}`;
}

/**
 * The night's failure clusters by template. The fold keys failures by tool, category and masked error
 * line; here each line (redacted: templates are stored) is mined in its tool + category, in sorted
 * order so the result does not depend on the order lines were read, and the lines of one template are
 * merged into one cluster. Slow clusters pass through unchanged.
 */
export function clustersByTemplate(builder: ClusterBuilder, miner: TemplateMinerPort, limits: ClusterLimits, followUps: ReadonlyMap<string, FollowUp[]> = new Map(), guard: CoverageGuard | null = null): Cluster[] {
  const states = builder.toState();
  const failures = states.filter((state) => state.kind === 'failure').sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const texts = new Map(failures.map((state) => [state.key, state.line ? signatureText(state.line) : '']));
  for (const state of failures) miner.add(templateScope(state.tool, state.category), texts.get(state.key)!, state.count);
  // A second pass: a template learnt late may have generalised the one an earlier line got.
  const templates = new Map<string, TemplateRef>();
  const follows = new Map<string, FollowUp[][]>();
  const remapped: ClusterState[] = states.map((state) => {
    if (state.kind !== 'failure') return state;
    const scope = templateScope(state.tool, state.category);
    const mined = miner.match(scope, texts.get(state.key)!) ?? miner.add(scope, texts.get(state.key)!, state.count);
    const found = guard?.(scope, mined, texts.get(state.key)!) ?? mined;
    const id = clusterId('failure', state.tool, state.category, found.id);
    templates.set(id, { id: found.id, template: found.template, count: 0 });
    const ups = followUps.get(state.key);
    if (ups) follows.set(id, [...(follows.get(id) ?? []), ups]);
    return { ...state, key: `failure\u0000${scope}\u0000${found.id}`, id, line: found.template };
  });
  const merged = new ClusterBuilder(limits);
  merged.merge(remapped);
  return merged.finish().map((cluster) => {
    const family_id = clusterId(cluster.kind, cluster.tool_name, cluster.error_category);
    const template = templates.get(cluster.id);
    if (!template) return { ...cluster, template_id: null, template: null, family_id };
    const ups = mergeFollowUps(follows.get(cluster.id) ?? []);
    return { ...cluster, template_id: template.id, template: template.template, family_id, ...(ups.length > 0 ? { follow_ups: ups } : {}) };
  });
}
