import { buildExplanation, renderExplanation } from '../memory/explain.js';
import { parseEvents } from '../memory/lifecycle.js';
import type { CliDeps } from './context-from-options.js';
import { openRepo } from './open-repo.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface ExplainOptions {
  root?: string;
  json?: boolean;
}

/** Read-only: why a rule exists. Observation never reinforces or changes anything. */
export async function explainCommand(id: string, options: ExplainOptions, deps: CliDeps): Promise<number> {
  const { ctx, loaded } = await openRepo(options.root, deps);
  const explanation = buildExplanation(id, loaded.state, parseEvents(loaded.lifecycleText), ctx.settings.exposed_min_calls);
  return printSuccess(deps, Boolean(options.json), explanation, () => renderExplanation(explanation));
}

export const explainCommandSpec: CommandSpec = {
  name: 'explain <id>',
  description: 'show why a rule exists: cluster, counts, evidence, synthesizer, safety verdict, history (read-only)',
  options: [],
  action: (args, options, deps) => explainCommand(args[0]!, options, deps),
};
