import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

/** Absolute paths of the files a run reads and writes, derived once from the root and settings. */
export interface RepoPaths {
  memory: string;
  report: string;
  state: string;
  lifecycle: string;
  archive: string;
  lock: string;
  /** Claude's answers from dry runs, for the run that applies them (not committed). */
  answers: string;
  safetyRules: string;
  skill(name: string): string;
}

/** The settings the paths are built from (a slice of Settings: io sits below settings). */
export interface PathSettings {
  memory_file: string;
  report_file: string;
  state_dir: string;
  archive_file: string;
  safety_rules: string;
  skills_dir: string;
}

export function repoPaths(root: string, settings: PathSettings): RepoPaths {
  return {
    memory: resolve(root, settings.memory_file),
    report: resolve(root, settings.report_file),
    state: resolve(root, settings.state_dir, 'state.json'),
    lifecycle: resolve(root, settings.state_dir, 'lifecycle.jsonl'),
    archive: resolve(root, settings.archive_file),
    lock: resolve(root, settings.state_dir, 'lock'),
    answers: resolve(root, settings.state_dir, 'llm-answers.json'),
    safetyRules: resolve(root, settings.safety_rules),
    skill: (name) => resolve(root, settings.skills_dir, `${name}.yaml`),
  };
}

/** The default policy shipped inside the package, used when a repository has none of its own. */
export function bundledSafetyRulesPath(): string {
  return resolve(packageRoot(), 'config', 'safety-rules.yaml');
}

/** The default policy compiled at build time (`npm run build`), with the hash of the text it came from. */
export function compiledSafetyRulesPath(): string {
  return resolve(packageRoot(), 'dist', 'config', 'safety-rules.compiled.json');
}

/** The package's root directory (where package.json is), from source or from dist/. */
export function packageRoot(): string {
  // dist/pipeline/io/paths.js and pipeline/io/paths.ts sit three and two levels below the package root.
  const here = fileURLToPath(new URL('.', import.meta.url));
  return resolve(here, here.includes(`${join('dist', 'pipeline')}`) ? '../../..' : '../..');
}
