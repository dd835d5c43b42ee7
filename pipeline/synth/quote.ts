/**
 * What the offline synthesizer may quote from a log. A quote only identifies an error for the reader,
 * so it must look like one: plain printable ASCII, containing an error word, and none of the shapes an
 * injection needs (links, markup, escapes, encodings, shell syntax, words that address a model or talk
 * about rules and memory). Anything else is not quoted: the rule is written without it.
 */
const PLAIN = /^[A-Za-z0-9 .,:;'"()[\]/_=+@*?!-]+$/;
const ERROR_WORD = /\b(?:error|fatal|not|no|fail(?:s|ed|ure)?|not found|denied|cannot|can't|unable|no such|invalid|does not exist|exceeds?|refused|timed? ?out|missing|unknown|rejected|exists|conflict|expected)\b/i;
const FORBIDDEN = [
  /:\/\/|\bwww\.|javascript:|data:|file:/i, // links
  /\]\(|!\[/, // markdown links and images
  /--/, // long flags: a quoted error never needs to carry one into a rule
  /\b(?:ignor\w*|disregard|forget|override|bypass|instruct\w*|prompt\w*|rules?|memory|remember|llm|ai|assistant|model|agents? (?:must|should)|always|never|jailbreak)\b/i,
  /\b(?:run|execute|exec|sudo|chmod|curl|wget|eval|export|decode|follow)\b/i,
  /^(?:please|fix|use|try|do|make|add|set|install|enable|disable|note|important|dear)\b/i,
  // Second person and imperative verbs anywhere: an error states a fact, it does not address the reader.
  /\b(?:you|your|yours|paste|upload|send|post|share|approve|merge|delete|remove|wipe|erase|grant|skip|instead|then|should|must|need to|before retrying)\b/i,
  /\brule:r-|telemetry-/i,
  /[A-Za-z0-9+/=]{24,}/, // long encoded runs (base64 and the like)
];

const MAX_WORDS = 14;

export function safeQuote(text: string): string | null {
  const normal = text.normalize('NFKC').trim();
  if (normal.length === 0 || !PLAIN.test(normal) || !ERROR_WORD.test(normal)) return null;
  if (normal.split(/\s+/).length > MAX_WORDS) return null;
  if (FORBIDDEN.some((pattern) => pattern.test(normal))) return null;
  return normal;
}

/** A command name captured from an error ("vitest: not found") may name it in advice only if it is one. */
export function safeCommandName(name: string): string | null {
  return /^\/?[A-Za-z0-9][\w@.+/-]{0,39}$/.test(name) && !name.includes('--') ? name : null;
}

/**
 * `text` in at most `max` characters: whole if it fits, else cut at a space with an ellipsis after the
 * last whole word (punctuation that ends it, `,;:.`, dropped), or null when not even one word fits. A cut
 * inside a word or a number changes what a quote says ("tokens (250…" for 25000), and quotes land in MEMORY.md.
 */
export function shortenAtWord(text: string, max: number): string | null {
  if (text.length <= max) return text;
  // `wordEnd` only grows: stop once the words before the next space could not leave room for the ellipsis.
  let kept = 0;
  let wordEnd = 0;
  for (let i = 0; i < text.length && wordEnd < max; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) kept = wordEnd;
    else if (!ENDING_PUNCTUATION.includes(c)) wordEnd = i + 1;
  }
  return kept > 0 ? `${text.slice(0, kept)}…` : null;
}

const ENDING_PUNCTUATION = ',;:.';
