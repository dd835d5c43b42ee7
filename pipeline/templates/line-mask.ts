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
