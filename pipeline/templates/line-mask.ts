import { maskTokens } from './mask.js';
import { DEFAULT_MINER_OPTIONS } from './miner.js';
import { tokenize } from './tokenize.js';

/**
 * The first half of template mining, run on every failure's error line: the miner's own masking (values
 * recognisable by their form become `<*>`), without learning. Two lines that differ only in such values
 * are one line to the miner, so a night's clusters are keyed by masked lines (few) rather than raw ones
 * (many), and the miner learns once per masked line, after the night is read, in sorted order.
 */
export function maskVariables(line: string): string {
  return maskTokens(tokenize(line, DEFAULT_MINER_OPTIONS)).join(' ');
}

/** Lines of a message kept as evidence, and the characters they are read from. */
const EVIDENCE_LINES = 6;
const EVIDENCE_READ = 2000;

/**
 * A message as evidence is stored (state, report, audit, the model's prompt): its first lines, each
 * masked as the miner masks values, so what is kept is a template with its variables as `<*>`, never
 * the raw line. Callers pass redacted text: a secret is gone before masking could split its key from
 * its value.
 */
export function maskMessage(message: string): string {
  return message
    // Claude Code's wrapper is not part of the error (see error-line.ts); the masker would mangle it.
    .replace(/<\/?tool_use_error>/g, '')
    .slice(0, EVIDENCE_READ)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(0, EVIDENCE_LINES)
    .map(maskVariables)
    .join('\n');
}
