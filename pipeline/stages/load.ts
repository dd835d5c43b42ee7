import { relative, resolve } from 'node:path';
import type { RunContext } from '../context.js';
import { errors } from '../model/errors.js';
import type { RepoInfo } from '../io/git.js';
import { bundledSafetyRulesPath, compiledSafetyRulesPath, repoPaths } from '../io/paths.js';
import { readState, type State } from '../memory/state.js';
import { assertDistinctRunPaths } from '../io/output-paths.js';
import { buildDirsThroughLinks } from '../io/build-dir-links.js';
import { CONFIG_FILE } from '../settings/resolve.js';
import { safetyPolicyOf, type SafetyPolicy } from '../safety/policy.js';
import { withBundledFloor } from '../safety/policy-floor.js';
import { skillOf, skillPath } from '../model/rule-target.js';
import { skillFileProblem } from '../memory/skills-yaml.js';
import { brokenEventLines } from '../memory/lifecycle.js';
import { redact } from '../safety/redact.js';

const CLAUDE_MD = 'CLAUDE.md';
const BUNDLED = 'bundled default policy';

export interface Loaded {
  state: State;
  memoryText: string | undefined;
  /** CLAUDE.md at the root, when it is not the memory file itself: its human lines count as said. */
  claudeText?: string | undefined;
  /** Skill name -> file text (undefined when the file does not exist yet). */
  skillTexts: Record<string, string | undefined>;
  /** Skill name -> why its file cannot be read: tonight the run neither reads nor writes its rules. */
  unreadableSkills: Record<string, string>;
  policy: SafetyPolicy;
  /** Text of the lifecycle audit log, appended to by the plan. */
  lifecycleText: string | undefined;
  /** Text of the archive file (archived and expired rules), rewritten from the ledger by the plan. */
  archiveText: string | undefined;
  /** Whether the root is a git repository, and what HEAD is: decided before anything is written. */
  repo: RepoInfo;
  notices: string[];
}

/**
 * load: reads everything the pure stages need — state, MEMORY.md, the skill files rules may go to,
 * and the safety policy (the repository's, on the bundled one as a floor). A broken policy stops the run here, before anything is written.
 */
export async function load(_input: object, ctx: RunContext): Promise<Loaded> {
  const paths = repoPaths(ctx.root, ctx.settings);
  const notices: string[] = [...ctx.startupNotices];
  const read = readState(await ctx.fs.readText(paths.state), rel(ctx.root, paths.state));
  const state = read.state;
  notices.push(...read.notices);
  const memoryText = await ctx.fs.readText(paths.memory);
  const skills = new Set(Object.values(ctx.settings.routing));
  for (const rule of Object.values(state.rules)) {
    const skill = skillOf(rule.target);
    if (skill !== null) skills.add(skill);
  }
  // The skills the ledger names are known only now (the runner checked the others before the lock).
  assertDistinctRunPaths(ctx.root, ctx.settings, skills, CONFIG_FILE);
  const skillTexts: Record<string, string | undefined> = {};
  for (const skill of [...skills].sort()) skillTexts[skill] = await ctx.fs.readText(paths.skill(skill));
  const unreadableSkills = checkSkillFiles(skillTexts, ctx, notices);

  const policy = withoutLinkedBuildDirs(await loadPolicy(ctx, paths.safetyRules, notices), ctx.root, notices);
  const lifecycleText = await ctx.fs.readText(paths.lifecycle);
  const broken = brokenEventLines(lifecycleText);
  if (broken.length > 0) {
    notices.push(`${rel(ctx.root, paths.lifecycle)}: ${broken.length === 1 ? 'line' : 'lines'} ${listed(broken)} ${broken.length === 1 ? 'is' : 'are'} not an audit event (torn or edited by hand): kept in the file as ${broken.length === 1 ? 'it is' : 'they are'}, left out of rule histories.`);
  }
  const archiveText = await ctx.fs.readText(paths.archive);
  const claudeText = rel(ctx.root, paths.memory) === CLAUDE_MD ? undefined : await ctx.fs.readText(resolve(ctx.root, CLAUDE_MD));
  // A plain dry run never commits, so it does not ask git anything (three git processes off the
  // pre-session hook's latency); --require-git and --branch still check.
  const askGit = !ctx.options.dryRun || ctx.options.requireGit || Boolean(ctx.options.branch);
  const repo: RepoInfo = askGit ? await ctx.git.inspect(ctx.root) : { repo: false, head: null };
  if (!repo.repo && ctx.options.requireGit) {
    throw errors.usage(`${ctx.root} is not a git repository and --require-git was given: nothing was written.`);
  }
  if (ctx.options.branch && repo.head?.kind === 'branch' && repo.head.name === ctx.options.branch) {
    throw errors.usage(`--branch ${ctx.options.branch} is the branch you are on: leave out --branch to commit here, or name the proposal branch (e.g. sleep-cycle/nightly).`);
  }
  return { state, memoryText, claudeText, skillTexts, unreadableSkills, policy, lifecycleText, archiveText, repo, notices };
}

/**
 * The repository's policy on the bundled one as a floor (policy-floor.ts): a repository can add rules and
 * tighten, never remove or weaken a bundled block. Without a policy of its own, the bundled one alone.
 */
async function loadPolicy(ctx: RunContext, repoPath: string, notices: string[]): Promise<SafetyPolicy> {
  const compiled = await ctx.fs.readText(compiledSafetyRulesPath());
  const bundledText = await ctx.fs.readText(bundledSafetyRulesPath());
  const repoText = await ctx.fs.readText(repoPath);
  if (repoText === undefined && bundledText === undefined) {
    throw errors.safetyRules(rel(ctx.root, repoPath), '(file)', 'a safety policy file', 'no file, and no bundled default');
  }
  const bundled = bundledText === undefined ? undefined : safetyPolicyOf(bundledText, BUNDLED, compiled);
  if (repoText === undefined) {
    notices.push(`${ctx.settings.safety_rules} not found: drafts were checked against the bundled default policy.`);
    return bundled!;
  }
  if (bundled !== undefined && repoText === bundledText) return { ...bundled, file: rel(ctx.root, repoPath) };
  const own = safetyPolicyOf(repoText, rel(ctx.root, repoPath), compiled);
  if (bundled === undefined) return own;
  const floored = withBundledFloor(own, bundled);
  notices.push(...floored.notices);
  return floored.policy;
}

/** Build directories that are links here are no build directories (build-dir-links.ts): left out, with a notice. */
function withoutLinkedBuildDirs(policy: SafetyPolicy, root: string, notices: string[]): SafetyPolicy {
  if (!policy.commands) return policy;
  const linked = buildDirsThroughLinks(root, policy.commands.build_dirs);
  if (linked.length === 0) return policy;
  notices.push(redact(`commands.build_dirs: ${linked.join(', ')} leads through a link in this repository, and a recursive delete there would follow it to wherever it points: left out of the build directories tonight (a rule that deletes it is quarantined). Make it a directory of the repository.`));
  return { ...policy, commands: { ...policy.commands, build_dirs: policy.commands.build_dirs.filter((dir) => !linked.includes(dir)) } };
}

/**
 * Skill files the run cannot read are left alone: not overwritten, no rule in them taken for deleted.
 * The rest of the night goes on; the notice (also in the report) names the file and the fix.
 */
function checkSkillFiles(skillTexts: Record<string, string | undefined>, ctx: RunContext, notices: string[]): Record<string, string> {
  const unreadable: Record<string, string> = {};
  for (const [skill, text] of Object.entries(skillTexts)) {
    const problem = text === undefined ? null : skillFileProblem(text);
    if (problem === null) continue;
    unreadable[skill] = problem;
    const file = skillPath(skill, ctx.settings);
    notices.push(redact(`${file} ${problem}: it was left as it is, its rules keep their state, and no rule was written to it (a new one waits for the next run). Fix the file, then run again.`));
  }
  return unreadable;
}

/** `3`, `3 and 7`, `3, 7, 9 and 2 more`. */
function listed(numbers: number[]): string {
  if (numbers.length === 1) return String(numbers[0]);
  const shown = numbers.slice(0, 3);
  const rest = numbers.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

function rel(root: string, path: string): string {
  return relative(root, path).split('\\').join('/');
}
