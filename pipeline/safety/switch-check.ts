import type { CommandFinding } from './command-check.js';
import type { RemoteCode, SafetySwitch } from './command-policy.js';
import { compilePattern, occursIn, type WordPattern } from './safeguard-check.js';

/**
 * Two classes of danger that are no command and no verb the advice grammar could refuse (issue 14 item 4):
 *
 * - Safety-off switches: a setting or a directive that turns a check off, wherever the rule writes it, in
 *   prose or in code formatting (`StrictHostKeyChecking=no`, known hosts sent to /dev/null, `@ts-nocheck`,
 *   `# noqa`, `eslint-disable`, `# type: ignore`, `HUSKY=0`). A directive is a comment to a shell, so the
 *   command parser sees nothing in it; the text is read instead (`commands.switches`, regular expressions).
 * - A download run by a shell, described in words: a sentence that names fetching code from elsewhere and
 *   running it or handing it to an interpreter (`commands.remote_code`, word patterns as in safeguards).
 *
 * `text` is the rule with its quotes of the cluster's own error text taken out (error-quote.ts): an error
 * may name a directive ("Unused '@ts-expect-error' directive"); the model's own words and code may not.
 */
export function switchFindings(text: string, switches: readonly SafetySwitch[]): CommandFinding[] {
  const findings: CommandFinding[] = [];
  for (const entry of switches) {
    if (entry.text.some((source) => new RegExp(source, 'i').test(text))) findings.push({ id: entry.id, reason: entry.reason });
  }
  return findings;
}

export function remoteCodeFindings(text: string, remote: RemoteCode): CommandFinding[] {
  const fetch = remote.fetch.map(compilePattern);
  const run = remote.run.map(compilePattern);
  for (const sentence of text.toLowerCase().split(/[.;!?](?:\s|$)/)) {
    const words = sentence.match(WORD) ?? [];
    if (some(fetch, words) && some(run, words)) {
      return [{ id: 'remote-code-run', reason: 'it describes running code fetched from elsewhere (a download handed to a shell or an interpreter), in words (commands.remote_code)' }];
    }
  }
  return [];
}

const WORD = /[a-z0-9_]+(?:['-][a-z0-9_]+)*/g;

function some(patterns: readonly WordPattern[], words: readonly string[]): boolean {
  return patterns.some((pattern) => occursIn(pattern, words));
}
