import type { PromotedCluster } from '../model/cluster.js';
import { scanInstructionLike, type ScanFinding } from '../safety/scan.js';

/**
 * The second line of the injection defence: a draft (from any synthesizer) is suspicious when its own
 * text reads like an instruction to the model, or when it repeats a phrase the scanner flagged in the
 * cluster's evidence. Suspicious drafts are quarantined with reason `suspicious_input`.
 */
export function suspiciousReasons(draftText: string, cluster: PromotedCluster | undefined, modelWritten = false): string[] {
  const reasons: string[] = [];
  // A model that copies a long run of the evidence is following it: rules paraphrase, they do not transcribe.
  if (modelWritten && cluster && copiesEvidence(draftText, cluster)) {
    reasons.push(`suspicious_input: the rule copies ${COPY_WORDS} or more words in a row from the evidence`);
  }
  const own = scanInstructionLike(draftText);
  if (own.flagged) reasons.push(`suspicious_input: the rule text itself is instruction-like (${kinds(own.findings)})`);
  const flagged = cluster ? evidenceFindings(cluster) : [];
  const text = fold(draftText);
  const echoed = flagged.filter((finding) => fold(finding.phrase).length >= 8 && text.includes(fold(finding.phrase)));
  if (echoed.length > 0) reasons.push(`suspicious_input: the rule repeats flagged evidence (${kinds(echoed)})`);
  return reasons;
}

/** Every instruction-like finding in the cluster's samples and signatures. */
export function evidenceFindings(cluster: PromotedCluster): ScanFinding[] {
  const texts = [...cluster.samples.map((sample) => sample.message), ...cluster.signatures.map((s) => s.text)];
  return texts.flatMap((text) => scanInstructionLike(text).findings);
}

const COPY_WORDS = 8;

function copiesEvidence(draftText: string, cluster: PromotedCluster): boolean {
  const evidence = new Set<string>();
  for (const text of [...cluster.samples.map((s) => s.message), ...cluster.signatures.map((s) => s.text)]) {
    for (const gram of wordGrams(text)) evidence.add(gram);
  }
  return wordGrams(draftText).some((gram) => evidence.has(gram));
}

function wordGrams(text: string): string[] {
  const words = fold(text).split(/[^a-z0-9./~_-]+/).filter(Boolean);
  const grams: string[] = [];
  for (let i = 0; i + COPY_WORDS <= words.length; i++) grams.push(words.slice(i, i + COPY_WORDS).join(' '));
  return grams;
}

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\u200b-\u200f\u2060\ufeff]/g, '').replace(/\s+/g, ' ').trim();
}

function kinds(findings: ScanFinding[]): string {
  return [...new Set(findings.map((finding) => finding.kind))].join(', ');
}
