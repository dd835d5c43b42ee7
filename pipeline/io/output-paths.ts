import { resolve } from 'node:path';
import { SleepCycleError, errors } from '../model/errors.js';
import { resolveLinks, statOrUndefined } from './confine.js';
import { repoPaths, type PathSettings } from './paths.js';

/** A file a run writes or reads, named by the setting it comes from. */
export interface NamedPath {
  setting: string;
  path: string;
}

/** What a run's paths are built from: the path settings, the logs it reads, and the settings file itself. */
export interface RunPathSettings extends PathSettings {
  logs: readonly string[];
  routing: Record<string, string>;
}

/** Files a command other than `run` writes or reads besides the run's own (an import's index, the page `report --html` writes). */
export interface OtherPaths {
  outputs?: readonly NamedPath[];
  inputs?: readonly NamedPath[];
}

/**
 * Every file a run writes (memory, report, state, audit, archive, answers, lock, skill files) must be a
 * file of its own, and none may be a file the run reads (the policy, the settings, a log): two outputs
 * that are one file would have one write replace the other (the report, with its quarantined drafts, in
 * place of MEMORY.md and its human notes). Checked before the lock is taken and anything is written, the
 * dry run too: settings that name one file twice are E_CONFIG; paths that become one file through a link
 * (or a hard link, or a name that differs only where the filesystem ignores case) are E_IO. The other
 * commands that write (pin, restore, review, import, log, init, report --html, the hook) run the same
 * check with the files they add: each of them takes the same lock, or appends to a log the run reads.
 */
export function assertDistinctRunPaths(root: string, settings: RunPathSettings, skills: Iterable<string>, configFile: string, other: OtherPaths = {}): void {
  const paths = repoPaths(root, settings);
  const outputs: NamedPath[] = [
    { setting: 'memory_file', path: paths.memory },
    { setting: 'report_file', path: paths.report },
    { setting: 'archive_file', path: paths.archive },
    { setting: 'state_dir (state.json)', path: paths.state },
    { setting: 'state_dir (lifecycle.jsonl)', path: paths.lifecycle },
    { setting: 'state_dir (llm-answers.json)', path: paths.answers },
    { setting: 'state_dir (lock)', path: paths.lock },
    ...[...new Set([...Object.values(settings.routing), ...skills])].sort().map((skill) => ({ setting: `skills_dir (${skill}.yaml)`, path: paths.skill(skill) })),
    ...(other.outputs ?? []),
  ];
  const inputs: NamedPath[] = [
    { setting: 'safety_rules', path: paths.safetyRules },
    { setting: 'the settings file', path: resolve(root, configFile) },
    ...settings.logs.map((log) => ({ setting: 'logs', path: resolve(root, log) })),
    ...(other.inputs ?? []),
  ];
  assertDistinct(root, outputs, inputs);
}

export function assertDistinct(root: string, outputs: readonly NamedPath[], inputs: readonly NamedPath[]): void {
  const seen = new Map<string, NamedPath>();
  const seenReal = new Map<string, NamedPath>();
  for (const [index, entry] of [...outputs, ...inputs].entries()) {
    const isOutput = index < outputs.length;
    const same = seen.get(entry.path);
    if (same) throw sameInSettings(root, same, entry);
    const real = fileIdentity(entry.path);
    const sameReal = seenReal.get(real);
    if (sameReal) throw sameThroughLinks(root, sameReal, entry);
    // Inputs are compared with outputs only: two settings may read one file.
    if (isOutput) {
      seen.set(entry.path, entry);
      seenReal.set(real, entry);
    }
  }
}

/** The file a path reaches: its device and inode when it exists, else where its links lead. */
function fileIdentity(path: string): string {
  const real = resolveLinks(path);
  const info = statOrUndefined(real);
  return info && info.isFile() ? `inode ${info.dev}:${info.ino}` : `path ${real}`;
}

function shown(root: string, path: string): string {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function sameInSettings(root: string, first: NamedPath, second: NamedPath): SleepCycleError {
  return new SleepCycleError(
    'E_CONFIG',
    `${second.setting} and ${first.setting} both name ${shown(root, second.path)}: a run writes each of its files on its own, so one would replace the other (MEMORY.md's human notes with it). Nothing was written. Give ${second.setting} a path of its own.`,
    { settings: [first.setting, second.setting], path: shown(root, second.path) },
  );
}

function sameThroughLinks(root: string, first: NamedPath, second: NamedPath) {
  return errors.unsafePath(
    shown(root, second.path),
    `(${second.setting}) is the same file as ${shown(root, first.path)} (${first.setting}), through a link: a run writes each of its files on its own, so one would replace the other; nothing was written`,
    `Replace the link with a file of its own, or point ${second.setting} at another path`,
  );
}
