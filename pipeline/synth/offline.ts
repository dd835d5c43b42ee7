import type { PromotedCluster } from '../model/cluster.js';
import { cleanIdentifier } from '../safety/identifier.js';
import { commonPrefix } from '../templates/signature.js';
import { failureAdvice, slowAdvice } from './advice.js';
import { draftFor, type Synthesizer, type SynthesizeRequest } from './port.js';
import { type DraftRule } from '../model/draft.js';
import { redact } from '../safety/redact.js';
import { safeQuote, shortenAtWord } from './quote.js';
import { scanInstructionLike } from './scan.js';

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
  const text = cluster.kind === 'slow' ? slowRule(cluster) : failureRule(cluster, notes);
  return draftFor(request, { text, synthesizer: 'offline', notes });
}

function failureRule(cluster: PromotedCluster, notes: string[]): string {
  const category = cluster.error_category ?? 'uncategorized';
  const signature = commonSignature(cluster);
  const quote = quotable(signature, notes);
  const advice = failureAdvice(signature, category);
  const tool = safeName(cluster.tool_name);
  // Double quotes delimit the quote and cannot occur inside it, so quoted text cannot close the quote early.
  const again = cluster.refines ? ' even after an earlier rule' : '';
  const what = `${tool} failed ${cluster.count} times with ${category}${quote ? ` ("${quote.replace(/"/g, "'")}")` : ''}${again}`;
  // No advice we can stand behind: the rule states the fact only.
  return advice === null ? `${what}.` : `${what}: ${advice}.`;
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
