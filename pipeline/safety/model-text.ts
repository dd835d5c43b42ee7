import { checkCommands, type CommandFinding } from './command-check.js';
import { extractCommands } from './command-extract.js';
import { englishProblems, proseFindings } from './prose-check.js';
import type { CommandPolicy } from './command-policy.js';

/**
 * What the command policy says about a model-written rule: its prose (English, listed actions, no
 * dangerous concepts) and every command in it, parsed. Offline rules are not checked here: their advice
 * is ours and their quotes follow the error-clause grammar.
 */
export async function modelTextFindings(text: string, toolName: string, policy: CommandPolicy | undefined): Promise<CommandFinding[]> {
  if (policy === undefined) {
    return [{ id: 'no-command-policy', reason: 'the safety policy has no commands: section, so the commands in a model-written rule cannot be checked; copy it from the bundled config/safety-rules.yaml' }];
  }
  const english = englishProblems(text).map((reason) => ({ id: 'not-english', reason }));
  return [...english, ...proseFindings(text, policy, toolName), ...(await checkCommands(extractCommands(text, policy), policy))];
}

/** Drafts written by a model (Claude), as the synthesize stage and the ledger's provenance name them. */
export function isModelWritten(synthesizer: string): boolean {
  return synthesizer.startsWith('claude');
}
