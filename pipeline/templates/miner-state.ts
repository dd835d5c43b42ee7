/**
 * The miner's saved state: plain JSON, one list of templates per scope, sorted so that a night that
 * learns nothing writes the same bytes. Ids are stored for readers (and checked on load: an id is a hash
 * of scope and template, so a template edited by hand without its id is caught).
 */
import { errors, truncate } from '../model/errors.js';
import { TEMPLATE_ID, templateId } from './template-id.js';

export interface SavedTemplate {
  readonly id: string;
  readonly template: string;
  readonly count: number;
}

export interface TemplateMinerState {
  readonly version: 1;
  readonly scopes: Readonly<Record<string, readonly SavedTemplate[]>>;
}

const WHERE = 'template miner state';
const FIX = 'Restore the file from git, or remove the "templates" state to let the miner start afresh.';

/** Checks a parsed JSON value (untrusted: it comes from a file) and returns it typed, or throws E_STATE. */
export function parseMinerState(value: unknown): TemplateMinerState {
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.scopes)) {
    throw errors.state(WHERE, `expected {"version": 1, "scopes": {...}}, found ${truncate(value)}`, FIX);
  }
  const scopes: Record<string, SavedTemplate[]> = {};
  for (const [scope, list] of Object.entries(value.scopes)) {
    if (!Array.isArray(list)) throw errors.state(WHERE, `scope ${truncate(scope)} must hold a list of templates, found ${truncate(list)}`, FIX);
    scopes[scope] = list.map((entry, i) => parseEntry(scope, entry, i));
  }
  return { version: 1, scopes };
}

function parseEntry(scope: string, entry: unknown, i: number): SavedTemplate {
  const at = `scope ${truncate(scope)}, template ${i}`;
  if (!isRecord(entry) || typeof entry.template !== 'string' || typeof entry.id !== 'string') {
    throw errors.state(WHERE, `${at}: expected {"id", "template", "count"}, found ${truncate(entry)}`, FIX);
  }
  const count = entry.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw errors.state(WHERE, `${at}: "count" must be a whole number of at least 0, found ${truncate(count)}`, FIX);
  }
  if (!TEMPLATE_ID.test(entry.id) || entry.id !== templateId(scope, entry.template)) {
    throw errors.state(WHERE, `${at}: id ${truncate(entry.id)} is not the id of its template (t- and 12 hex digits of its hash)`, FIX);
  }
  return { id: entry.id, template: entry.template, count };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
