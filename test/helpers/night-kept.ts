import { clustersByTemplate } from '../../pipeline/ingest/by-template.js';
import { IngestFold, type FoldSegment, type FoldSettings } from '../../pipeline/ingest/fold.js';
import { TemplateMiner } from '../../pipeline/templates/miner.js';
import { splitLines } from './night-log.js';

const SETTINGS: FoldSettings = { sample_size: 5, window_days: 7, max_clusters: 10_000, slow_factor: 2, baseline_min_samples: 5, slow_min_ms: 0 };
const SEGMENT: FoldSegment = { file: 'logs/telemetry.jsonl', cutoff: null };

/** Everything a night's fold keeps of `text` (JSON lines): clusters (templates, evidence, signatures, what worked next) and the templates for state. */
export function keptOfNight(text: string): string {
  const fold = new IngestFold(SETTINGS, {});
  for (const line of splitLines(text, 1 << 16)) fold.line(line, SEGMENT);
  const miner = new TemplateMiner();
  const clusters = clustersByTemplate(fold.builder, miner, fold.limits, fold.settleSecrets());
  return JSON.stringify({ clusters, templates: miner.toState() });
}
