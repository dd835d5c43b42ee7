// Loghub-2k for `npm run eval`: the `Content` column of each system's structured CSV, its true group
// (`EventId` of the original Loghub-2k, the grouping every published GA is measured on) and its true
// template for PA (the ICSE'22 corrected template, Khan et al.). The corrected templates also group the
// lines (as Loghub-2.0's evaluator does: by template text), which regroups Linux, Android and OpenSSH:
// that grouping is `correctedGroup`. See ../shared/data/SOURCES.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOGHUB_SYSTEMS = ['Android', 'Apache', 'BGL', 'HDFS', 'HPC', 'Hadoop', 'Linux', 'OpenSSH', 'Spark', 'Thunderbird', 'Windows', 'Zookeeper'];

/**
 * The 12 systems, or `{ skipped }` when the data folder is absent.
 * @param {string} dataRoot the shared data folder (`../shared/data` from the repo root)
 * @returns {{ systems: { name: string, lines: { content: string, group: string, correctedGroup: string, template: string }[], unmapped: number }[] } | { skipped: string }}
 */
export function loadLoghub(dataRoot) {
  const original = join(dataRoot, 'loghub-2k');
  if (!existsSync(original)) return { skipped: `no Loghub-2k data at ${original}` };
  const systems = [];
  for (const name of LOGHUB_SYSTEMS) {
    const file = join(original, name, `${name}_2k.log_structured.csv`);
    if (!existsSync(file)) return { skipped: `Loghub-2k is incomplete: ${file} is missing` };
    systems.push(loadSystem(dataRoot, name, file));
  }
  return { systems };
}

function loadSystem(dataRoot, name, file) {
  const rows = readCsv(file);
  const corrected = join(dataRoot, 'loghub-2k-corrected-icse22', name);
  const perLine = join(corrected, `${name}_2k.log_structured_corrected.csv`);
  const fixed = existsSync(perLine) ? readCsv(perLine) : null;
  if (fixed && (fixed.length !== rows.length || fixed.some((row, i) => row.LineId !== rows[i].LineId))) {
    throw new Error(`${perLine} does not have the lines of ${file}, in the same order`);
  }
  const { templates, unmapped } = fixed
    ? { templates: fixed.map((row) => row.EventTemplate), unmapped: 0 }
    : correctedByGroup(rows, join(corrected, `${name}_2k.log_templates_corrected.csv`));
  const lines = rows.map((row, i) => ({
    content: row.Content,
    group: row.EventId,
    correctedGroup: templates[i],
    template: templates[i],
  }));
  return { name, lines, unmapped };
}

/**
 * For systems whose correction rewrote template strings only (grouping unchanged, SOURCES.md 1b), each
 * original group takes the corrected template that matches all its lines (the most literal one when
 * several do); a group no corrected template matches keeps its original template and is counted.
 */
function correctedByGroup(rows, templatesFile) {
  const candidates = existsSync(templatesFile)
    ? readTemplateList(templatesFile).map((template) => ({ template, regex: templateRegex(template) }))
    : [];
  const groups = new Map();
  for (const row of rows) {
    const members = groups.get(row.EventId);
    if (members) members.push(row);
    else groups.set(row.EventId, [row]);
  }
  const chosen = new Map();
  let unmapped = 0;
  for (const [id, members] of groups) {
    const fits = candidates.filter((c) => members.every((row) => c.regex.test(row.Content)));
    fits.sort((a, b) => literalLength(b.template) - literalLength(a.template));
    if (fits.length === 0) unmapped += members.length;
    chosen.set(id, fits[0]?.template ?? members[0].EventTemplate);
  }
  return { templates: rows.map((row) => chosen.get(row.EventId)), unmapped };
}

function templateRegex(template) {
  const parts = template.split('<*>').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  return new RegExp(`^\\s*${parts.join('.*?')}\\s*$`, 's');
}

/**
 * `EventId,EventTemplate` lines, read line by line: the corrected Thunderbird file has a field with an
 * unbalanced quote (E29) that would swallow the next lines in a CSV reader; such a quote is dropped.
 */
function readTemplateList(file) {
  return readFileSync(file, 'utf8').split(/\r?\n/).slice(1).filter((line) => line.includes(',')).map((line) => {
    const value = line.slice(line.indexOf(',') + 1);
    if (!value.startsWith('"')) return value;
    return (value.length > 1 && value.endsWith('"') ? value.slice(1, -1) : value.slice(1)).replaceAll('""', '"');
  });
}

const literalLength = (template) => template.replaceAll('<*>', '').length;

/**
 * A small RFC 4180 reader: quoted fields, doubled quotes, newlines inside quotes. Returns objects keyed by
 * the header row.
 * @param {string} file
 */
export function readCsv(file) {
  const records = parseCsv(readFileSync(file, 'utf8'));
  const header = records.shift() ?? [];
  return records.filter((r) => r.length > 1 || r[0] !== '').map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

export function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') { field += '"'; i++; }
      else quoted = false;
    } else if (c === '"' && field === '') quoted = true; // a quote opens a field only at its start
    else if (c === ',') { record.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field); records.push(record); record = []; field = '';
    } else field += c;
  }
  if (field !== '' || record.length > 0) { record.push(field); records.push(record); }
  return records;
}
