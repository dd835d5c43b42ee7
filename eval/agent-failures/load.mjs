import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The hand-labelled agent failures (labels.jsonl, see README.md), re-read from `../shared/data`.
 *
 * The labels hold references only (the data carries real user paths and names), so every message is
 * extracted again at load time by the product's own importers, and its sha256 is compared with the one
 * recorded when it was labelled: a changed importer, redactor or data file shows up as drift instead
 * of silently feeding the eval a text that nobody labelled.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE_ROOT = resolve(HERE, '..', '..');
export const LABELS_PATH = join(HERE, 'labels.jsonl');
export const DEFAULT_DATA_DIR = resolve(PACKAGE_ROOT, '..', 'shared', 'data');
const DIST = join(PACKAGE_ROOT, 'dist', 'pipeline');

/** How a locator names its reader: the importer's item key, or a step of a SWE-agent `.traj` (no importer). */
const LOCATOR = /^(mini-swe-agent|claude-code|swe-agent-step):(.+)$/;
const LABEL_FIELDS = ['source', 'file', 'locator', 'message_sha', 'group'];
const SAFE_SEGMENT = /^[\w.@+-][\w.@+ -]*$/;

/** First 16 hex of the sha256 of the exact `error_message` text. */
export function messageSha(text) {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

/** labels.jsonl → label objects; a malformed line throws with its line number (the file is ours). */
export function parseLabels(text) {
  const labels = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const label = JSON.parse(line);
    const problem = labelProblem(label);
    if (problem !== null) throw new Error(`labels.jsonl line ${i + 1}: ${problem}`);
    labels.push(label);
  }
  return labels;
}

function labelProblem(label) {
  if (typeof label !== 'object' || label === null) return 'expected a JSON object';
  const missing = LABEL_FIELDS.filter((field) => typeof label[field] !== 'string' || label[field] === '');
  if (missing.length > 0) return `missing or empty ${missing.join(', ')}`;
  // `source` and `file` become a path under the data folder: keep them inside it.
  if (![label.source, ...label.file.split('/')].every((segment) => SAFE_SEGMENT.test(segment) && segment !== '..')) return `unsafe path ${label.source}/${label.file}`;
  if (!LOCATOR.test(label.locator)) return `locator "${label.locator}" is not <mini-swe-agent|claude-code|swe-agent-step>:<key>`;
  if (!/^[0-9a-f]{16}$/.test(label.message_sha)) return 'message_sha is not 16 lowercase hex digits';
  return null;
}

/** The product code the loader runs, from the build (`npm run build`); null when it is not built. */
export async function loadDistTools(distDir = DIST) {
  const index = join(distDir, 'index.js');
  const source = join(distDir, 'telemetry', 'import-source.js');
  if (!existsSync(index) || !existsSync(source)) return null;
  const api = await import(pathToFileURL(index).href);
  const { errorMessage } = await import(pathToFileURL(source).href);
  return { readMiniSweAgentCalls: api.readMiniSweAgentCalls, readClaudeCodeCalls: api.readClaudeCodeCalls, classifyError: api.classifyError, errorMessage };
}

/**
 * Every labelled failure with its message, re-extracted and checked. Returns `{failures: null, reason}`
 * when the data folder or the build is absent (the eval skips), else `{failures, reason: null, problems}`.
 * A label that no longer resolves, or whose message changed, is a problem: thrown by default
 * (`strict: false` returns the labels that still hold and lists the problems).
 */
export async function loadAgentFailures(options = {}) {
  const dataDir = resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  if (!existsSync(dataDir)) return { failures: null, reason: `no data folder at ${dataDir} (the labels point into ../shared/data; see eval/agent-failures/README.md)` };
  const tools = options.tools ?? (await loadDistTools());
  if (tools === null) return { failures: null, reason: `no build at ${DIST}: run \`npm run build\` first` };
  const labels = parseLabels(await readFile(options.labelsPath ?? LABELS_PATH, 'utf8'));
  const extracted = await extractAll(labels, dataDir, tools);
  const failures = [];
  const problems = [];
  for (const label of labels) {
    const found = extracted.get(fileKey(label))?.get(label.locator);
    const problem = resolveProblem(label, found);
    if (problem !== null) problems.push(problem);
    else failures.push({ message: found.message, group: label.group, tool_name: found.tool_name, error_category: found.error_category, source: label.source, file: label.file, locator: label.locator });
  }
  if (problems.length > 0 && options.strict !== false) throw new Error(describeProblems(problems));
  return { failures, reason: null, problems };
}

function resolveProblem(label, found) {
  const where = `${label.source}/${label.file} ${label.locator}`;
  if (found === undefined) return { where, kind: 'missing', detail: 'no failure with this locator (file absent, or the importer no longer yields it)' };
  const sha = messageSha(found.message);
  if (sha !== label.message_sha) return { where, kind: 'drift', detail: `message_sha ${label.message_sha} expected, ${sha} found`, sha };
  return null;
}

function describeProblems(problems) {
  const shown = problems.slice(0, 10).map((p) => `  ${p.kind}: ${p.where}: ${p.detail}`);
  const more = problems.length > shown.length ? [`  … and ${problems.length - shown.length} more`] : [];
  return [
    `${problems.length} agent-failure labels do not resolve to the message they were labelled on:`,
    ...shown,
    ...more,
    'If an importer or the redactor changed on purpose, read the new messages, check each label still holds, and update message_sha (loadAgentFailures({strict: false}) lists them).',
  ].join('\n');
}

const fileKey = (label) => `${label.source}/${label.file}`;

/** Each labelled file read once: locator → {message, tool_name, error_category}. */
async function extractAll(labels, dataDir, tools) {
  const byFile = new Map();
  for (const label of labels) {
    const key = fileKey(label);
    if (!byFile.has(key)) byFile.set(key, new Set());
    byFile.get(key).add(LOCATOR.exec(label.locator)[1]);
  }
  const out = new Map();
  for (const [key, readers] of byFile) {
    const path = join(dataDir, key);
    if (!existsSync(path)) continue;
    const found = new Map();
    for (const reader of readers) for (const [locator, failure] of await READERS[reader](path, tools)) found.set(locator, failure);
    out.set(key, found);
  }
  return out;
}

const READERS = {
  'mini-swe-agent': (path, tools) => importedFailures('mini-swe-agent', tools.readMiniSweAgentCalls(path)),
  'claude-code': (path, tools) => importedFailures('claude-code', tools.readClaudeCodeCalls(path)),
  'swe-agent-step': sweAgentSteps,
};

/** An importer's failed calls and format errors, keyed as the importer keys them (stable across runs). */
async function importedFailures(reader, items) {
  const found = new Map();
  for await (const item of items) {
    if (item.kind === 'skipped' || item.event.exit_code === 0) continue;
    const { error_message: message = '', tool_name, error_category = 'uncategorized' } = item.event;
    found.set(`${reader}:${item.key}`, { message, tool_name, error_category });
  }
  return found;
}

/**
 * SWE-agent `.traj` steps. There is no importer for this format (it has no exit code; see
 * shared/formats/agent-traces.md), so which steps failed was judged by hand, and the label's locator is
 * the step's index in `trajectory`. The text gets the importers' treatment (`errorMessage`: redacted,
 * capped) and the category the importers' classifier, as a failure (exit 1).
 */
async function sweAgentSteps(path, tools) {
  const trajectory = JSON.parse(await readFile(path, 'utf8'));
  const steps = Array.isArray(trajectory?.trajectory) ? trajectory.trajectory : [];
  const found = new Map();
  for (const [i, step] of steps.entries()) {
    const action = typeof step?.action === 'string' ? step.action : '';
    const message = tools.errorMessage(typeof step?.observation === 'string' ? step.observation : '');
    const toolName = action.trim().split(/\s+/)[0] || 'swe-agent';
    found.set(`swe-agent-step:${i}`, { message, tool_name: toolName, error_category: tools.classifyError({ toolName, exitCode: 1, message }, [], action) });
  }
  return found;
}
