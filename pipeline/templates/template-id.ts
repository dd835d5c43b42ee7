import { createHash } from 'node:crypto';

/**
 * A template's id: `t-` and the first 12 hex digits of sha256(scope, newline, template). It depends on
 * nothing else, so the same template in the same scope has the same id on every machine and every night.
 */
export function templateId(scope: string, template: string): string {
  return `t-${createHash('sha256').update(`${scope}\n${template}`).digest('hex').slice(0, 12)}`;
}

export const TEMPLATE_ID = /^t-[0-9a-f]{12}$/;
