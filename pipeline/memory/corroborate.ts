import type { PromotedCluster } from '../model/cluster.js';
import { addDays, mergeSamples, mergeSignatures, unionIds } from './pending-merge.js';
import type { LedgerEntry } from './state-types.js';

const KEPT_IDS = 50;

/**
 * A rule another cluster's draft repeated: that cluster's events count as evidence for it. Its counts
 * and samples grow, and it covers the cluster from now on (the gate records its recurrences against the
 * rule instead of proposing it again). Sessions and distinct inputs are added, not unioned: the ledger
 * keeps only their counts, so this can over-count shared sessions, never lose one.
 */
export function corroborate(rule: LedgerEntry, cluster: PromotedCluster, sampleSize: number): LedgerEntry {
  const p = rule.provenance;
  return {
    ...rule,
    near_duplicates: unionIds(rule.near_duplicates ?? [], [cluster.id]),
    provenance: {
      ...p,
      count: p.count + cluster.count,
      distinct_inputs: p.distinct_inputs + cluster.distinct_inputs,
      sessions: p.sessions + cluster.sessions.length,
      first_seen: cluster.first_seen < p.first_seen ? cluster.first_seen : p.first_seen,
      last_seen: cluster.last_seen > p.last_seen ? cluster.last_seen : p.last_seen,
      evidence: mergeSamples(p.evidence, cluster.samples, sampleSize),
    },
  };
}

/** Two clusters of tonight whose drafts say the same: the first one's cluster takes the other's events. */
export function mergeDraftClusters(promoted: PromotedCluster[], intoId: string, other: PromotedCluster, sampleSize: number): PromotedCluster[] {
  return promoted.map((cluster) => {
    if (cluster.id !== intoId) return cluster;
    const inputs = unionIds(cluster.input_hashes, other.input_hashes);
    return {
      ...cluster,
      count: cluster.count + other.count,
      distinct_inputs: cluster.distinct_inputs + other.distinct_inputs,
      input_hashes: inputs.slice(0, KEPT_IDS),
      sessions: unionIds(cluster.sessions, other.sessions).slice(0, KEPT_IDS),
      first_seen: other.first_seen < cluster.first_seen ? other.first_seen : cluster.first_seen,
      last_seen: other.last_seen > cluster.last_seen ? other.last_seen : cluster.last_seen,
      days: addDays(cluster.days, other.days),
      samples: mergeSamples(cluster.samples, other.samples, sampleSize),
      signatures: mergeSignatures(cluster.signatures, other.signatures),
    };
  });
}
