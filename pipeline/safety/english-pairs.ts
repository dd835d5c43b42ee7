import { BIP39_ENGLISH } from './bip39-words.js';

/**
 * Whether every two letters in a row of `word` (lower case) occur in some word of the BIP-39 English list
 * (2,048 common words): `lights`, `amount`, `logger` do; `hzti`, `mnha`, `ullwmorc` (random letters) do not.
 * The set is built on first use.
 */
export function englishPairs(word: string): boolean {
  PAIRS ??= new Set(BIP39_ENGLISH.split(' ').flatMap((w) => [...w].slice(1).map((c, i) => w[i]! + c)));
  for (let i = 1; i < word.length; i += 1) if (!PAIRS.has(word[i - 1]! + word[i]!)) return false;
  return true;
}
let PAIRS: Set<string> | undefined;

/** How many two letters in a row of `word` (lower case) occur in no word of the BIP-39 list: `workflow` 1, `okhfvdvdqy` 7. */
export function nonEnglishPairs(word: string): number {
  PAIRS ??= new Set(BIP39_ENGLISH.split(' ').flatMap((w) => [...w].slice(1).map((c, i) => w[i]! + c)));
  let count = 0;
  for (let i = 1; i < word.length; i += 1) if (!PAIRS.has(word[i - 1]! + word[i]!)) count += 1;
  return count;
}
