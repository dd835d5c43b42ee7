/**
 * Words that go on with a sentence or describe a credential instead of being one. Detectors that read a
 * value after a credential word (a passphrase, a prompt's answer, words after a seed keyword) stop at, or
 * refuse, a value made of them: "password for user root", "is incorrect", "was not provided".
 */
export const CLAUSE_WORDS =
  'for|in|on|at|by|with|from|to|and|or|but|if|when|while|because|is|was|are|were|has|have|had|does|did|do|must|should|will|would|can|could|may|might|not|please|try|after|before|since|until';

/** Words that describe a password (its state, a verb, an article): a value that starts with one is prose. */
export const PROSE_WORDS: ReadonlySet<string> = new Set(
  ('a an the not no now still already too very incorrect wrong invalid required empty missing expired blank set unset ' +
    'weak strong short long null none nil undefined being changed reset stored saved hidden masked provided given needed mandatory ' +
    'optional disabled enabled locked used ok okay incomplete only this that these your my its their his her our yes true false ' +
    'denied rejected accepted authentication auth failed failure error incorrectly prompt protected encrypted ' +
    CLAUSE_WORDS.split('|').join(' ')).split(' '),
);

/** Whether a word (its trailing punctuation dropped, any case) is prose. */
export function isProseWord(word: string): boolean {
  return PROSE_WORDS.has(word.toLowerCase().replace(/[.,;!?:)]+$/, ''));
}
