/**
 * The lexical similarity of two rule texts: cosine over normalised words and word pairs. Needs no
 * download and no model, so it is the default. Pure.
 *
 * What is dropped before comparing, and why: a rule's counts ("(4 times in 3 sessions)") change every
 * night and say nothing about the advice; template variables (`<*>`) stand for anything; stop-words
 * and the words every offline rule shares ("fails with") would make every pair of rules about one
 * tool look alike, which is exactly the hard negative (same tool, different cause) to keep apart.
 */
const STOP_WORDS = new Set(
  ('a an and are as at be been before being but by can could did do does each else for from had has have how if in into is it its ' +
    'just may more most must no not of on once one only or other our out own same so some such than that the their them then there ' +
    'these they this those through to too under until up very was we were what when where which while who why will with would you your ' +
    // The frame every offline rule has: "`tool` fails with `…` (N times in M sessions): …; what worked instead: …".
    'fails fail failed failing failure error errors times time sessions session instead worked even after earlier rule always never ' +
    'first again use using')
    .split(' '),
);

/** The counts frame an offline rule carries; it changes night to night without changing the advice. */
const COUNTS = /\(\s*\d+\s+times?\s+in\s+\d+\s+sessions?[^)]*\)/gi;

/** A rough English stem: enough to make "locked"/"locks"/"lock" one word, no dictionary needed. */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of ['ing', 'ies', 'ied', 'ed', 'es', 's', 'ly']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      const base = word.slice(0, -suffix.length);
      return suffix === 'ies' || suffix === 'ied' ? `${base}y` : base;
    }
  }
  return word;
}

/** The words a rule text is compared on, in order: lower case, stemmed, without stop-words, numbers or `<*>`. */
export function ruleWords(text: string): string[] {
  return text
    .replace(COUNTS, ' ')
    .replace(/<\*>/g, ' ')
    .toLowerCase()
    // Identifiers stay whole (`git_push`, `tool_12`, `index.lock`): a rule about another tool is another rule.
    .split(/[^a-z0-9_.\-]+/)
    .map((word) => word.replace(/^[._-]+|[._-]+$/g, ''))
    .filter((word) => word.length > 1 && !/^[\d.]+$/.test(word) && !STOP_WORDS.has(word))
    .map((word) => (/[_.\-]/.test(word) ? word : stem(word)));
}

/** Words count once each, word pairs (in order) half as much: order carries some meaning, not most. */
export function lexicalVector(text: string): Map<string, number> {
  const words = ruleWords(text);
  const vector = new Map<string, number>();
  for (const word of new Set(words)) vector.set(word, 1);
  for (let i = 1; i < words.length; i++) {
    const pair = `${words[i - 1]} ${words[i]}`;
    vector.set(pair, 0.5);
  }
  return vector;
}

export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [key, value] of a) {
    na += value * value;
    const other = b.get(key);
    if (other !== undefined) dot += value * other;
  }
  for (const value of b.values()) nb += value * value;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Similarity in [0, 1]; 1 for texts that differ only in counts, variables, case or stop-words. */
export function lexicalSimilarity(a: string, b: string): number {
  return cosine(lexicalVector(a), lexicalVector(b));
}
