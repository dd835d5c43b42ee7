import { describe, expect, it } from 'vitest';
import { widenedCoverageGuard } from '../../pipeline/ingest/held-coverage.js';
import { templateScope } from '../../pipeline/ingest/by-template.js';
import { templateId } from '../../pipeline/templates/template-id.js';
import type { LedgerEntry } from '../../pipeline/memory/state.js';

/**
 * A rule follows its template when the template widens, but only over the lines its own template
 * admits: one attacker line that widens `checksum of artifact failed` to `<*> of artifact failed` must
 * not make the checksum rule cover (or its burn hide) `signature of artifact failed`.
 */

const SCOPE = templateScope('mcp__svc__deploy', 'api_error');
const OWN = 'error: checksum of artifact failed';
const WIDE = 'error: <*> of artifact failed';
const wide = { id: templateId(SCOPE, WIDE), template: WIDE };
const rule = (templateIdNow: string): LedgerEntry => ({ id: 'r-aaaaaa', kind: 'failure', tool_name: 'mcp__svc__deploy', error_category: 'api_error', template: OWN, template_id: templateIdNow }) as LedgerEntry;

describe('a widened template covers only what the rule was written for', () => {
  for (const [when, rules, merged] of [
    ['widened on an earlier night', [rule(wide.id)], new Map<string, string>()],
    ['widened tonight', [rule(templateId(SCOPE, OWN))], new Map([[templateId(SCOPE, OWN), wide.id]])],
  ] as const) {
    it(when, () => {
      const guard = widenedCoverageGuard(rules, () => merged);
      // The rule's own failure keeps the wide template (and so its rule or burn).
      expect(guard(SCOPE, wide, OWN)).toBeNull();
      // A different failure that the wide template admits is its own template, keyed by its line.
      const other = 'error: signature of artifact failed';
      expect(guard(SCOPE, wide, other)).toEqual({ id: templateId(SCOPE, other), template: other });
      // Other templates and scopes are left alone.
      expect(guard(SCOPE, { id: templateId(SCOPE, 'error: x'), template: 'error: x' }, other)).toBeNull();
      expect(guard(templateScope('mcp__other', 'api_error'), wide, other)).toBeNull();
    });
  }

  it('does nothing when no rule\'s template was widened (a rule on its own template, a group rule, a slow rule)', () => {
    const plain = rule(templateId(SCOPE, OWN));
    const group = { ...rule('t-000000000000'), template: undefined } as LedgerEntry;
    const slow = { ...rule(wide.id), kind: 'slow' } as LedgerEntry;
    const guard = widenedCoverageGuard([plain, group, slow], () => new Map());
    expect(guard(SCOPE, wide, 'error: signature of artifact failed')).toBeNull();
  });
});
