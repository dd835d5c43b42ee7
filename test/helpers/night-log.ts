/**
 * A synthetic night of telemetry for the tests of a night read in two parts: common and rare tools,
 * slow outliers, failures with as many distinct messages as asked, garbage, blanks and memory refs.
 * The same shape always gives the same text.
 */
import { LineSplitter, type RawLine } from '../../pipeline/io/line-reader.js';
import { prng } from './fuzz.js';

export const BASE = Date.parse('2026-11-01T00:00:00.000Z');

export interface LogShape {
  seed: number;
  lines: number;
  /** Distinct error messages per failure cluster: above 32 the signature cap is in play. */
  messageVariety: number;
  /** Distinct inputs: above 1024 per cluster the distinct counters switch to a sketch. */
  inputVariety: number;
  rareToolAt: number;
  /** Share of calls that fail (default 0.12), over this many error categories (default 3). */
  failRate?: number;
  categories?: number;
  /** Time between lines (default 1 s): hours make a night span months. */
  msPerLine?: number;
}

/** A night of telemetry: common and rare tools, slow outliers, failures, garbage, blanks, memory refs. */
export function makeLog(shape: LogShape): string {
  const r = prng(shape.seed);
  const tools = [
    { name: 'Read', weight: 40, ms: 40 },
    { name: 'Bash', weight: 30, ms: 900 },
    { name: 'npm_test', weight: 8, ms: 6000 },
    { name: 'git_push', weight: 4, ms: 1500 },
  ];
  const total = tools.reduce((s, t) => s + t.weight, 0);
  const out: string[] = [];
  for (let i = 0; i < shape.lines; i++) {
    const ts = new Date(BASE + i * (shape.msPerLine ?? 1000) + Math.floor(r() * 900)).toISOString();
    const roll = r();
    if (roll < 0.02) {
      out.push(['{"broken', '[1,2]', '{"timestamp":"x","tool_name":"Read"}', '   ', ''][Math.floor(r() * 5)]!);
      continue;
    }
    let pick = r() * total;
    let tool = tools[0]!;
    for (const t of tools) {
      pick -= t.weight;
      if (pick <= 0) {
        tool = t;
        break;
      }
    }
    // A tool that shows up only late in the night: the worker cannot have its threshold.
    const name = i >= shape.rareToolAt && r() < 0.05 ? 'WebFetch' : tool.name;
    const ms = name === 'WebFetch' ? 2000 : tool.ms;
    const slow = r() < 0.04;
    const duration = Math.round(ms * (slow ? 3 + r() * 5 : 0.5 + r()));
    const fails = r() < (shape.failRate ?? 0.12);
    const event: Record<string, unknown> = {
      timestamp: ts,
      tool_name: name,
      input_hash: `h${Math.floor(r() * shape.inputVariety)}`,
      exit_code: fails ? 1 : 0,
      duration_ms: duration,
      session_id: `s${Math.floor(i / 97)}`,
    };
    if (fails) {
      event.error_category = ['git_error', 'test_failure', 'not_found'][Math.floor(r() * (shape.categories ?? 3))];
      event.error_message = `error: failure kind ${String.fromCharCode(97 + Math.floor(r() * 2))}${Math.floor(Math.pow(shape.messageVariety, r()))} happened`;
    }
    if (r() < 0.05) event.memory_refs = [`r-${(Math.floor(r() * 6) + 10).toString(16)}ab`];
    out.push(JSON.stringify(event));
  }
  return `${out.join('\n')}\n`;
}


/** The lines of a text as the reader gives them, each copied (the reader reuses its line object and buffers). */
export function splitLines(text: string, maxLineBytes: number): RawLine[] {
  const lines: RawLine[] = [];
  new LineSplitter(0, maxLineBytes, ({ text, offset, next, tooLong, bytes, start, end }) => {
    const copy = bytes && start !== undefined && end !== undefined ? { bytes: Buffer.from(bytes.subarray(start, end)), start: 0, end: end - start } : {};
    lines.push({ text, offset, next, tooLong, ...copy });
  }).push(Buffer.from(text), 0);
  return lines;
}
