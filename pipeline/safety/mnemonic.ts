import { BIP39_ENGLISH } from './bip39-words.js';
import { isProseWord } from './prose-words.js';
import { anyIgnoringCase, compileNeeds } from './secret-prefilter.js';

/**
 * Seed phrases (BIP-39): 12, 15, 18, 21 or 24 words of one 2,048-word list. They are dictionary words, so
 * no randomness test sees them; the list makes the check one by construction: a run of `SEED_WORDS`
 * list words in a row is a seed phrase (prose breaks such a run within a few words: "the", "a", "to",
 * "is", "of", "and", "not", "for" and "with" are not on the list). A shorter run of at least
 * `AFTER_KEYWORD` words counts when a seed word (`mnemonic`, `seed`, `recovery phrase`, …) stands right
 * before it: a phrase cut short is still most of a wallet. Words may be separated by blanks, line
 * breaks, commas, dashes or quotes, and numbered (`1. abandon 2. ability`); case is ignored.
 * Needs: no literal (words are letters); a structural gate instead (see mayHoldPhrase).
 */

const SEED_WORDS = 12;
const AFTER_KEYWORD = 6;

let words: ReadonlySet<string> | null = null;
function wordList(): ReadonlySet<string> {
  words ??= new Set(BIP39_ENGLISH.split(' '));
  return words;
}

/** What may stand between two words of a phrase: separators, and a list number (`2.`, `(3)`, `4:`). */
const GAP = /^[ \t\r\n,;|"'`\-\u2013\u2014.]{1,4}$|^[ \t\r\n,;.]*\(?\d{1,2}[.):]?[ \t\r\n]*$/;
/** A seed word right before the run (the run's first word may follow `mnemonic: "` or `--seed '`). */
const KEYWORD = /(?:mnemonic|seed|recovery|phrase|passphrase|words?|bip-?39)[^A-Za-z]{0,6}$/i;
const isLetterCode = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isWordCode = (c: number): boolean => isLetterCode(c) || (c >= 48 && c <= 57) || c === 95;
/** Space, line break, comma, dash: gaps of one character that need no regex. */
const ONE_CHAR_GAP = new Set([32, 10, 44, 45]);
/** The seed words that are list words themselves. */
const SEED_WORD = /^(?:seed|phrase|word)$/i;

/** A seed word: the only places where a run shorter than SEED_WORDS counts. */
const ANY_KEYWORD = /mnemonic|seed|recovery|phrase|words?\b|bip-?39/gi;
/** SEED_WORDS words of 3 to 8 letters in a row, separated as in a phrase (list words or not: the regex engine's cheap pass). */
const CANDIDATE = new RegExp(String.raw`\b(?:[A-Za-z]{3,8}[\s,;|"'\x60.()\d:-]{1,6}){${SEED_WORDS - 1}}[A-Za-z]{3,8}\b`);
/** How far after a seed word a phrase is looked for, and how many seed words are followed in one text. */
const AFTER_KEYWORD_CHARS = 400;
const MAX_KEYWORDS = 64;

export interface PhraseFinding {
  start: number;
  end: number;
  kind: string;
}

/**
 * Every seed phrase in `text`: the run from its first word to its last. Needs: no literal a match must
 * hold (words are letters: BYPASS in the prefilter's terms); the gates are structural instead. A text
 * with a run of SEED_WORDS phrase-like words (the regex engine finds it cheaply) is scanned whole;
 * otherwise only the stretch after each seed word, where a shorter run counts.
 */
export function findMnemonics(text: string, out: PhraseFinding[]): void {
  if (text.length < AFTER_KEYWORD * 4) return;
  findKeywordPhrases(text, out);
  if (CANDIDATE.test(text)) return scanRuns(text, 0, text.length, out);
  ANY_KEYWORD.lastIndex = 0;
  let scannedTo = 0;
  for (let m = ANY_KEYWORD.exec(text), n = 0; m !== null && n < MAX_KEYWORDS; m = ANY_KEYWORD.exec(text), n += 1) {
    const from = Math.max(scannedTo, m.index);
    scannedTo = Math.min(text.length, m.index + m[0].length + AFTER_KEYWORD_CHARS);
    if (from < scannedTo) scanRuns(text, from, scannedTo, out);
  }
}

/**
 * A passphrase of words of any list (diceware, another wallet's list) right after an explicit seed keyword
 * and its sign: `mnemonic: orbit velvet canyon …`, `seed = "…"`, `recovery phrase is …`, `--seed '…'`. The
 * words of a list cannot be told from English by their look, so the keyword decides: six words or more in a
 * row (2 to 12 letters, separated as in a phrase), none of them prose, are its value. Prose after a seed
 * word has a function or state word within a few words ("seed: using random seed from …", "mnemonic:
 * invalid checksum", "recovery phrase must be …") and is kept; a run cut by one is taken up to it when six
 * words are left. Measured on the real data: no line of /work/shared/data changes.
 */
const SEED_KEYWORD = String.raw`\b(?:mnemonic|seed(?:[ _-]?(?:phrase|words))?|(?:secret[ _-]?)?recovery[ _-]?(?:phrase|words|seed)|backup[ _-]?(?:phrase|words)|wallet[ _-]?words)`;
const KEYWORD_PHRASE = new RegExp(
  String.raw`${SEED_KEYWORD}["']?(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was)[ \t]+|[ \t]+)["'\x60[]?([A-Za-z]{2,12}(?:(?:[ \t]*[,;|][ \t]*|[ \t]+|-)[A-Za-z]{2,12}){5,23})`,
  'dgi',
);
const KEYWORD_PHRASE_NEEDS = compileNeeds([anyIgnoringCase('mnemonic', 'seed', 'recovery', 'backup', 'wallet')]);
const PHRASE_WORD = /[A-Za-z]+/g;
const MIN_KEYWORD_PHRASE = 6;

export function findKeywordPhrases(text: string, out: PhraseFinding[]): void {
  if (!KEYWORD_PHRASE_NEEDS(text)) return;
  KEYWORD_PHRASE.lastIndex = 0;
  for (let m = KEYWORD_PHRASE.exec(text); m !== null; m = KEYWORD_PHRASE.exec(text)) {
    const start = (m as RegExpExecArray & { indices: [number, number][] }).indices[1]![0];
    let count = 0;
    let end = start;
    PHRASE_WORD.lastIndex = 0;
    for (let w = PHRASE_WORD.exec(m[1]!); w !== null && !isProseWord(w[0]); w = PHRASE_WORD.exec(m[1]!)) {
      count += 1;
      end = start + w.index + w[0].length;
    }
    if (count >= MIN_KEYWORD_PHRASE) out.push({ start, end, kind: 'mnemonic' });
  }
}

/** The runs of list words in `text[from, to)`; each long enough (or after a seed word) is a finding. */
function scanRuns(text: string, from: number, to: number, out: PhraseFinding[]): void {
  const list = wordList();
  let runStart = -1;
  let runEnd = -1;
  let count = 0;
  // `seed` and `phrase` are list words: a run may start with the seed word that introduces it.
  let second = -1;
  let firstIsKeyword = false;
  const close = (): void => {
    if (count >= SEED_WORDS || (count >= AFTER_KEYWORD && KEYWORD.test(text.slice(Math.max(0, runStart - 40), runStart)))) {
      out.push({ start: runStart, end: runEnd, kind: 'mnemonic' });
    } else if (firstIsKeyword && count - 1 >= AFTER_KEYWORD) {
      out.push({ start: second, end: runEnd, kind: 'mnemonic' });
    }
    count = 0;
    runStart = -1;
  };
  // Words are read by hand (runs of letters, digits and `_`): a regex's match objects cost more than the scan.
  for (let i = from; i < to; ) {
    if (!isWordCode(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const index = i;
    let letters = true;
    while (i < text.length && isWordCode(text.charCodeAt(i))) {
      if (!isLetterCode(text.charCodeAt(i))) letters = false;
      i += 1;
    }
    const length = i - index;
    const word = letters && length >= 3 && length <= 8 ? text.slice(index, i) : '';
    const isWord = word !== '' && (list.has(word) || (/[A-Z]/.test(word) && list.has(word.toLowerCase())));
    if (!isWord) {
      // A list number between words is part of the gap, not the end of the run.
      if (count > 0 && length <= 2 && /^\d+$/.test(text.slice(index, i)) && GAP.test(text.slice(runEnd, i))) continue;
      if (count > 0) close();
      continue;
    }
    // One blank, comma or dash (most gaps) without the gap's regex.
    if (count > 0 && !(index - runEnd === 1 && ONE_CHAR_GAP.has(text.charCodeAt(runEnd))) && !GAP.test(text.slice(runEnd, index))) close();
    if (count === 0) {
      runStart = index;
      firstIsKeyword = SEED_WORD.test(word);
    } else if (count === 1) {
      second = index;
    }
    count += 1;
    runEnd = i;
  }
  if (count > 0) close();
}

/** A line made only of words a seed phrase could hold (3 to 8 letters), separators and list numbers. */
const PHRASE_LINE = /^[\s\d.,;:)("'`|-]*[A-Za-z]{3,8}(?:[\s\d.,;:)("'`|-]+[A-Za-z]{3,8})*[\s\d.,;:)("'`|-]*$/;

/**
 * Whether a seed phrase may run over lines (`one word a line`, four lines of three): two or more lines in
 * a row made only of phrase-like words, holding `AFTER_KEYWORD` words together. Such a text is redacted
 * whole, not line by line (redact.ts isLineLocal), so the run is seen.
 */
export function phraseAcrossLines(text: string): boolean {
  let words = 0;
  let lines = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = end - start <= 200 ? text.slice(start, end) : '';
    start = end + 1;
    if (line !== '' && PHRASE_LINE.test(line)) {
      words += line.match(/[A-Za-z]{3,8}/g)!.length;
      lines += 1;
      if (lines >= 2 && words >= AFTER_KEYWORD) return true;
    } else {
      words = 0;
      lines = 0;
    }
  }
  return false;
}
