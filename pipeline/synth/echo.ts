import type { PromotedCluster } from '../stages/gate.js';
import { scanInstructionLike, type ScanFinding } from './scan.js';

/**
 * The second line of the injection defence: a draft (from any synthesizer) is suspicious when its own
 * text reads like an instruction to the model, or when it repeats a phrase the scanner flagged in the
 * cluster's evidence. Suspicious drafts are quarantined with reason `suspicious_input`.
 */
export function suspiciousReasons(draftText: string, cluster: PromotedCluster | undefined): string[] {
  const reasons: string[] = [];
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

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\u200b-\u200f\u2060\ufeff]/g, '').replace(/\s+/g, ' ').trim();
}

function kinds(findings: ScanFinding[]): string {
  return [...new Set(findings.map((finding) => finding.kind))].join(', ');
}
