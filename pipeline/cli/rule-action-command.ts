import { buildManualPlan, type ManualAction } from '../memory/manual.js';
import { applyChanges } from '../io/apply-changes.js';
import { policyVerdict } from '../memory/recheck.js';
import type { CliDeps } from './context-from-options.js';
import { openContext, underLock } from './open-repo.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';
import { nowOption } from './run-command.js';

export interface RuleActionOptions {
  root?: string;
  json?: boolean;
  now?: string;
}

/** `touch`, `pin`, `unpin`, `restore <id>`: one human decision about one rule, written under the lock. */
export async function ruleActionCommand(action: ManualAction, id: string, options: RuleActionOptions, deps: CliDeps): Promise<number> {
  const ctx = await openContext(options.root, deps, options.now);
  const plan = await underLock(ctx, async (loaded) => {
    // Back into memory only what the current policy accepts (it may have changed since the rule was archived).
    const rule = loaded.state.rules[id];
    const verdict = rule && (action === 'restore' || action === 'pin') ? await policyVerdict(rule, loaded.policy) : null;
    const policyBlock = verdict?.severity === 'block' ? verdict.violations.join('; ') : null;
    const built = buildManualPlan(loaded, action, id, { now: ctx.now, runId: ctx.runId, settings: ctx.settings, policyBlock });
    await applyChanges(ctx, built.changes);
    return built;
  });
  const data = { action, id, state: plan.rule.state, status: plan.rule.status, summary: plan.summary, written: plan.changes.map((c) => c.path), events: plan.events };
  return printSuccess(deps, Boolean(options.json), data, () => `${plan.summary}\n  wrote: ${data.written.join(', ')}\n  commit these files (the next run commits them too).\n`);
}

const DESCRIPTIONS: Record<ManualAction, string> = {
  touch: 'reinforce a rule by hand (an explicit access): its decay starts over',
  pin: 'pin a rule: it skips every automatic transition (an archived rule comes back into memory)',
  unpin: 'unpin a rule: it becomes active and decays again',
  restore: 'bring an archived or expired rule back into its memory or skill file',
};

export function ruleActionSpec(action: ManualAction): CommandSpec {
  return {
    name: `${action} <id>`,
    description: DESCRIPTIONS[action],
    options: [nowOption()],
    action: (args, options, deps) => ruleActionCommand(action, args[0]!, options, deps),
  };
}
