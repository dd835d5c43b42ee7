import { errors } from '../model/errors.js';
import type { PromotedCluster } from '../model/cluster.js';
import { redact } from '../safety/redact.js';
import { scanInstructionLike } from '../safety/scan.js';
import { maskVariables } from '../templates/line-mask.js';

/**
 * The evidence of one cluster as a single fenced data block for a prompt. Everything inside comes from
 * telemetry, so it is treated as hostile: each string is folded, stripped to one line, redacted, cut
 * short and scrubbed of anything that could close the fence early. The nonce is fresh per call, so an
 * attacker who writes a closing delimiter into a log cannot know which one to write.
 */

const MESSAGE_MAX = 300;
const SIGNATURE_MAX = 160;
const FLAGGED_MAX = 120;
const FIELD_MAX = 100;

export function fenceOpen(nonce: string): string {
  return `<<<TELEMETRY-${nonce}`;
}

export function fenceClose(nonce: string): string {
  return `TELEMETRY-${nonce}>>>`;
}

/**
 * The nonce must be long and alphanumeric: then no placeholder below can contain it and no replacement
 * can join two pieces into it, so one neutralising pass is enough.
 */
const NONCE_SHAPE = /^[A-Za-z0-9]{8,}$/;

export function fenceEvidence(cluster: PromotedCluster, nonce: string): string {
  if (!NONCE_SHAPE.test(nonce)) throw errors.internal('the fence nonce must be at least 8 letters or digits');
  const field = (text: string) => cleanLine(text, nonce, FIELD_MAX);
  const lines = [
    fenceOpen(nonce),
    `tool: ${field(cluster.tool_name)}`,
    `kind: ${cluster.kind}`,
    `category: ${cluster.error_category === null ? 'none' : field(cluster.error_category)}`,
    `count: ${whole(cluster.count)} (carried over from earlier nights: ${whole(cluster.carried_over)})`,
    `distinct inputs: ${whole(cluster.distinct_inputs)}`,
    `sessions: ${whole(cluster.sessions.length)}`,
    `first seen: ${field(cluster.first_seen)}`,
    `last seen: ${field(cluster.last_seen)}`,
    ...(cluster.baseline_ms !== null ? [`baseline: ${whole(cluster.baseline_ms)} ms`] : []),
    ...(cluster.template ? [`error template: ${quoted(cluster.template, nonce, SIGNATURE_MAX)}`] : []),
    ...(cluster.templates ? ['error templates (promoted together):', ...cluster.templates.map((t) => `- ${whole(t.count)}x ${quoted(t.template, nonce, SIGNATURE_MAX)}`)] : []),
    ...(cluster.follow_ups?.length ? ['what worked next (the next successful call of the same program, same session):', ...cluster.follow_ups.map((up) => `- ${whole(up.count)}x in ${whole(up.sessions.length)} sessions: ${quoted(up.shape, nonce, FIELD_MAX)}`)] : []),
    'top signatures:',
    // Masked as templates (values `<*>`): a signature is a redacted line, and a secret no detector knows
    // (a webhook's token in its URL) would reach the model in it.
    ...listOrNone(cluster.signatures.map((s) => `- ${whole(s.count)}x ${quoted(maskVariables(s.text), nonce, SIGNATURE_MAX)}`)),
    'samples:',
    ...listOrNone(cluster.samples.map((s) => `- ${field(s.timestamp)} ${whole(s.duration_ms)} ms ${quoted(s.message, nonce, MESSAGE_MAX)}`)),
    fenceClose(nonce),
  ];
  return lines.join('\n');
}

/**
 * One string as a JSON string literal, so its end is unambiguous. Instruction-like text (or text that
 * imitates our fence) is cut shorter and marked, so the model sees a quoted attack, not a request.
 */
function quoted(raw: string, nonce: string, max: number): string {
  const line = sanitize(raw);
  const safe = neutralise(line, nonce);
  // Scan the raw text too: line starts ("## System prompt", "system:") vanish once lines are joined.
  const kinds = new Set([...scanInstructionLike(raw).findings, ...scanInstructionLike(line).findings].map((finding) => finding.kind));
  if (safe !== line) kinds.add('fake_delimiter');
  if (kinds.size === 0) return JSON.stringify(truncate(safe, max));
  return `[flagged: ${[...kinds].join(', ')}] ${JSON.stringify(truncate(safe, FLAGGED_MAX))}`;
}

/** A short field (tool name, category, timestamp): one clean line, neutralised and cut. */
export function cleanLine(raw: string, nonce: string, max: number): string {
  return truncate(neutralise(sanitize(raw), nonce), max);
}

/**
 * Fold look-alikes first (so full-width `＜＜＜` or a full-width secret prefix is seen for what it is),
 * drop invisible and control characters, and redact again: the cluster stage already did, but a
 * cluster carried over from state is only as clean as that file.
 */
function sanitize(raw: string): string {
  const folded = wellFormed(redact(String(raw))).normalize('NFKC');
  const oneLine = folded
    .replace(/[\p{Cf}]/gu, '')
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return redact(oneLine);
}

/** Replaces every fence word, angle run and the nonce with visible placeholders until none is left. */
export function neutralise(text: string, nonce: string): string {
  let current = text;
  for (let round = 0; round < 8; round++) {
    const next = replaceNonce(current, nonce)
      .replace(/TELEMETRY/gi, '[fence-word]')
      .replace(/<{3,}/g, '[angle-run]')
      .replace(/>{3,}/g, '[angle-run]');
    if (next === current) return next;
    current = next;
  }
  return current;
}

function replaceNonce(text: string, nonce: string): string {
  if (nonce.length === 0) return text;
  return text.replace(new RegExp(escapeRegExp(nonce), 'gi'), '[nonce]');
}

/** Cuts on code points, never inside a surrogate pair. */
function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? `${points.slice(0, max - 1).join('').trimEnd()}…` : text;
}

/** Lone surrogates are not valid UTF-8 and some JSON encoders reject them. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function whole(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value)) : '0';
}

function listOrNone(items: string[]): string[] {
  return items.length > 0 ? items : ['- none'];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
