import { createHash } from 'node:crypto';

/**
 * A rule id is derived from its cluster and generation (how many rules that cluster had before), not
 * from its text: the text quotes counts, so a re-run after a crash, with a few more events, must still
 * land on the same id and find the rule already written.
 */
export function ruleId(clusterId: string, generation = 0): string {
  return `r-${createHash('sha256').update(`${clusterId}\n${generation}`).digest('hex').slice(0, 6)}`;
}

export function textSha(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
