import { readFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
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
  // The logs too: the hook and the importer append to them (a JSON line in a git hook runs its `$(…)`).
  assertOutsideGitDir(root, [...outputs, ...inputs.filter((entry) => entry.setting === 'logs')]);
}

/**
 * No output may be a file of git's own directory (`.git/config`, `.git/hooks/post-commit`, a worktree's
 * or submodule's `.git` named by a `gitdir:` file): a report written over git's config breaks every later
 * git command, and rules appended to a hook run as shell at the next commit, before the run's own git
 * step could fail. A setting that names such a path is E_CONFIG; a path that reaches one through a link, E_IO.
 */
export function assertOutsideGitDir(root: string, outputs: readonly NamedPath[]): void {
  const gitDirs = gitDirsOf(root);
  for (const entry of outputs) {
    const named = relative(root, entry.path);
    if (named.split(sep).some((part) => part.toLowerCase() === '.git')) throw inGitDir(root, entry, 'E_CONFIG');
    const real = resolveLinks(entry.path);
    if (gitDirs.some((dir) => real === dir || real.startsWith(`${dir}${sep}`) || real.toLowerCase().startsWith(`${dir.toLowerCase()}${sep}`))) throw inGitDir(root, entry, 'E_IO');
  }
}

/** The repository's git directory, as real paths: `.git` itself, and where a `.git` file's `gitdir:` points. */
function gitDirsOf(root: string): string[] {
  const dot = resolve(root, '.git');
  const dirs = [resolveLinks(dot)];
  const info = statOrUndefined(dot);
  if (info?.isFile()) {
    const pointed = /^gitdir:\s*(.+?)\s*$/m.exec(readTextOrEmpty(dot))?.[1];
    if (pointed !== undefined) dirs.push(resolveLinks(resolve(root, pointed)));
  }
  return dirs;
}

function readTextOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(0, 4096);
  } catch {
    return '';
  }
}

function inGitDir(root: string, entry: NamedPath, code: 'E_CONFIG' | 'E_IO'): SleepCycleError {
  const what = `${entry.setting} names ${shown(root, entry.path)}, a file of git's own directory${code === 'E_IO' ? ' (through a link)' : ''}: written there it would break git or run as a hook. Nothing was written.`;
  return code === 'E_CONFIG'
    ? new SleepCycleError('E_CONFIG', `${what} Give ${entry.setting} a path in the work tree.`, { settings: [entry.setting], path: shown(root, entry.path) })
    : errors.unsafePath(shown(root, entry.path), `(${entry.setting}) resolves inside git's own directory; nothing was written`, `Replace the link with a file of its own, or point ${entry.setting} at another path`);
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
