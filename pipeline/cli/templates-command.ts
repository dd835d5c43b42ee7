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
}

type TemplatesDeps = CliDeps & { readStdin?: () => Promise<string> };

/**
 * `templates [file]`: the template of each message, one message per line (plain text, or JSONL with
 * `--field`), read from the file or stdin. Prints one JSON line per message, then a summary line; with
 * `--json`, one envelope. Messages are redacted before they are mined, so no template carries a secret.
 */
export async function templatesCommand(file: string | undefined, options: TemplatesOptions, deps: TemplatesDeps): Promise<number> {
  const text = file === undefined ? await (deps.readStdin ?? (() => readProcessStdin()))() : await deps.fs.readText(resolve(deps.cwd, file));
  if (text === undefined) throw errors.usage(`templates expects a readable file of messages, found nothing at ${file} (${resolve(deps.cwd, file!)}). Check the path, or pipe the messages on stdin.`, { path: file });
  const messages = toMessages(text, options.field);
  await loadSecretRuleSet();
  const mined = mineTemplates(messages.map((m) => redact(m.message)));
  const lines = messages.map((m, i) => ({ line: m.line, template_id: mined[i]!.template_id, template: mined[i]!.template }));
  const summary = summarize(mined, messages.length, options.field === undefined ? 0 : countSkipped(text, messages.length));
  return printSuccess(deps, Boolean(options.json), { templates: lines, summary }, () =>
    `${lines.map((line) => JSON.stringify(line)).join('\n')}${lines.length > 0 ? '\n' : ''}${summary.messages} messages, ${summary.templates} templates${summary.skipped > 0 ? `, ${summary.skipped} lines skipped (not JSON, or no string in --field ${options.field})` : ''}\n`,
  );
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
  options: [new Option('--field <name>', 'read JSON lines and take this field of each (e.g. error_message)')],
  action: (args, options, deps) => templatesCommand(args[0], options, deps),
};
