import { decodedViews, sourceRange, type View } from './normalise.js';
import { findSecrets, tokenRuns, type Finding } from './secrets.js';
import { randomPieceFindings } from './random-pieces.js';
import { spelledFindings } from './spelled.js';
import { markerTails, splitVendorFindings } from './split-vendor.js';

/**
 * The second half of `redact`: every secret the detectors find in a text, or in one of its decoded
 * views, replaces the run of the text it came from. Nothing here ever shortens a marker: a range that
 * touches `[REDACTED:…]` grows to cover all of it.
 */

const MARKER = /\[REDACTED:[a-z0-9_]+\]/g;
/** Views are built for texts up to this length; longer ones (a megabyte of output) are scanned as they are. */
const MAX_VIEW_CHARS = 65_536;

/** `text` with every finding (in it or in its views) replaced by a marker. */
export function redactFindings(text: string, shapes: (text: string) => string): string {
  const runs = tokenRuns(text);
  const findings = findSecrets(text, runs);
  if (text.length <= MAX_VIEW_CHARS) {
    for (const view of decodedViews(text, runs.base64)) {
      for (const f of findSecrets(view.text)) findings.push(mapped(view, f));
      for (const f of shapeFindings(view.text, shapes)) findings.push(mapped(view, f));
      // A spelled run with look-alike letters (`оscar` with a Cyrillic о) reads in the folded view.
      for (const f of spelledFindings(view.text)) findings.push(mapped(view, f));
    }
    for (const [start, end] of markerTails(text)) findings.push({ start, end, kind: 'secret' });
    for (const f of splitVendorFindings(text)) findings.push(f);
    for (const f of randomPieceFindings(text)) findings.push(f);
    for (const f of spelledFindings(text)) findings.push(f);
  }
  return findings.length === 0 ? text : replaceRanges(text, findings);
}

/**
 * `text` with every vendor token split by blanks (split-vendor.ts) replaced by a marker: run before the regex
 * shapes, which would otherwise take the prefix's piece alone (`xoxb-3057… -6255…-P 1llS…`) and leave the rest
 * (a marker's tail never crosses a blank). Other splits are read after the shapes, with the detectors.
 */
export function redactSplitTokens(text: string): string {
  if (!text.includes(' ') && !text.includes('\t')) return text;
  const found = splitVendorFindings(text).filter((f) => /[ \t]/.test(text.slice(f.start, f.end)));
  return found.length === 0 ? text : replaceRanges(text, found);
}

/**
 * `text` with every window of pieces read as right after an anchor (random-pieces.ts: 8 characters are
 * enough) replaced by a marker: a text of an event whose identifier was refused for holding a piece of a
 * token, where the rest of that token may stand in groups too short for any reading unanchored.
 */
export function redactAnchoredPieces(text: string): string {
  const found = randomPieceFindings(text, true);
  return found.length === 0 ? text : replaceRanges(text, found);
}

function mapped(view: View, f: Finding): Finding {
  const [start, end] = sourceRange(view, f.start, f.end);
  return { start, end, kind: f.kind };
}

/**
 * What the regex shapes redact in a view, as ranges: the view is cut at the markers of the shapes'
 * output, and the text between two literal pieces is the secret. A literal that also occurs inside the
 * secret ends it early; the shapes run on the text itself too, so this only matters for views.
 */
function shapeFindings(text: string, shapes: (text: string) => string): Finding[] {
  const out = shapes(text);
  if (out === text) return [];
  const pieces = out.split(MARKER);
  const kinds = (out.match(MARKER) ?? []).map((m) => m.slice(10, -1));
  const found: Finding[] = [];
  let pos = pieces[0]!.length;
  let start = pos;
  for (let i = 1; i < pieces.length; i += 1) {
    const literal = pieces[i]!;
    const last = i === pieces.length - 1;
    if (literal === '' && !last) continue;
    const end = last ? text.length - literal.length : text.indexOf(literal, pos + 1);
    if (end < start) {
      found.push({ start, end: text.length, kind: kinds[i - 1] ?? 'secret' });
      break;
    }
    found.push({ start, end, kind: kinds[i - 1] ?? 'secret' });
    pos = end + literal.length;
    start = pos;
  }
  return found;
}

/** Replaces the union of the ranges, each merged run by one marker (the kind of its first finding). */
function replaceRanges(text: string, findings: Finding[]): string {
  const markers: [number, number][] = [];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) markers.push([m.index, m.index + m[0].length]);
  const ranges = findings
    .filter((f) => f.end > f.start)
    .map((f, order) => ({ ...widen(f, markers), order }))
    .sort((a, b) => a.start - b.start || a.order - b.order);
  let out = '';
  let last = 0;
  for (let i = 0; i < ranges.length; ) {
    let { start, end, kind, order } = ranges[i]!;
    let j = i + 1;
    for (; j < ranges.length && ranges[j]!.start <= end; j += 1) {
      end = Math.max(end, ranges[j]!.end);
      if (ranges[j]!.order < order) ({ kind, order } = ranges[j]!);
    }
    // A run that is already one marker stays as it is (idempotence).
    const run = text.slice(start, end);
    out += text.slice(last, start) + (/^\[REDACTED:[a-z0-9_]+\]$/.test(run) ? run : `[REDACTED:${kind}]`);
    last = end;
    i = j;
  }
  return out + text.slice(last);
}

/** A range grown so it never cuts through a marker. */
function widen(f: Finding, markers: readonly [number, number][]): Finding {
  let { start, end } = f;
  for (const [s, e] of markers) {
    if (start > s && start < e) start = s;
    if (end > s && end < e) end = e;
  }
  return { start, end, kind: f.kind };
}
