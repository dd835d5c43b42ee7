import type { LedgerEntry } from '../memory/state.js';
import { TemplateMiner } from '../templates/miner.js';
import { templateId } from '../templates/template-id.js';
import { templateScope, type CoverageGuard } from './by-template.js';

/**
 * A rule (or a burn: a rejected rule's pattern) follows its template when the template generalises,
 * so that the failure it was written for stays covered. But one attacker line can widen a template
 * (`checksum of artifact failed` + `7 of artifact failed` → `<*> of artifact failed`), and the rule would
 * then cover, or the burn hide, a different failure that fits the wider template. So a line whose
 * template is a rule's widened one keeps that template only when the rule's own template admits it;
 * otherwise it is its own template (its masked line): a new cluster, proposed or not on its own counts.
 */
export type { CoverageGuard } from './by-template.js';

/**
 * The guard for these rules. `merged` gives tonight's merges (old id → new id: the miner's `merged()`,
 * read once the night's lines are learnt), so a template widened tonight counts as well as one widened
 * on an earlier night. Rules whose template was never widened cost nothing.
 */
export function widenedCoverageGuard(rules: readonly LedgerEntry[], merged: () => ReadonlyMap<string, string>): CoverageGuard {
  let guard: CoverageGuard | null | undefined;
  return (scope, found, line) => (guard === undefined ? (guard = buildGuard(rules, merged())) : guard)?.(scope, found, line) ?? null;
}

function buildGuard(rules: readonly LedgerEntry[], merged: ReadonlyMap<string, string>): CoverageGuard | null {
  // Per scope and widened template id, the templates its rules were written for.
  const widened = new Map<string, Set<string>>();
  const originals: Record<string, { id: string; template: string; count: number }[]> = {};
  for (const rule of rules) {
    if (!rule.template || !rule.template_id || rule.kind !== 'failure') continue;
    const scope = templateScope(rule.tool_name, rule.error_category);
    const own = templateId(scope, rule.template);
    const now = merged.get(rule.template_id) ?? rule.template_id;
    if (own === now) continue;
    const key = `${scope}\u0000${now}`;
    widened.set(key, new Set([...(widened.get(key) ?? []), own]));
    (originals[scope] ??= []).push({ id: own, template: rule.template, count: 1 });
  }
  if (widened.size === 0) return null;
  // The rules' own templates, as a miner that only matches (it learns nothing here).
  const own = new TemplateMiner({ version: 1, scopes: originals });
  return (scope, found, line) => {
    const mine = widened.get(`${scope}\u0000${found.id}`);
    if (!mine) return null;
    const match = own.match(scope, line);
    if (match && mine.has(match.id)) return null;
    return { id: templateId(scope, line), template: line };
  };
}
