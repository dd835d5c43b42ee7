import { createHash } from 'node:crypto';

/** Rule ids are content-derived, so re-running after a crash produces the same ids. */
export function ruleId(clusterId: string, text: string): string {
  return `r-${createHash('sha256').update(`${clusterId}\n${text}`).digest('hex').slice(0, 6)}`;
}

export function textSha(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
