import type { CommandFinding } from './command-check.js';
import type { Safeguards } from './command-policy.js';

/**
 * Dangerous actions described without their command words ("push again without asking the remote
 * about its tip", "rerun it as the superuser"). No list of phrases can hold them, so the check is by
 * class: a sentence that names something that protects work or checks it (the remote's history, hooks
 * and verification, commits and ignored files, tests and linters: `objects`) together with an operation
 * that defeats a protection (skip, without, replace, delete, turn off: `defeats`), or that names a
 * privileged identity (`identities`), is refused whatever verbs carry it. A harmless rule rarely needs
 * both halves in one sentence; one that does is written offline instead (its wording is all it loses).
 */
export function safeguardFindings(prose: string, safeguards: Safeguards): CommandFinding[] {
  const objects = safeguards.objects.map(compilePattern);
  const defeats = safeguards.defeats.map(compilePattern);
  const identities = safeguards.identities.map(compilePattern);
  const except = safeguards.except.map(compilePattern);
  const findings: CommandFinding[] = [];
  for (const sentence of prose.toLowerCase().split(/[.;!?](?:\s|$)/)) {
    const words = withoutPhrases(sentence.match(WORD) ?? [], except);
    if (identities.some((pattern) => occurs(pattern, words))) {
      findings.push({ id: 'privileged-identity', reason: 'it has a command run as a privileged identity (root, administrator, elevated rights), in words (commands.safeguards.identities)' });
    }
    if (objects.some((pattern) => occurs(pattern, words)) && defeats.some((pattern) => occurs(pattern, words))) {
      findings.push({ id: 'safeguard-defeated', reason: 'it describes defeating a safeguard in words: something that protects work or checks it, with an operation that skips, removes, replaces or turns it off (commands.safeguards)' });
    }
  }
  return unique(findings);
}

/** Words as a reader splits them; `git_push` and `fast-forward` stay one word (a tool's name is not its parts). */
const WORD = /[a-z0-9_]+(?:['-][a-z0-9_]+)*/g;

/** A word pattern: one test per word of a phrase. */
export type WordPattern = ((word: string) => boolean)[];
type Pattern = WordPattern;

/** `skip*` a prefix, a phrase word by word, `*` alone any one word. */
export function compilePattern(entry: string): Pattern {
  return entry
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((part) => (part === '*' ? () => true : part.endsWith('*') ? (word: string) => word.startsWith(part.slice(0, -1)) : (word: string) => word === part));
}

function matchAt(pattern: Pattern, words: readonly string[], at: number): boolean {
  return pattern.every((test, i) => at + i < words.length && test(words[at + i]!));
}

/** Whether the phrase occurs anywhere in the words. */
export function occursIn(pattern: Pattern, words: readonly string[]): boolean {
  for (let at = 0; at < words.length; at += 1) if (matchAt(pattern, words, at)) return true;
  return false;
}

const occurs = occursIn;

/** The words with every `except` phrase taken out (replaced by a word no pattern matches). */
export function withoutPhrases(words: string[], phrases: readonly Pattern[]): string[] {
  const out = [...words];
  for (const pattern of phrases) {
    for (let at = 0; at < out.length; at += 1) if (matchAt(pattern, out, at)) out.fill('\u0000', at, at + pattern.length);
  }
  return out;
}

function unique(findings: CommandFinding[]): CommandFinding[] {
  return findings.filter((f, i) => findings.findIndex((g) => g.id === f.id) === i);
}
