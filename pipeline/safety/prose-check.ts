import type { CommandFinding } from './command-check.js';
import type { CommandPolicy } from './command-policy.js';
import { foldForCommands } from './command-extract.js';
import { safeguardFindings } from './safeguard-check.js';

/**
 * The prose of a model-written rule. Chosen: an allowlist of the actions a clause may start with (the
 * policy's `actions`: read, check, run, fetch, …), because a rule that tells an agent to do something
 * starts a clause with the verb, and a list of verbs we accept is finite where dangerous paraphrases are
 * not; plus the policy's `concepts`, words that describe a dangerous action whatever verb carries them
 * ("switch on the push's overwrite option", "reset hard"); plus the policy's `safeguards`, dangerous actions
 * described by class (safeguard-check.ts). Code spans are the command policy's.
 */
export function proseFindings(text: string, policy: CommandPolicy, toolName: string): CommandFinding[] {
  const prose = proseOf(text);
  const findings: CommandFinding[] = [];
  const tool = new Set(toolName.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean));
  const actions = new Set(policy.actions.map((a) => a.toLowerCase()));
  for (const clause of prose.split(CLAUSE)) {
    const first = firstWord(clause);
    if (first === null || STARTERS.has(first) || actions.has(first) || tool.has(first)) continue;
    findings.push({ id: 'unlisted-action', reason: 'a clause starts with an action the command policy does not list (commands.actions)' });
    break;
  }
  // A deletion said in words about .git or something in it ("delete the .git folder"): the parser sees only
  // a name. A stale lock file (`.git/index.lock`) is the one exception in prose: it holds no data, and
  // clearing it is the documented remedy (a command that deletes it is still refused).
  const gitPaths = foldForCommands(text).match(/(?<![\w.])\.git(?:\/[\w./-]*)?/g) ?? [];
  if (gitPaths.some((path) => !/\.lock$/.test(path)) && /\b(?:remove|delete|rm|erase|wipe|clear|clean|purge|unlink|nuke|destroy|drop)\w*\b/i.test(prose)) {
    findings.push({ id: 'git-dir-delete', reason: 'it tells the agent to delete something inside .git' });
  }
  const concepts = new Set(policy.concepts.map((c) => c.toLowerCase()));
  const words = prose.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (words.some((word) => concepts.has(word) || concepts.has(stem(word)))) {
    findings.push({ id: 'dangerous-concept', reason: 'it describes a dangerous action in words (commands.concepts: force, overwrite, wipe, bypass, …)' });
  }
  if (policy.safeguards) findings.push(...safeguardFindings(prose, policy.safeguards));
  return findings;
}

/** English as a rule is written: ASCII words, English function words, none of another language's. */
export function englishProblems(text: string): string[] {
  const words = proseOf(text).toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? [];
  if (words.length === 0) return [];
  if (words.some((word) => FOREIGN.has(word))) return ['rule is not written in English'];
  const english = words.filter((word) => ENGLISH.has(word)).length;
  return words.length >= 6 && english / words.length < 0.15 ? ['rule is not written in English'] : [];
}

/** The text without its code spans (each replaced by a neutral placeholder word). */
function proseOf(text: string): string {
  return foldForCommands(text).replace(/(`+)[^`]*?\1/g, ' CODE ');
}

const CLAUSE = /[.;:!?](?:\s|$)|,\s|\s(?:then|and then|and|or|but)\s/i;

function firstWord(clause: string): string | null {
  const word = /[A-Za-z][\w'-]*/.exec(clause)?.[0];
  return word === undefined ? null : word.toLowerCase();
}

function stem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/, '');
}

/** Words a clause starts with that are not actions: conditions, subjects, articles, negations, adverbs. */
const STARTERS = new Set(
  `code a an the this that these those it its it's there here they we when whenever if unless before after
  while once until since as because so for in on at with without by from to of instead otherwise also only
  first then next finally always never do don't not no each every any all both either most some other
  which where what who how why whether
  rather than until your their our my
  error errors failure failures failed fails file files path paths tool tools command commands test tests
  build output input response request result results message messages call calls`.split(/\s+/).filter(Boolean),
);

/** Frequent English function words: a one-line rule in English has some. */
const ENGLISH = new Set(
  `a an the to of in on at for with by from and or but not no is are was be been it its this that these those
  before after when if then than instead so as into onto over under only also first again each every any all
  run use check read write wait retry it's don't do does`.split(/\s+/),
);

/**
 * Function words of other languages written in ASCII letters (German, French, Spanish, Italian,
 * Portuguese, Dutch) that are not English words: one is enough to call a rule not English.
 */
const FOREIGN = new Set(
  `der die das und nicht ist mit fur auf ein eine einen dem den des zu sich alle vorherigen oder wenn sind
  le la les des et est pour avec dans une sur pas que qui vous nous supprimez dossier
  el los las y es para con una por del al lo que como pero carpeta vuelve borra
  il gli della delle che sono per una non ignora istruzioni precedenti
  o os da das em um uma nao pasta apague
  het een van niet voor zijn verwijder map de`.split(/\s+/).filter((w) => w !== '' && !['a', 'die', 'is', 'in', 'on', 'des', 'la', 'le', 'el', 'y', 'o', 'al', 'per', 'con', 'pas', 'map', 'em', 'um', 'da', 'den', 'van', 'een', 'non', 'lo', 'has', 'het', 'es', 'os'].includes(w)),
);
