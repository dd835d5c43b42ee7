import { resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { errors } from '../model/errors.js';
import type { FileToCommit, RepoInfo } from '../io/git.js';
import { addRules, orderRules, parseMemory, removeRules } from '../memory/memory-md.js';
import { orderSkillRules } from '../memory/order.js';
import { addSkillRules, parseSkillRules, removeSkillRules, skillFileProblem } from '../memory/skills-yaml.js';
import { IN_TARGET, type LedgerEntry } from '../memory/state.js';
import type { Plan } from './plan.js';
import { targetPath } from '../model/rule-target.js';

export interface Committed {
  commit: string | null;
  commitNote: string;
}

/** A file as it is in the working tree and at HEAD. */
export interface FileVersions {
  path: string;
  working: string | undefined;
  head: string | undefined;
}

/**
 * commit: commits what sleep-cycle owns — its state, its audit, its report, and its own rule lines in
 * MEMORY.md and skill files laid onto the HEAD version of those files — so a human's uncommitted edits
 * to the same files never enter the commit. Leftovers of an earlier run whose commit failed are
 * committed too; a night that changed nothing makes no commit.
 */
export async function commit<I extends { plan: Plan; reportPath: string; repo: RepoInfo }>(input: I, ctx: RunContext): Promise<I & Committed> {
  const skip = commitSkipReason(input.repo, ctx);
  if (skip) return { ...input, commit: null, commitNote: skip };
  const read = async (path: string): Promise<FileVersions> => ({
    path,
    working: await ctx.fs.readText(resolve(ctx.root, path)),
    head: await ctx.git.readHead(ctx.root, path),
  });
  const { settings } = ctx;
  const rules = Object.values(input.plan.nextState.rules);
  const owned = await Promise.all([`${settings.state_dir}/state.json`, `${settings.state_dir}/lifecycle.jsonl`, settings.archive_file].map(read));
  const targets = await Promise.all([...new Set(rules.map((rule) => rule.target))].sort().map((target) => read(targetPath(target, settings))));
  const report = await read(input.reportPath);
  // A run killed between moving HEAD and refreshing the index left sleep-cycle's files staged as their
  // old versions: a human's next commit would revert ours. Put them back to HEAD first.
  if (!ctx.options.branch) {
    const repaired = await ctx.git.repairIndex(ctx.root, [...owned, ...targets, report].map((file) => file.path), 'sleep-cycle:');
    if (repaired.length > 0) ctx.logger.warn(`the git index still held the versions before sleep-cycle's last commit (an interrupted run): reset ${repaired.join(', ')} to HEAD.`);
  }
  const files = buildCommitFiles({ owned, targets, report, rules, settings });
  if (files.length === 0) return { ...input, commit: null, commitNote: 'nothing new since the last sleep: no commit' };
  const { branch, push } = ctx.options;
  const remoteBefore = branch && push ? await ctx.git.fetchBranch(ctx.root, push, branch) : null;
  if (branch) await refuseForeignCommits(ctx, branch);
  if (branch && (await branchHoldsSameChange(ctx, branch, files))) {
    return { ...input, commit: await ctx.git.resolve(ctx.root, `refs/heads/${branch}`), commitNote: `${branch} already proposes the same change: no new commit` };
  }
  // Nothing new tonight but files to commit: an earlier run was interrupted before its commit.
  const message = input.plan.changes.length > 0 ? input.plan.commitMessage : `sleep-cycle: commit an interrupted run's changes (${ctx.now.toISOString().slice(0, 10)})`;
  const result = await ctx.git.commitFiles(ctx.root, files, message, branch ? { branch } : {});
  const ignored = result.ignored.length > 0 ? ` (git ignores ${result.ignored.join(', ')})` : '';
  if (!result.sha) return { ...input, commit: null, commitNote: `nothing to commit${ignored}` };
  const where = branch ? ` on branch ${branch}` : input.repo.head?.kind === 'detached' ? ' on a detached HEAD' : '';
  let note = result.unchanged ? `${branch} already holds this change (${result.sha.slice(0, 12)}): no new commit` : `committed ${result.sha.slice(0, 12)}${where}${ignored}`;
  if (result.indexStale) note += `; your git index could not be refreshed: run \`git reset -- ${result.indexStale.join(' ')}\``;
  if (branch && push && result.sha !== remoteBefore) {
    await ctx.git.pushBranch(ctx.root, push, branch, remoteBefore);
    note += `; pushed to ${push}`;
  }
  return { ...input, commit: result.sha, commitNote: note };
}

/** The branch is rebuilt from HEAD on every run: a human's commit on it would be lost, so stop instead. */
async function refuseForeignCommits(ctx: RunContext, branch: string): Promise<void> {
  if (!(await ctx.git.resolve(ctx.root, `refs/heads/${branch}`))) return;
  const foreign = await ctx.git.foreignCommits(ctx.root, `refs/heads/${branch}`, 'sleep-cycle:');
  if (foreign.length > 0) {
    throw errors.git(
      `update of ${branch}`,
      `it has commits sleep-cycle did not make (${foreign.slice(0, 3).join('; ')}); rebuilding it would drop them. Merge or close the pull request, or delete the branch, then run again`,
    );
  }
}

/**
 * The nightly branch already proposes this change when it sits on HEAD and differs from what we would
 * commit only in run times (last_sleep, report header, audit times): then the pull request is left alone.
 */
async function branchHoldsSameChange(ctx: RunContext, branch: string, files: FileToCommit[]): Promise<boolean> {
  const tip = await ctx.git.resolve(ctx.root, `refs/heads/${branch}`);
  if (!tip || (await ctx.git.resolve(ctx.root, `${tip}^`)) !== (await ctx.git.resolve(ctx.root, 'HEAD'))) return false;
  for (const file of files) {
    const onBranch = await ctx.git.readHead(ctx.root, file.path, tip);
    if (onBranch === undefined || stableForm(file.path, onBranch) !== stableForm(file.path, file.content)) return false;
  }
  return true;
}

/**
 * State fields set to the run's own time (or derived from it): the same night run later differs only there
 * (`time` and `run` are a recorded night's, state.nights).
 */
const RUN_TIME_KEYS = new Set(['created', 'at', 'last_reinforced', 'state_since', 'weight', 'effectiveness', 'time', 'run']);

/** A file's content without the fields that change on every run even when nothing else does. */
export function stableForm(path: string, content: string): string {
  if (path.endsWith('state.json')) {
    try {
      const state = JSON.parse(content) as Record<string, unknown>;
      delete state.last_sleep;
      return JSON.stringify(state, (key, value: unknown) => (RUN_TIME_KEYS.has(key) ? undefined : value));
    } catch {
      return content;
    }
  }
  if (path.endsWith('.jsonl')) return content.replace(/"time":"[^"]*","run":"[^"]*"/g, '').replace(/,"since":"[^"]*"/g, '');
  return content.replace(/^_sleep-cycle run-\S+ at \S+ /m, '');
}

/** Why this run will not commit, decided before anything is written (the report says it), or null. */
export function commitSkipReason(repo: RepoInfo, ctx: RunContext): string | null {
  if (ctx.options.dryRun) return 'dry run: nothing committed';
  if (!ctx.options.commit) return 'not committed (--no-commit)';
  if (!repo.repo) return 'not committed: not a git repository';
  return null;
}

interface CommitFilesInput {
  owned: FileVersions[];
  targets: FileVersions[];
  report: FileVersions;
  rules: LedgerEntry[];
  settings: { memory_file: string; skills_dir: string };
}


/** Pure: the contents to commit, only for files that differ from HEAD; the report only alongside others. */
export function buildCommitFiles(input: CommitFilesInput): FileToCommit[] {
  const files: FileToCommit[] = [];
  for (const file of input.owned) {
    if (file.working !== undefined && file.working !== file.head) files.push({ path: file.path, content: file.working });
  }
  for (const file of input.targets) {
    const content = ownLinesOnHead(file, input.rules, input.settings);
    if (content !== undefined && content !== file.head) files.push({ path: file.path, content });
  }
  const report = input.report;
  if (files.length > 0 && report.working !== undefined && report.working !== report.head) files.push({ path: report.path, content: report.working });
  return files;
}

/**
 * HEAD's version of a memory or skill file, plus the rules in memory that are in the working tree but not
 * at HEAD, minus the rules sleep-cycle moved out (archived, expired, deleted) that HEAD still has.
 */
function ownLinesOnHead(file: FileVersions, rules: LedgerEntry[], settings: CommitFilesInput['settings']): string | undefined {
  if (file.working === undefined) return undefined;
  const isMemory = file.path === settings.memory_file;
  // A skill file that cannot be read was left alone by the run (see load): leave it out of the commit too.
  if (!isMemory && [file.working, file.head].some((text) => text !== undefined && skillFileProblem(text) !== null)) return file.head;
  const ids = (text: string | undefined) =>
    new Set(text === undefined ? [] : (isMemory ? parseMemory(text).rules : parseSkillRules(text, file.path)).map((rule) => rule.id));
  const working = ids(file.working);
  const atHead = ids(file.head);
  const here = rules.filter((rule) => targetPath(rule.target, settings) === file.path);
  // In the working file's order, so the committed file and the working tree agree line for line.
  const order = [...working];
  const mine = here
    .filter((rule) => IN_TARGET.includes(rule.state) && working.has(rule.id) && !atHead.has(rule.id))
    .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const gone = new Set(here.filter((rule) => !IN_TARGET.includes(rule.state) && rule.state !== 'rejected' && atHead.has(rule.id) && !working.has(rule.id)).map((rule) => rule.id));
  const skill = file.path.slice(settings.skills_dir.length + 1).replace(/\.yaml$/, '');
  const lines = mine.map((rule) => ({ id: rule.id, text: rule.text, cluster: rule.cluster_id }));
  let content = file.head;
  if (mine.length > 0 || gone.size > 0) {
    content = isMemory
      ? addRules(removeRules(file.head ?? '', gone), lines)
      : addSkillRules(file.head === undefined ? undefined : removeSkillRules(file.head, file.path, gone), skill, file.path, lines);
  }
  if (content === undefined) return undefined;
  // The rules in the working file's order (by weight, see memory/order.ts): HEAD's own lines, moved.
  const clusterOf = (id: string) => here.find((rule) => rule.id === id)?.cluster_id ?? '';
  return isMemory ? orderRules(content, order) : orderSkillRules(content, skill, file.path, order, clusterOf);
}

