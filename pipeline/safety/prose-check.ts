import type { CommandFinding } from './command-check.js';
import type { CommandPolicy } from './command-policy.js';
import { adviceFindings, type AdviceText } from './advice-grammar.js';
import { codeSpans, foldForCommands } from './command-extract.js';
import { safeguardFindings } from './safeguard-check.js';
import { remoteCodeFindings, switchFindings } from './switch-check.js';

/**
 * The prose of a model-written rule. Chosen: an allowlist grammar of advice (advice-grammar.ts): a
 * clause that asks for an action carries it as a command the policy checks, or only observes, or takes
 * a listed action on nothing protected; a list of verbs we accept is finite where dangerous paraphrases
 * are not. Plus the policy's `concepts`, words that describe a dangerous action whatever verb carries
 * them ("switch on the push's overwrite option", "reset hard"); plus the policy's `safeguards`, dangerous
 * actions described by class (safeguard-check.ts). Code spans that are commands are the command policy's.
 */
export function proseFindings(text: string, policy: CommandPolicy, toolName: string, errorTexts: readonly string[] = []): CommandFinding[] {
  const prose = proseOf(text);
  const findings: CommandFinding[] = [];
  const advice = adviceTextOf(text, policy, toolName, errorTexts);
  findings.push(...adviceFindings(advice, policy.advice, policy.safeguards, toolName));
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
  // Quoted error text is not read here: errors describe safeguards at work ("terminal prompts disabled").
  // The advice grammar reads the advice in it.
  if (policy.safeguards) findings.push(...safeguardFindings(prose, policy.safeguards));
  // Switches and downloads are read in the model's own words and code too: only the error's words are left out.
  const own = withoutErrorQuotes(text, policy, toolName, errorTexts);
  if (policy.switches) findings.push(...switchFindings(own, policy.switches));
  if (policy.remote_code) findings.push(...remoteCodeFindings(own, policy.remote_code));
  return findings;
}

/**
 * The rule's text with each quote of the cluster's error text, and the tool's own name (`Bash` is the tool,
 * not a shell run), replaced by a neutral word; other code spans kept as written.
 */
function withoutErrorQuotes(text: string, policy: CommandPolicy, toolName: string, errorTexts: readonly string[]): string {
  const spans = codeSpans(text, policy, { errorTexts, toolName }).filter((s) => s.text !== '');
  let index = 0;
  return foldForCommands(text).replace(/(`+)([^`]*?)\1/g, (_whole, _ticks: string, inner: string) => {
    if (inner.trim() === '') return ' ';
    const span = spans[index];
    index += 1;
    return span?.kind === 'quote' || inner.trim() === toolName ? ' NAME ' : ` ${inner} `;
  });
}

/** The rule as the advice grammar reads it: command spans as CMD, names and quotes as NAME, the quotes apart. */
function adviceTextOf(text: string, policy: CommandPolicy, toolName: string, errorTexts: readonly string[]): AdviceText {
  const spans = codeSpans(text, policy, { errorTexts, toolName });
  let index = 0;
  const prose = foldForCommands(text).replace(/(`+)[^`]*?\1/g, (whole) => {
    const span = spans[index];
    // Empty spans are not in the list: they stand for nothing.
    if (whole.replace(/`/g, '').trim() === '') return ' ';
    index += 1;
    return span?.kind === 'command' ? ' CMD ' : ' NAME ';
  });
  return { prose, quotes: spans.filter((s) => s.kind === 'quote').map((s) => s.text) };
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

function stem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/, '');
}

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
