import type { PromotedCluster } from '../model/cluster.js';
import { cleanIdentifier } from '../safety/identifier.js';
import { commonPrefix } from '../templates/signature.js';
import { failureAdvice, matchKnownFailure, slowAdvice } from './advice.js';
import { draftFor, type Synthesizer, type SynthesizeRequest } from './port.js';
import { type DraftRule } from '../model/draft.js';
import { redact } from '../safety/redact.js';
import { safeQuote, shortenAtWord } from './quote.js';
import { errorClause } from './error-clause.js';
import { scanInstructionLike } from '../safety/scan.js';

const MAX_QUOTE = 90;

/**
 * The deterministic rule writer: same cluster in, same rule out. It quotes the common error text only
 * after redaction and only when the scanner finds nothing instruction-like in it; the advice itself
 * comes from our own table, so nothing an attacker wrote into a log becomes an instruction.
 */
export function createOfflineSynthesizer(): Synthesizer {
  return {
    name: 'offline',
    async draft(request: SynthesizeRequest): Promise<DraftRule> {
      return draftOffline(request);
    },
  };
}

export function draftOffline(request: SynthesizeRequest): DraftRule {
  const { cluster } = request;
  const notes: string[] = [];
  if (cluster.kind === 'slow') return draftFor(request, { text: slowRule(cluster), synthesizer: 'offline', notes });
  const rule = failureRule(cluster, notes);
  if ('unwritten' in rule) return { ...draftFor(request, { text: '', synthesizer: 'offline', notes }), unwritten: rule.unwritten };
  return draftFor(request, { text: rule.text, synthesizer: 'offline', notes });
}

/**
 * A failure rule names its template, so it says which error it is about. It is one of: the known-failure
 * table's advice for the template; or the fact (the template, how often, in how many sessions) with what
 * worked next when that held in two sessions or more; or the fact alone. A cluster whose error cannot be
 * quoted safely and that no known failure matches gets no rule: it waits for a human or Claude.
 */
function failureRule(cluster: PromotedCluster, notes: string[]): { text: string } | { unwritten: string } {
  const templates = cluster.templates?.map((t) => t.template) ?? (cluster.template ? [cluster.template] : []);
  // A cluster of the template era (it has a family) that reaches the writer without its templates (a group
  // carried over from an unwritten night) has nothing quotable left: the category's advice alone would be
  // generic, so it waits for a human or Claude like the night it came from.
  if (templates.length === 0 && cluster.family_id) return { unwritten: 'its templates are not known any more (a group carried over) and a category alone is not specific' };
  if (templates.length === 0) return legacyFailureRule(cluster, notes);
  const tool = safeName(cluster.tool_name);
  const quotes = firstQuotable(templates, notes);
  const known = knownFor(templates, cluster.signatures[0]?.text ?? null);
  if (quotes.length === 0 && known === null) return { unwritten: 'the error text cannot be quoted safely and matches no known failure' };
  // Templates not named (past the first three, or not fit to quote) are still counted: the rule never reads as if it covered fewer.
  const more = templates.length > quotes.length ? ` (and ${templates.length - quotes.length} more)` : '';
  // Nothing quotable but a known failure: the template's id says which error it is (`sleep-cycle templates` shows it).
  const what = quotes.length > 0 ? `${code(tool)} fails with ${quotes.map(code).join(' or ')}${more}` : `${code(tool)} fails with ${templateIds(cluster)}`;
  const again = cluster.refines ? ', even after an earlier rule' : '';
  const seen = `(${times(cluster.count)} in ${sessions(cluster.sessions.length)}${again})`;
  if (known !== null) return { text: `${what} ${seen}: ${known}.` };
  const worked = cluster.follow_ups?.find((up) => up.sessions.length >= 2 && launches(up.shape, cluster.tool_name));
  return { text: worked ? `${what} ${seen}; what worked instead: ${code(worked.shape)}.` : `${what} ${seen}.` };
}

/** The first MAX_TEMPLATES_NAMED templates fit to quote, in order: one unquotable template does not hide the others. */
function firstQuotable(templates: string[], notes: string[]): string[] {
  const quotes: string[] = [];
  for (const template of templates) {
    if (quotes.length >= MAX_TEMPLATES_NAMED) break;
    const quote = quoteTemplate(template, notes);
    if (quote !== null && !quotes.includes(quote)) quotes.push(quote);
  }
  return quotes;
}

/** Clusters without a template (built before templates existed): the table on the signature, else no rule. */
function legacyFailureRule(cluster: PromotedCluster, notes: string[]): { text: string } | { unwritten: string } {
  const category = cluster.error_category ?? 'uncategorized';
  const signature = commonSignature(cluster);
  const quote = quotable(signature, notes);
  const advice = failureAdvice(signature, category);
  if (advice === null && quote === null) return { unwritten: 'no known failure matches and the error text cannot be quoted safely' };
  const tool = safeName(cluster.tool_name);
  // Double quotes delimit the quote and cannot occur inside it, so quoted text cannot close the quote early.
  const again = cluster.refines ? ' even after an earlier rule' : '';
  const what = `${tool} failed ${cluster.count} times with ${category}${quote ? ` ("${quote.replace(/"/g, "'")}")` : ''}${again}`;
  return { text: advice === null ? `${what}.` : `${what}: ${advice}.` };
}

/**
 * The advice of the known failure the templates share (matched on the template, then on the top
 * signature, which names what the template masks), or null when they share none.
 */
function knownFor(templates: string[], signature: string | null): string | null {
  const named = signature === null ? null : matchKnownFailure(signature);
  // One template: its top signature is one of its lines, and names what the template masks.
  const matches = templates.map((template) => matchKnownFailure(template) ?? (templates.length === 1 ? named : null));
  const first = matches[0];
  if (!first || matches.some((m) => m?.id !== first.id)) return null;
  return named?.id === first.id ? named.advice : first.advice;
}

/**
 * The template's error clause, fit to quote in code formatting (see error-clause.ts for its grammar), or
 * null when nothing safe is left. Redacted first; the instruction scanner and the plain-quote check stay
 * behind the grammar as a second line.
 */
function quoteTemplate(template: string, notes: string[]): string | null {
  const clean = redact(template);
  // The whole template, not only its clause: an injection anywhere in it is reason enough not to quote it.
  const scan = scanInstructionLike(clean);
  if (scan.flagged) {
    notes.push(`template withheld: instruction-like (${[...new Set(scan.findings.map((f) => f.kind))].join(', ')})`);
    return null;
  }
  const clause = errorClause(clean);
  if (clause.kind === 'withheld') {
    notes.push(`template not quoted: ${clause.reason}`);
    return null;
  }
  // The wildcard is ours: it is checked as a plain word.
  if (safeQuote(clause.text.replaceAll('<*>', 'X')) === null) {
    notes.push('template not quoted: it does not read as a plain error message');
    return null;
  }
  return clause.text;
}

const MAX_TEMPLATES_NAMED = 3;

/**
 * Whether a call that worked is the failing program run another way: through a launcher that runs what
 * is installed here (`python -m pytest`, `uv run ruff`, `pnpm exec vitest`) — the one kind of "what worked
 * instead" the offline writer cites. Anything else a log says worked (another program, a subcommand, an
 * install) may be an attacker's suggestion: it stays in the report as evidence, never in a rule. Nor does
 * a launcher that fetches a package of that name from a registry when none is installed (npx, pnpx, bunx,
 * bun x, uvx, pipx run, npm exec, pnpm dlx, yarn dlx): the failing program's name is the attacker's
 * choice, so "instead: `npx <it>`" would have the agent download and run their package.
 */
function launches(shape: string, family: string): boolean {
  const words = shape.split(' ');
  if (words.length !== 3 || words[2] !== family) return false;
  return LOCAL_LAUNCHER.test(`${words[0]} ${words[1]}`);
}

/** `<launcher> <how>` pairs that only run a module, a script or a binary already installed. */
const LOCAL_LAUNCHER = /^(?:(?:python[0-9.]*|py) -m|(?:uv|poetry|pdm|hatch|npm|pnpm|yarn|bun) run|(?:pnpm|yarn) exec)$/;

function templateIds(cluster: PromotedCluster): string {
  const ids = cluster.templates?.map((t) => t.id) ?? (cluster.template_id ? [cluster.template_id] : []);
  const named = ids.slice(0, MAX_TEMPLATES_NAMED).map((id) => code(cleanIdentifier(id, 40) ?? 'template'));
  if (named.length === 0) return `${code(cluster.error_category ?? 'uncategorized')} errors`;
  const more = ids.length > named.length ? ` (and ${ids.length - named.length} more)` : '';
  return `error template ${named.join(' or ')}${more}`;
}

function code(text: string): string {
  return `\`${text}\``;
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

function sessions(n: number): string {
  return n === 1 ? '1 session' : `${n} sessions`;
}

function slowRule(cluster: PromotedCluster): string {
  const tool = safeName(cluster.tool_name);
  const slowest = Math.max(...cluster.samples.map((sample) => sample.duration_ms), 0);
  const baseline = cluster.baseline_ms !== null ? ` against a ${cluster.baseline_ms} ms baseline` : '';
  const again = cluster.refines ? ' even after an earlier rule' : '';
  return `${tool} ran slow ${cluster.count} times (up to ${slowest} ms${baseline})${again}: ${slowAdvice(cluster.tool_name)}.`;
}

/**
 * Text shared by the cluster: the top signature when at least half the failures carry it, else the
 * common word prefix of the signatures, else nothing (one sample's text is not the pattern).
 */
function commonSignature(cluster: PromotedCluster): string | null {
  const top = cluster.signatures[0];
  if (!top) return null;
  if (top.count * 2 >= cluster.count) return top.text;
  return commonPrefix(cluster.signatures.map((s) => s.text));
}

/** The signature, shortened to a clean single line, or null when it must not be quoted. */
function quotable(signature: string | null, notes: string[]): string | null {
  if (!signature) return null;
  const scan = scanInstructionLike(signature);
  if (scan.flagged) {
    notes.push(`error text withheld: instruction-like (${[...new Set(scan.findings.map((f) => f.kind))].join(', ')})`);
    return null;
  }
  const clean = redact(signature)
    .replace(/^(?:fatal|error|warning):\s*/i, '')
    .replace(/[\u0000-\u001f\u007f`]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // The first sentence usually names the problem; what follows (lists, paths, hints) is noise in a rule.
  const sentence = /^(.{20,}?[.!?])\s/.exec(clean)?.[1];
  const short = sentence && sentence.length <= MAX_QUOTE ? sentence : shortenAtWord(clean, MAX_QUOTE);
  const cut = short?.endsWith('…') ?? false;
  const quote = short === null ? null : safeQuote(cut ? short.slice(0, -1) : short);
  if (quote === null) {
    notes.push('error text not quoted: it does not read as a plain error message');
    return null;
  }
  return cut ? `${quote}…` : quote;
}

/** Tool names come from logs too (the cluster builder already cleaned them; this is defence in depth). */
function safeName(name: string): string {
  return cleanIdentifier(redact(name), 64) ?? 'unknown_tool';
}
