import type { LedgerEntry } from '../../pipeline/memory/state.js';

/**
 * A ledger entry for tests: an offline-written failure rule seen 3 times in one session, created at
 * `created` (default 2025-01-01). `over` replaces any field; `created` also dates the provenance.
 */
export function ledgerEntry(over: Partial<LedgerEntry> & { id: string }): LedgerEntry {
  const created = over.created ?? '2025-01-01T00:00:00.000Z';
  return {
    cluster_id: `c-${over.id.slice(2)}`,
    kind: 'failure',
    tool_name: 'bash',
    error_category: 'not_found',
    text: `Rule ${over.id}.`,
    text_sha: `sha-${over.id}`,
    target: 'memory',
    state: 'active',
    created,
    last_seen: created,
    hits: 0,
    pinned: false,
    provenance: {
      synthesizer: 'offline',
      count: 3,
      distinct_inputs: 3,
      sessions: 1,
      first_seen: created,
      last_seen: created,
      evidence: [],
      safety: { verdict: 'pass', violations: [], evaluated: [], policy: 'default' },
      model: null,
      prompt_version: null,
    },
    ...over,
  };
}
