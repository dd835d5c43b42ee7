import type { RunContext } from './context.js';
import { StageTable, type Produced, type StageSpec } from './stage-table.js';
import { withLock } from './io/lock.js';
import { repoPaths } from './io/paths.js';
import { assertDistinctRunPaths } from './io/output-paths.js';
import { CONFIG_FILE } from './settings/resolve.js';
import { apply } from './stages/apply.js';
import { writeReport } from './stages/write-report.js';
import { commit } from './stages/commit.js';
import { decay } from './stages/decay.js';
import { gate } from './stages/gate.js';
import { ingest } from './stages/ingest.js';
import { load } from './stages/load.js';
import { plan } from './stages/plan.js';
import { quiet } from './stages/quiet.js';
import { reconcile } from './stages/reconcile.js';
import { report } from './stages/report.js';
import { synthesize } from './stages/synthesize.js';
import { validate } from './stages/validate.js';
import { deduplicate } from './stages/deduplicate.js';
import type { PromotedCluster } from './model/cluster.js';
import type { Cluster } from './model/cluster.js';
import type { ClusterOutcome } from './model/cluster.js';
import type { IngestDropped, LineCounts, ParallelIngest } from './stages/ingest.js';
import type { FloodHeld } from './stages/gate.js';
import type { Plan, Proposal } from './stages/plan.js';
import type { LlmRunStats } from './stages/synthesize.js';
import { shownOrWithheld } from './safety/scan.js';

/** Templates are log text: instruction-like ones are named, not repeated, in the run's JSON. */
function shown(template: string | null | undefined): string | null {
  return template ? shownOrWithheld(template) : null;
}

/** The sleep cycle, declared once, in run order. Each stage returns its input plus what it adds. */
export const NIGHT = StageTable.start()
  .then('load', load)
  .then('reconcile', reconcile)
  .then('ingest', ingest)
  .then('gate', gate)
  .then('synthesize', synthesize)
  .then('validate', validate)
  .then('deduplicate', deduplicate)
  .then('decay', decay)
  .then('plan', plan)
  .then('report', report)
  .then('write-report', writeReport)
  .thenUnlessDryRun('apply', apply)
  .thenUnlessDryRun('commit', commit);

/** `sleep-cycle decay`: the memory lifecycle alone, on a night without telemetry (quiet stands in for ingest to validate). */
export const LIFECYCLE = StageTable.start()
  .then('load', load)
  .then('reconcile', reconcile)
  .then('quiet', quiet)
  .then('decay', decay)
  .then('plan', plan)
  .then('report', report)
  .then('write-report', writeReport)
  .thenUnlessDryRun('apply', apply)
  .thenUnlessDryRun('commit', commit);

export const STAGES: readonly StageSpec[] = NIGHT.stages;
export const LIFECYCLE_STAGES: readonly StageSpec[] = LIFECYCLE.stages;

export interface RunResult {
  dry_run: boolean;
  run_id: string;
  lines: LineCounts;
  clusters: (Pick<Cluster, 'id' | 'kind' | 'tool_name' | 'error_category' | 'count' | 'distinct_inputs'> & {
    template_id: string | null;
    template: string | null;
    count_tonight: number;
    promoted: boolean;
    outcome: ClusterOutcome;
  })[];
  proposals: Proposal[];
  /** Clusters at the threshold that got no rule (nothing safe and specific to say offline): for a human or Claude. */
  unwritten: { cluster_id: string; tool_name: string; error_category: string | null; template: string | null; templates: string[]; reason: string }[];
  notices: string[];
  llm: LlmRunStats;
  report_path: string;
  written: string[];
  commit: string | null;
  commit_note: string;
  lock_taken_over: string | null;
  /** Tonight's lifecycle changes (decay, archive, restore, validation, refinement) and the line ceiling. */
  lifecycle: { changes: Plan['lifecycle']; ceiling: Plan['ceiling'] };
  /** Set when a large night was read by two threads (see ingest_worker_min_mb). */
  parallel_ingest: ParallelIngest | null;
  /** What the flood bounds dropped or held back tonight, to keep the heaviest (README "Floods"); null on a quiet night. */
  flood: (IngestDropped & FloodHeld) | null;
}

/** Runs every stage in order under the lock (a dry-run too: it writes the report a real run commits). */
export async function runSleepCycle(ctx: RunContext): Promise<RunResult> {
  // Before the lock file is even created: a lock that is MEMORY.md would be taken for a stale one and moved.
  assertDistinctRunPaths(ctx.root, ctx.settings, [], CONFIG_FILE);
  const lockOptions = { path: repoPaths(ctx.root, ctx.settings).lock, runId: ctx.runId, now: ctx.now, staleMinutes: ctx.settings.lock_stale_minutes };
  return withLock(ctx.fs, lockOptions, async (lock) => {
    let data: object = {};
    for (const stage of ctx.options.lifecycleOnly ? LIFECYCLE_STAGES : STAGES) {
      if (ctx.options.dryRun && !stage.inDryRun) {
        ctx.logger.info(`skip ${stage.name} (dry run)`);
        continue;
      }
      ctx.logger.info(`start ${stage.name}`);
      data = await stage.run(data as never, ctx);
      ctx.logger.info(`finish ${stage.name}`);
    }
    return toResult(data as FinalData, ctx, lock.takenOver);
  });
}

/** What the result is built from; both tables must produce it (checked below at compile time). */
interface FinalData {
  lines: LineCounts;
  clusters: Cluster[];
  outcomes: Record<string, ClusterOutcome>;
  windowCounts: Record<string, number>;
  plan: Pick<Plan, 'proposals' | 'lifecycle' | 'ceiling'>;
  unwritten?: { cluster: PromotedCluster; reason: string }[];
  llm: LlmRunStats;
  notices: string[];
  reportPath: string;
  written?: string[];
  commit?: string | null;
  commitNote?: string;
  parallel?: ParallelIngest | null;
  dropped?: IngestDropped;
  held?: FloodHeld;
}
type Produces<T extends FinalData> = T;
export type NightOutput = Produces<Produced<typeof NIGHT>>;
export type LifecycleOutput = Produces<Produced<typeof LIFECYCLE>>;

function toResult(data: FinalData, ctx: RunContext, takenOver: string | null): RunResult {
  const notices = takenOver ? [...data.notices, `took over a stale lock: ${takenOver}`] : data.notices;
  return {
    dry_run: ctx.options.dryRun,
    run_id: ctx.runId,
    lines: data.lines,
    clusters: data.clusters.map((c) => ({
      id: c.id, kind: c.kind, tool_name: c.tool_name, error_category: c.error_category, template_id: c.template_id ?? null, template: shown(c.template),
      count: data.windowCounts[c.id] ?? c.count, count_tonight: c.count, distinct_inputs: c.distinct_inputs, promoted: data.outcomes[c.id] === 'promoted', outcome: data.outcomes[c.id] ?? 'pending',
    })),
    proposals: data.plan.proposals.map((p) => ({ ...p, template: shown(p.template), ...(p.templates ? { templates: p.templates.map((t) => shown(t)!) } : {}) })),
    unwritten: (data.unwritten ?? []).map(({ cluster, reason }) => ({
      cluster_id: cluster.id, tool_name: cluster.tool_name, error_category: cluster.error_category, template: shown(cluster.template),
      templates: (cluster.templates ?? []).map((t) => shown(t.template)!), reason,
    })),
    notices,
    llm: data.llm,
    report_path: data.reportPath,
    written: data.written ?? [data.reportPath],
    commit: data.commit ?? null,
    commit_note: data.commitNote ?? 'dry run: nothing committed',
    lock_taken_over: takenOver,
    lifecycle: { changes: data.plan.lifecycle, ceiling: data.plan.ceiling },
    parallel_ingest: data.parallel ?? null,
    flood: floodCounts(data.dropped, data.held),
  };
}

function floodCounts(dropped: IngestDropped | undefined, held: FloodHeld | undefined): RunResult['flood'] {
  const counts = { clusters: 0, events: 0, templates: 0, templates_unsaved: 0, rules_deferred: 0, singletons_held: 0, pending_dropped: 0, ...dropped, ...held };
  return Object.values(counts).some((n) => n > 0) ? counts : null;
}
