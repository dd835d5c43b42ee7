import { redact } from '../safety/redact.js';

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last gate before a rule text is written anywhere: one line, no control, bidi or zero-width
 * characters, no comment markers (which would hide or fake a rule id), no HTML tag outside a code span
 * (MEMORY.md and skill files are rendered: `<img onerror=…>`, `<details>`, `<a href>`), and redacted,
 * whatever wrote it.
 */
export function finalRuleText(text: string): string {
  return escapeTagsOutsideCode(
    redact(text.replace(CONTROL, ' '))
      .replace(/<!--/g, '<!—')
      .replace(/-->/g, '—>')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/**
 * `<` that could open a tag (before a letter, `/`, `!` or `?`) written `&lt;` outside code spans; a code
 * span (CommonMark: a run of n backticks up to the next run of exactly n) renders its text literally
 * and is kept as it is, so a quoted `<tool_use_error>` or template `<*>` reads the same.
 */
export function escapeTagsOutsideCode(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick < 0) return out + escapeTags(text.slice(i));
    out += escapeTags(text.slice(i, tick));
    let run = tick;
    while (text[run] === '`') run += 1;
    const close = closingRun(text, run, run - tick);
    if (close < 0) {
      // No closing run: the backticks are literal text.
      out += text.slice(tick, run);
      i = run;
    } else {
      out += text.slice(tick, close + (run - tick));
      i = close + (run - tick);
    }
  }
  return out;
}

function closingRun(text: string, from: number, length: number): number {
  for (let i = text.indexOf('`', from); i >= 0; i = text.indexOf('`', i)) {
    let end = i;
    while (text[end] === '`') end += 1;
    if (end - i === length) return i;
    i = end;
  }
  return -1;
}

function escapeTags(text: string): string {
  return text.replace(/<(?=[A-Za-z/!?])/g, '&lt;');
}
