import { resolve } from 'node:path';
import { Option } from 'commander';
import { readProcessStdin } from '../io/stdin.js';
import { errors } from '../model/errors.js';
import { redact } from '../safety/redact.js';
import { loadSecretRuleSet } from '../safety/secrets-rule-set.js';
import { mineTemplates, type MinedLine } from '../templates/mine.js';
import type { CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import type { CommandSpec } from './command-spec.js';

export interface TemplatesOptions {
  json?: boolean;
  field?: string;
  limit?: string;
}

/**
 * The most messages one `templates` mines unless `--limit` says otherwise: mining is linear in the
 * messages but each new one may be compared with the live templates of its length, so a flood of
 * distinct lines costs tens of microseconds each; past the limit the command says so before any work.
 */
export const DEFAULT_MESSAGE_LIMIT = 100_000;
/** Bytes of input per message allowed at the limit (long messages are cut by the tokenizer anyway). */
const BYTES_PER_MESSAGE = 512;

type TemplatesDeps = CliDeps & { readStdin?: () => Promise<string> };

/**
 * `templates [file]`: the template of each message, one message per line (plain text, or JSONL with
 * `--field`), read from the file or stdin. Prints one JSON line per message, then a summary line; with
 * `--json`, one envelope. Messages are redacted before they are mined, so no template carries a secret.
 */
export async function templatesCommand(file: string | undefined, options: TemplatesOptions, deps: TemplatesDeps): Promise<number> {
  const limit = parseLimit(options.limit);
  const maxBytes = limit * BYTES_PER_MESSAGE;
  const text = file === undefined ? await readStdin(deps, maxBytes) : await readFile(deps, file, limit);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw tooMuch(`more than ${maxBytes.toLocaleString('en-US')} bytes`, limit);
  const messages = toMessages(text, options.field);
  if (messages.length > limit) throw tooMuch(`${messages.length.toLocaleString('en-US')} messages`, limit);
  await loadSecretRuleSet();
  const mined = mineTemplates(messages.map((m) => redact(m.message)));
  const lines = messages.map((m, i) => ({ line: m.line, template_id: mined[i]!.template_id, template: mined[i]!.template }));
  const summary = summarize(mined, messages.length, options.field === undefined ? 0 : countSkipped(text, messages.length));
  return printSuccess(deps, Boolean(options.json), { templates: lines, summary }, () =>
    `${lines.map((line) => JSON.stringify(line)).join('\n')}${lines.length > 0 ? '\n' : ''}${summary.messages} messages, ${summary.templates} templates${summary.skipped > 0 ? `, ${summary.skipped} lines skipped (not JSON, or no string in --field ${options.field})` : ''}\n`,
  );
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MESSAGE_LIMIT;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit < 1 || String(limit) !== text.trim()) {
    throw errors.usage(`--limit expects a whole number of messages of at least 1, got ${JSON.stringify(text)}.`, { option: '--limit' });
  }
  return limit;
}

function tooMuch(found: string, limit: number) {
  return errors.usage(
    `templates mines at most ${limit.toLocaleString('en-US')} messages at once (--limit), and this input holds ${found}. ` +
      `Pass a part of it (for example \`head -n ${limit} file | sleep-cycle templates\`) or a higher --limit.`,
    { limit },
  );
}

async function readStdin(deps: TemplatesDeps, maxBytes: number): Promise<string> {
  // One byte past the bound is enough to say the input is too large; a pipe is read to its end, a slow
  // writer waited for (the hook's 5-second bound is for payloads, not for a user's pipeline).
  return deps.readStdin ? deps.readStdin() : readProcessStdin({ maxBytes: maxBytes + 1, timeoutMs: 10 * 60_000 });
}

async function readFile(deps: TemplatesDeps, file: string, limit: number): Promise<string> {
  const path = resolve(deps.cwd, file);
  const size = (await deps.fs.identify(path))?.size;
  if (size !== undefined && size > limit * BYTES_PER_MESSAGE) throw tooMuch(`${size.toLocaleString('en-US')} bytes`, limit);
  const text = await deps.fs.readText(path);
  if (text === undefined) throw errors.usage(`templates expects a readable file of messages, found nothing at ${file} (${path}). Check the path, or pipe the messages on stdin.`, { path: file });
  return text;
}

/** Non-empty lines as messages (1-based line numbers); with a field, that field of each JSON object. */
function toMessages(text: string, field: string | undefined): { line: number; message: string }[] {
  const out: { line: number; message: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    if (field === undefined) return void out.push({ line: i + 1, message: line });
    const value = fieldOf(line, field);
    if (value !== null) out.push({ line: i + 1, message: value });
  });
  return out;
}

function fieldOf(line: string, field: string): string | null {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, field)) return null;
    const found = (value as Record<string, unknown>)[field];
    return typeof found === 'string' && found !== '' ? found : null;
  } catch {
    return null;
  }
}

function countSkipped(text: string, kept: number): number {
  return text.split('\n').filter((line) => line.trim() !== '').length - kept;
}

function summarize(mined: MinedLine[], messages: number, skipped: number) {
  return { messages, templates: new Set(mined.map((m) => m.template_id)).size, skipped };
}

export const templatesCommandSpec: CommandSpec = {
  name: 'templates [file]',
  description: 'print the error template of each message (one per line, or JSONL with --field), read from a file or stdin',
  options: [
    new Option('--field <name>', 'read JSON lines and take this field of each (e.g. error_message)'),
    new Option('--limit <n>', `most messages mined at once; a larger input is refused before any work (default ${DEFAULT_MESSAGE_LIMIT})`),
  ],
  action: (args, options, deps) => templatesCommand(args[0], options, deps),
};
