import { relative, resolve } from 'node:path';
import { confineFs } from '../io/confine.js';
import { Option } from 'commander';
import { errors } from '../model/errors.js';
import { withLock } from '../io/lock.js';
import { repoPaths } from '../io/paths.js';
import { compileCategoryPatterns } from '../telemetry/classify.js';
import { IMPORT_FORMATS, importTelemetry, isImportFormat, type ImportSummary } from '../telemetry/import-telemetry.js';
import { loadSettings, type CliDeps } from './context-from-options.js';
import { printSuccess } from './output.js';
import { resolveRoot } from './root.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { CONFIG_FILE } from '../settings/resolve.js';

export interface ImportCommandOptions {
  root?: string;
  json?: boolean;
  /** Telemetry file to append to, relative to the root (default: the first of settings.logs). */
  log?: string;
}

/** `sleep-cycle import <format> <file-or-dir>`: converts transcripts into telemetry lines. */
export async function importCommand(format: string | undefined, source: string | undefined, options: ImportCommandOptions, deps: CliDeps): Promise<number> {
  if (format === undefined || !isImportFormat(format)) {
    throw errors.usage(`unknown import format "${(format ?? '').slice(0, 40)}": expected one of ${IMPORT_FORMATS.join(', ')}.`, { formats: IMPORT_FORMATS });
  }
  if (source === undefined || source.trim() === '') {
    throw errors.usage(`import ${format} needs a file or folder to read, e.g. \`sleep-cycle import ${format} ~/transcripts\`.`);
  }
  const root = await resolveRoot(deps, options.root);
  const { settings } = await loadSettings(deps, root, {});
  const paths = repoPaths(root, settings);
  const logPath = resolve(root, options.log ?? settings.logs[0]!);
  const now = deps.clock.now();
  const indexPath = resolve(root, settings.state_dir, 'imported.json');
  // The log it appends to is one the run reads; the index is its own: neither may be a file the run writes.
  assertDistinctRunPaths(root, settings, [], CONFIG_FILE, { outputs: [{ setting: 'state_dir (imported.json)', path: indexPath }], inputs: [{ setting: options.log === undefined ? 'logs' : '--log', path: logPath }] });
  const lock = { path: paths.lock, runId: `import-${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}`, now, staleMinutes: settings.lock_stale_minutes };
  const repoFs = confineFs(deps.fs, root);
  // The log is appended to outside the port: check here that it is a regular file inside the repository.
  await repoFs.identify(logPath);
  const summary: ImportSummary = await withLock(repoFs, lock, () =>
    importTelemetry({
      format,
      source: resolve(deps.cwd, source),
      logPath,
      indexPath,
      root,
      fs: repoFs,
      now,
      extraCategories: compileCategoryPatterns(settings.error_categories),
    }),
  );
  const log = relative(root, logPath) || logPath;
  return printSuccess(deps, Boolean(options.json), envelopeData(summary), () => renderImportText(summary, log));
}

/** The `--json` data: a contract (see the command's tests); `unpaired` and `invalid` are diagnostics. */
function envelopeData(s: ImportSummary) {
  return {
    format: s.format,
    files: s.files,
    calls: s.calls,
    failures: s.failures,
    benign: s.benign,
    excluded_cancelled: s.excluded_cancelled,
    format_errors: s.format_errors,
    appended: s.appended,
    skipped_duplicates: s.skipped_duplicates,
    unpaired: s.unpaired,
    invalid: s.invalid,
  };
}

export function renderImportText(s: ImportSummary, log: string): string {
  const lines = [
    `imported ${s.files} ${s.files === 1 ? 'file' : 'files'} (${s.format}): ${s.calls} calls, ${s.failures} failures (${s.benign} benign), ${s.format_errors} format errors`,
    `  appended ${s.appended} events to ${log}${appendedKinds(s)}; ${s.skipped_duplicates} already imported`,
  ];
  if (s.excluded_cancelled > 0) lines.push(`  excluded ${s.excluded_cancelled} cancelled parallel calls (a sibling call failed)`);
  if (s.unpaired + s.invalid > 0) lines.push(`  skipped ${s.unpaired} calls without a result and ${s.invalid} unreadable lines`);
  if (s.files === 0) lines.push('  no matching files were found: check the path and the format.');
  return `${lines.join('\n')}\n`;
}

/** A format error is an event but not a call: say what the events beyond the calls are. */
function appendedKinds(s: ImportSummary): string {
  if (s.appended_format_errors === 0) return '';
  const calls = s.appended - s.appended_format_errors;
  const malformed = s.appended_format_errors;
  return ` (${calls} ${calls === 1 ? 'call' : 'calls'} and ${malformed} ${malformed === 1 ? 'format error' : 'format errors'}: agent replies without exactly one action, each logged as tool format_error)`;
}

/** The command-table row; program.ts adds `--json` and `--root`. */
export const importCommandSpec: {
  name: string;
  description: string;
  options: Option[];
  action: (args: string[], options: Record<string, unknown>, deps: CliDeps) => Promise<number>;
} = {
  name: 'import <format> <path>',
  description: `convert agent transcripts into telemetry lines (formats: ${IMPORT_FORMATS.join(', ')}); re-importing appends nothing twice`,
  options: [new Option('--log <path>', 'telemetry file to append to (default: the first of settings.logs, logs/telemetry.jsonl)')],
  action: (args, options, deps) => importCommand(args[0], args[1], options as ImportCommandOptions, deps),
};
