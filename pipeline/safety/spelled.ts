import { BIP39_ENGLISH } from './bip39-words.js';
import type { Finding } from './secrets.js';

/**
 * A token spelled out in words, as a support transcript or a voice call reads it back: `november papa
 * mike underscore capital kilo seven …`. No detector sees a token there, only words. What gives it away
 * is the words themselves: a spelling alphabet (NATO/ICAO in either spelling, the older RAF/US one, the
 * German DIN 5009), digits as words or digits, case markers (`capital`, `uppercase`, `cap`, `big`,
 * `small`, `gross`), symbol names, and glue (`then`, `double`). Words glued together (`QuebecCapfoxtrot`)
 * are split back into the words they are made of. Ordinary text holds a few in a row (callsigns, lists of
 * environments named after the alphabet, `alpha 1.0.2`), hardly twelve with six letters among them, in
 * no alphabetical order, with digits standing alone: such a run is redacted whole, whatever it spells.
 */

const ALPHABET = new Set([
  // NATO/ICAO, with the spellings English texts use.
  'alfa', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'juliet', 'kilo', 'lima', 'mike',
  'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'whisky', 'xray', 'yankee', 'zulu',
  // RAF/US 1943 (the words the NATO list does not share).
  'able', 'baker', 'dog', 'easy', 'fox', 'george', 'how', 'item', 'jig', 'king', 'love', 'nan', 'oboe', 'peter', 'queen', 'roger',
  'sugar', 'tare', 'uncle', 'william', 'yoke', 'zebra',
  // German DIN 5009.
  'anton', 'berta', 'caesar', 'c\u00e4sar', 'dora', 'emil', 'friedrich', 'gustav', 'heinrich', 'ida', 'julius', 'kaufmann', 'ludwig', 'martha',
  'nordpol', 'otto', 'paula', 'quelle', 'richard', 'samuel', 'siegfried', 'schule', 'theodor', 'ulrich', 'viktor', 'wilhelm', 'xanthippe',
  'ypsilon', 'zacharias', 'zeppelin',
]);
/** Words that spell a character that is not a letter: digits (English, German), symbols. */
const OTHER_CHARACTERS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'niner',
  'null', 'eins', 'zwei', 'drei', 'vier', 'f\u00fcnf', 'fuenf', 'sechs', 'sieben', 'acht', 'neun',
  'underscore', 'dash', 'hyphen', 'minus', 'dot', 'period', 'slash', 'backslash', 'plus', 'equals', 'colon', 'semicolon', 'tilde', 'at',
  'hash', 'pound', 'dollar', 'percent', 'caret', 'ampersand', 'asterisk', 'star', 'bang', 'exclamation', 'question', 'pipe', 'comma',
]);
/** Words that go with a character without spelling one: case markers, repeats, `number`, glue between characters. */
const MARKERS = new Set([
  'capital', 'uppercase', 'upper', 'cap', 'caps', 'big', 'small', 'lowercase', 'lower', 'number', 'digit', 'letter', 'double', 'triple',
  'gross', 'gro\u00df', 'klein', 'then', 'and', 'next', 'followed', 'by', 'mark', 'sign',
]);
const KNOWN = [ALPHABET, OTHER_CHARACTERS, MARKERS];
const LONGEST = Math.max(...KNOWN.flatMap((set) => [...set].map((word) => word.length)));

/** Spelled characters a run needs, and letters among them. */
const MIN_CHARACTERS = 12;
const MIN_LETTERS = 6;
/** What may stand between two words of a run: nothing (glued), blanks, quotes, light punctuation and arrows. */
const GAP = /^[\s,;/|.:()'"`_+<>=-]{0,6}$/;
/** Words: letters (of German too), a digit, `x-ray`; split at case changes, so glued words come apart. */
const WORD = /[Xx]-[Rr][Aa][Yy]|[A-Z\u00c4\u00d6\u00dc]?[a-z\u00e4\u00f6\u00fc\u00df]+|[A-Z\u00c4\u00d6\u00dc]+(?![a-z\u00e4\u00f6\u00fc\u00df])|\d/g;
/** A cheap gate: most texts hold no word of a spelling alphabet's distinctive ones. */
const MAY_SPELL = /alfa|alpha|bravo|charlie|foxtrot|hotel|india|juliet|kilo|lima|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whisk|x-?ray|yankee|zulu|baker|george|oboe|roger|sugar|tare|yoke|zebra|anton|berta|caesar|c\u00e4sar|dora|emil|friedrich|gustav|heinrich|julius|kaufmann|ludwig|martha|nordpol|paula|quelle|theodor|ulrich|viktor|wilhelm|xanthippe|ypsilon|zacharias|zeppelin/i;

type Kind = 'letter' | 'other' | 'marker';
/** A spelling word as read: its kind and its first letter (the letter it spells, for the order test). */
type Piece = readonly [Kind, string];
const OTHER_PIECE: Piece = ['other', ''];

/** Every run of spelled characters long enough to be a spelled token, as ranges of `text`. */
export function spelledFindings(text: string): Finding[] {
  if (!MAY_SPELL.test(text)) return [];
  const out: Finding[] = [];
  let start = -1;
  let end = -1;
  let characters = 0;
  let spelled = '';
  const flush = (): void => {
    if (characters >= MIN_CHARACTERS && spelled.length >= MIN_LETTERS && !inOrder(spelled)) out.push({ start, end, kind: 'secret' });
    start = -1;
    characters = 0;
    spelled = '';
  };
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const word = m[0].toLowerCase().replace('-', '');
    // A digit alone (`papa 7 mike`), not one of a number or a version (`alpha 1.0.2`).
    const kinds = /^\d$/.test(word) ? (digitAlone(text, m.index) ? [OTHER_PIECE] : null) : wordsOf(word);
    if (start !== -1 && !GAP.test(text.slice(end, m.index))) flush();
    if (kinds === null) {
      flush();
      continue;
    }
    if (start === -1) start = m.index;
    for (const [kind, first] of kinds) {
      if (kind === 'marker') continue;
      characters += 1;
      if (kind === 'letter') spelled += first;
    }
    end = m.index + m[0].length;
  }
  flush();
  return out;
}

/** What a word spells: one known word, or known words glued together (`capfoxtrot`); null for any other word. */
function wordsOf(word: string): Piece[] | null {
  const kind = kindOf(word);
  if (kind !== null) return [[kind, word[0]!]];
  // Not a word of the BIP-39 list, so a seed phrase's words (`capable`: cap + able) stay words for the mnemonic reader.
  if (word.length < 5 || word.length > 120 || (word.length <= 8 && bip39Words().has(word))) return null;
  // Split into known words, shortest first at each point (a small search: the words are few and short).
  const best: (Piece[] | null)[] = new Array(word.length + 1).fill(null);
  best[0] = [];
  for (let i = 0; i < word.length; i += 1) {
    if (best[i] === null) continue;
    for (let j = i + 2; j <= Math.min(word.length, i + LONGEST); j += 1) {
      const piece = kindOf(word.slice(i, j));
      if (piece !== null && best[j] === null) best[j] = [...best[i]!, [piece, word[i]!]];
    }
  }
  return best[word.length] ?? null;
}

let BIP39: Set<string> | undefined;
const bip39Words = (): Set<string> => (BIP39 ??= new Set(BIP39_ENGLISH.split(' ')));

function kindOf(word: string): Kind | null {
  return ALPHABET.has(word) ? 'letter' : OTHER_CHARACTERS.has(word) ? 'other' : MARKERS.has(word) ? 'marker' : null;
}

/** A digit with a blank, a comma, a dash or the text's edge on both sides (a version's has a dot or a digit). */
function digitAlone(text: string, at: number): boolean {
  return /^[\s,;/-]?$/.test(text[at - 1] ?? '') && /^[\s,;/-]?$/.test(text[at + 1] ?? '');
}

/**
 * Letters in the alphabet's order, forwards or backwards (`alpha, bravo, charlie …`, `zulu, yankee …`): a list
 * named after the alphabet, not a token (half of the steps between two letters one place apart).
 */
function inOrder(letters: string): boolean {
  let steps = 0;
  for (let i = 1; i < letters.length; i += 1) if (Math.abs(letters.charCodeAt(i) - letters.charCodeAt(i - 1)) === 1) steps += 1;
  return steps * 2 >= letters.length - 1;
}
