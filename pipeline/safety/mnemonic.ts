import { BIP39_ENGLISH } from './bip39-words.js';

/**
 * Seed phrases (BIP-39): 12, 15, 18, 21 or 24 words of one 2,048-word list. They are dictionary words, so
 * no randomness test sees them; the list makes the check one by construction: a run of `SEED_WORDS`
 * list words in a row is a seed phrase (prose breaks such a run within a few words: "the", "a", "to",
 * "is", "of", "and", "not", "for" and "with" are not on the list). A shorter run of at least
 * `AFTER_KEYWORD` words counts when a seed word (`mnemonic`, `seed`, `recovery phrase`, …) stands right
 * before it: a phrase cut short is still most of a wallet. Words may be separated by blanks, line
 * breaks, commas, dashes or quotes, and numbered (`1. abandon 2. ability`); case is ignored.
 * Needs: no literal (words are letters), so a cheap count gates it: a text with fewer than
 * `AFTER_KEYWORD - 1` separators cannot hold a run (see mayHoldPhrase).
 */

const SEED_WORDS = 12;
const AFTER_KEYWORD = 6;

let words: ReadonlySet<string> | null = null;
function wordList(): ReadonlySet<string> {
  words ??= new Set(BIP39_ENGLISH.split(' '));
  return words;
}

/** What may stand between two words of a phrase: separators, and a list number (`2.`, `(3)`, `4:`). */
const GAP = /^[ \t\r\n,;|"'`\-–—.]{1,4}$|^[ \t\r\n,;.]*\(?\d{1,2}[.):]?[ \t\r\n]*$/;
/** A seed word right before the run (the run's first word may follow `mnemonic: "` or `--seed '`). */
const KEYWORD = /(?:mnemonic|seed|recovery|phrase|passphrase|words?|bip-?39)[^A-Za-z]{0,6}$/i;
const WORD = /[A-Za-z0-9_]+/g;

/** A cheap test before the word scan: enough separators for the shortest run that counts. */
function mayHoldPhrase(text: string): boolean {
  if (text.length < AFTER_KEYWORD * 4) return false;
  let separators = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if ((c === 32 || c === 10 || c === 44 || c === 45) && ++separators >= AFTER_KEYWORD - 1) return true;
  }
  return false;
}

export interface PhraseFinding {
  start: number;
  end: number;
  kind: string;
}

/** Every seed phrase in `text`: the run from its first word to its last. */
export function findMnemonics(text: string, out: PhraseFinding[]): void {
  if (!mayHoldPhrase(text)) return;
  const list = wordList();
  let runStart = -1;
  let runEnd = -1;
  let count = 0;
  const close = (): void => {
    if (count >= SEED_WORDS || (count >= AFTER_KEYWORD && KEYWORD.test(text.slice(Math.max(0, runStart - 40), runStart)))) {
      out.push({ start: runStart, end: runEnd, kind: 'mnemonic' });
    }
    count = 0;
    runStart = -1;
  };
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const word = m[0];
    const isWord = word.length >= 3 && word.length <= 8 && list.has(word.toLowerCase());
    if (!isWord) {
      // A list number between words is part of the gap, not the end of the run.
      if (count > 0 && /^\d{1,2}$/.test(word) && GAP.test(text.slice(runEnd, m.index + word.length))) continue;
      if (count > 0) close();
      continue;
    }
    if (count > 0 && !GAP.test(text.slice(runEnd, m.index))) close();
    if (count === 0) runStart = m.index;
    count += 1;
    runEnd = m.index + word.length;
  }
  if (count > 0) close();
}
