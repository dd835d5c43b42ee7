import { Option } from 'commander';
import { errors } from '../model/errors.js';
import { buildReviewPlan, listReviewItems, type ReviewAction } from '../memory/review.js';
import { applyChanges } from '../io/apply-changes.js';
import type { CliDeps } from './context-from-options.js';
import { openContext, openRepo, underLock } from './open-repo.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface ReviewOptions {
  root?: string;
  json?: boolean;
  accept?: boolean;
  reject?: boolean;
  force?: boolean;
  sha?: string;
  reason?: string;
}

/** `review` lists what waits for a human; `review <id> --accept|--reject` decides one item, under the lock. */
export async function reviewCommand(id: string | undefined, options: ReviewOptions, deps: CliDeps): Promise<number> {
  if (!id) {
    if (options.accept || options.reject) throw errors.usage('review --accept/--reject needs an id: `sleep-cycle review <id> --accept`.');
    const { ctx, loaded } = await openRepo(options.root, deps);
    const items = listReviewItems(loaded.state, { now: ctx.now, window_days: ctx.settings.window_days });
    return printSuccess(deps, Boolean(options.json), items, () => renderList(items));
  }
  const action = toAction(id, options);
  const ctx = await openContext(options.root, deps);
  const plan = await underLock(ctx, async (loaded) => {
    const built = buildReviewPlan(loaded, action, { now: ctx.now, runId: ctx.runId, settings: ctx.settings });
    await applyChanges(ctx, built.changes);
    return built;
  });
  const data = { action: action.kind, id, summary: plan.summary, written: plan.changes.map((change) => change.path), events: plan.events };
  return printSuccess(deps, Boolean(options.json), data, () => `${plan.summary}\n  wrote: ${data.written.join(', ')}\n  commit these files with your review.\n`);
}

function toAction(id: string, options: ReviewOptions): ReviewAction {
  if (options.accept === options.reject) throw errors.usage('review <id> needs exactly one of --accept or --reject.');
  if (options.accept) return { kind: 'accept', id, force: Boolean(options.force), ...(options.sha ? { sha: options.sha } : {}) };
  return { kind: 'reject', id, reason: (options.reason ?? 'no reason given').replace(/\s+/g, ' ').slice(0, 200) };
}

function renderList(items: ReturnType<typeof listReviewItems>): string {
  const out = [`quarantined drafts: ${items.quarantined.length}`];
  for (const q of items.quarantined) {
    out.push(`  ${q.id} (sha ${q.text_sha.slice(0, 8)}) ${q.tool_name}${q.error_category ? `/${q.error_category}` : ''} → ${q.target}: ${q.text}`, ...q.reasons.map((r) => `      ${r}`));
    out.push(`      accept this exact text: sleep-cycle review ${q.id} --accept --force --sha ${q.text_sha.slice(0, 8)}`);
  }
  out.push(`pending clusters: ${items.pending.length}`);
  for (const p of items.pending) out.push(`  ${p.id} ${p.kind} ${p.tool_name}${p.error_category ? `/${p.error_category}` : ''}: ${p.count} in window, last ${p.last_seen}`);
  return `${out.join('\n')}\n`;
}

export const reviewCommandSpec: CommandSpec = {
  name: 'review [id]',
  description: 'list quarantined drafts and pending clusters, or accept/reject one',
  options: [
    new Option('--accept', 'write this quarantined draft into memory'),
    new Option('--reject', 'burn this pattern: not proposed again for reject_cooldown_days'),
    new Option('--force', 'with --accept: accept a draft the safety checks stopped (audited)'),
    new Option('--sha <prefix>', 'with --accept: only if the draft text still has this sha (as listed by review)'),
    new Option('--reason <text>', 'with --reject: why, kept in the lifecycle audit'),
  ],
  action: (args, options, deps) => reviewCommand(args[0], options, deps),
};
