import type { Finding } from './secrets.js';

/**
 * A token spelled out in words, as a support transcript or a voice call reads it back: `november papa
 * mike underscore capital kilo seven …`. No detector sees a token there, only words. What gives it away
 * is the words themselves: the spelling alphabet (NATO/ICAO, either spelling of alfa, juliett, whiskey,
 * x-ray), digits as words or digits, case markers (`capital`, `uppercase`, `cap`, `big`, `small`) and
 * symbol names. Ordinary text holds a few in a row (callsigns, lists of environments named after the
 * alphabet, `alpha 1.0.2`), hardly twelve with six letters of the alphabet among them, in no alphabetical
 * order, with digits standing alone: such a run is redacted whole, whatever it spells.
 */

const ALPHABET = new Set([
  'alfa', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'juliet', 'kilo', 'lima', 'mike',
  'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'whisky', 'xray', 'x-ray', 'yankee', 'zulu',
]);
/** Words that spell a character that is not a letter of the alphabet: digits, symbols. */
const OTHER_CHARACTERS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'niner', 'underscore', 'dash', 'hyphen', 'minus', 'dot',
  'period', 'slash', 'plus', 'equals', 'colon', 'tilde', 'at',
]);
/** Words that go with a character without spelling one: case markers, `number`. */
const MARKERS = new Set(['capital', 'uppercase', 'upper', 'cap', 'caps', 'big', 'small', 'lowercase', 'lower', 'number', 'digit', 'letter']);

/** Spelled characters a run needs, and letters of the alphabet among them. */
const MIN_CHARACTERS = 12;
const MIN_LETTERS = 6;
/** What may stand between two words of a run: blanks and light punctuation. */
const GAP = /^[\s,;/|.:()-]{1,4}$/;
const WORD = /x-ray|[A-Za-z]+|\d/gi;
/** A cheap gate: most texts hold no word of the alphabet at all. */
const MAY_SPELL = /alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliet|kilo|lima|mike|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whisk|x-?ray|yankee|zulu/i;

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
    const word = m[0].toLowerCase();
    const letter = ALPHABET.has(word);
    // A digit alone (`papa 7 mike`), not one of a number or a version (`alpha 1.0.2`, `bravo-0`).
    const other = !letter && (OTHER_CHARACTERS.has(word) || (/^\d$/.test(word) && digitAlone(text, m.index)));
    const marker = !letter && !other && MARKERS.has(word);
    if (start !== -1 && !GAP.test(text.slice(end, m.index))) flush();
    if (!letter && !other && !marker) {
      flush();
      continue;
    }
    // A run starts at a character or a marker, and ends at its last character.
    if (start === -1) start = m.index;
    if (letter || other) {
      characters += 1;
      if (letter) spelled += word[0];
    }
    end = m.index + m[0].length;
  }
  flush();
  return out;
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
