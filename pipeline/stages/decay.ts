import type { RunContext } from '../context.js';
import { evaluateLifecycle, type LifecycleResult } from '../memory/lifecycle-evaluate.js';
import { holdRules, type UnreadableSkills } from '../memory/held-targets.js';
import type { State } from '../memory/state.js';
import { recheckRules } from '../memory/recheck.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { emptyUsage, type UsageSummary } from '../telemetry/usage.js';
import type { Recurrence } from '../model/cluster.js';
import type { HumanChange } from './reconcile.js';

/**
 * decay: the memory lifecycle for tonight — reinforce rules whose failure recurred or that agents
 * accessed, measure effectiveness, weigh every rule and move it between states (decaying, archived,
 * expired, deleted; archived rules whose failure recurred are restored). Pure; plan turns it into files.
 */
export async function decay<I extends { state: State; policy: SafetyPolicy; recurrences?: Recurrence[]; usage?: UsageSummary; humanChanges: HumanChange[]; unreadableSkills?: UnreadableSkills }>(
  input: I,
  ctx: RunContext,
): Promise<I & { lifecycle: LifecycleResult }> {
  const policy = await recheckRules(input.state.rules, input.policy);
  // Rules in a skill file the run cannot read stay as they are tonight (see held-targets.ts).
  const lifecycle = holdRules(evaluateLifecycle(
    {
      policy,
      rules: input.state.rules,
      recurrences: input.recurrences ?? [],
      usage: input.usage ?? emptyUsage(),
      edited: input.humanChanges.filter((change) => change.kind === 'edited').map((change) => change.rule_id),
    },
    ctx.settings,
    ctx.now,
  ), input.state.rules, input.unreadableSkills);
  return { ...input, lifecycle };
}
