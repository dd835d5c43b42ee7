import { createHash } from 'node:crypto';

/**
 * A rule id is derived from its cluster and generation (how many rules that cluster had before), not
 * from its text: the text quotes counts, so a re-run after a crash, with a few more events, must still
 * land on the same id and find the rule already written.
 *
 * 64 bits: with 24, anyone who can write the log could grind a tool name whose cluster's id is the id a
 * real rule will get, and that rule would count as a "duplicate" every night. Ids written before (6 hex
 * digits) stay valid: they are looked up, never recomputed.
 */
export function ruleId(clusterId: string, generation = 0): string {
  return `r-${createHash('sha256').update(`${clusterId}\n${generation}`).digest('hex').slice(0, RULE_ID_HEX)}`;
}

/** Hex digits of a new rule id (older ids have 6). */
export const RULE_ID_HEX = 16;

export function textSha(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
