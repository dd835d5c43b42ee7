import { redact } from '../safety/redact.js';

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last gate before a rule text is written anywhere: one line, no control, bidi or zero-width
 * characters, no comment markers (which would hide or fake a rule id), and redacted, whatever wrote it.
 */
export function finalRuleText(text: string): string {
  return redact(text.replace(CONTROL, ' '))
    .replace(/<!--/g, '<!—')
    .replace(/-->/g, '—>')
    .replace(/\s+/g, ' ')
    .trim();
}
