import { checkCommands, type CommandFinding } from './command-check.js';
import { extractCommands, foldForCommands } from './command-extract.js';
import { normalise } from './normalise.js';
import { englishProblems, proseFindings } from './prose-check.js';
import type { CommandPolicy } from './command-policy.js';

/**
 * What the command policy says about a model-written rule: its prose (English, listed actions, no
 * dangerous concepts) and every command in it, parsed. `errorTexts` are the error texts of the cluster the
 * rule is about (error-quote.ts): a code span is a quote only when it is one of them; without them every
 * span of words is a command. Offline rules are not checked here: their advice is ours and their quotes
 * follow the error-clause grammar.
 */
export async function modelTextFindings(raw: string, toolName: string, policy: CommandPolicy | undefined, errorTexts: readonly string[] = []): Promise<CommandFinding[]> {
  const text = canonicalModelText(raw);
  if (policy === undefined) {
    return [{ id: 'no-command-policy', reason: 'the safety policy has no commands: section, so the commands in a model-written rule cannot be checked; copy it from the bundled config/safety-rules.yaml' }];
  }
  const english = englishProblems(text).map((reason) => ({ id: 'not-english', reason }));
  const errors = errorTexts.map(canonicalModelText);
  return [...english, ...proseFindings(text, policy, toolName, errors), ...(await checkCommands(extractCommands(text, policy, { errorTexts: errors, toolName }), policy))];
}

/**
 * The one form of a model's rule that every check reads and memory stores: invisible characters out,
 * NFKC, look-alike letters folded to their ASCII skeleton (mathematical bold `𝗿𝗺` is `rm`), typographic
 * quotes and dashes made ASCII (an em dash is `--`, as an autocorrected flag is). Checking one form and
 * storing another is how `𝗿𝗺 -𝗿𝗳` passed a command check that read those letters as no program at all.
 */
export function canonicalModelText(raw: string): string {
  return foldForCommands(normalise(raw.trim())).replace(/\u2026/g, '...');
}

/** Drafts written by a model (Claude), as the synthesize stage and the ledger's provenance name them. */
export function isModelWritten(synthesizer: string): boolean {
  return synthesizer.startsWith('claude');
}
