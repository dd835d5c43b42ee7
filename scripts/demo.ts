/**
 * `npm run demo`: the whole sleep cycle on the shipped sample, in a throwaway git repository, so the
 * checkout itself is never touched. First a dry run (the report a reviewer would read), then the real
 * run that writes the rules and commits them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDeps } from '../pipeline/cli/context-from-options.js';
import { runCli } from '../pipeline/cli/program.js';

const QUIET_DAYS = 150;
const packageRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const repo = mkdtempSync(join(tmpdir(), 'sleep-cycle-demo-'));
for (const item of ['logs/telemetry.jsonl', 'MEMORY.md', 'skills', 'config']) {
  cpSync(join(packageRoot, item), join(repo, item), { recursive: true });
}
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
git('init', '--quiet', '--initial-branch=main');
git('config', 'user.name', 'sleep-cycle demo');
git('config', 'user.email', 'demo@sleep-cycle.invalid');
git('add', '.');
git('commit', '--quiet', '-m', 'starter repository');

const deps = { ...defaultDeps(), cwd: repo };
const banner = (title: string) => process.stdout.write(`\n=== ${title} ===\n\n`);

banner(`1. sleep-cycle run --dry-run   (in ${repo})`);
let code = await runCli(['run', '--dry-run'], deps);
if (code !== 0) process.exit(code);
banner('proposed_memory_updates.md (what a reviewer reads in the nightly PR)');
// The report is markdown for a pull request (log text in it is HTML-escaped); a terminal shows the characters.
process.stdout.write(unescapeHtml(readFileSync(join(repo, 'proposed_memory_updates.md'), 'utf8')));

banner('2. sleep-cycle run   (writes the rules, moves the cursor, commits)');
code = await runCli(['run'], deps);
if (code !== 0) process.exit(code);
banner('git log --stat -1');
process.stdout.write(git('log', '--stat', '-1', '--format=%h %s'));
banner('MEMORY.md: ## Derived Rules');
const memory = readFileSync(join(repo, 'MEMORY.md'), 'utf8');
process.stdout.write(memory.slice(memory.lastIndexOf('\n## Derived Rules') + 1));
banner('skills/git.yaml: derived_rules');
const skill = readFileSync(join(repo, 'skills/git.yaml'), 'utf8');
process.stdout.write(skill.slice(skill.lastIndexOf('\nderived_rules:') + 1));

banner('3. sleep-cycle run --dry-run again   (nothing new since the last sleep)');
code = await runCli(['run', '--dry-run'], deps);
if (code !== 0) process.exit(code);

banner('4. sleep-cycle list   (weights, states, effectiveness of the rules just written)');
code = await runCli(['list'], deps);
if (code !== 0) process.exit(code);
// Five quiet months: the rules with the least evidence have passed their TTL and are archived, while
// more evidence has stretched the others' (importance), so they are only decaying. (At three months
// nothing is archived yet: a preview that archives nothing shows little.)
const later = new Date(Date.now() + QUIET_DAYS * 86_400_000).toISOString().slice(0, 10);
banner(`5. sleep-cycle decay --dry-run --now ${later}   (preview: what ${QUIET_DAYS} quiet days would archive)`);
code = await runCli(['decay', '--dry-run', '--now', later], deps);
process.stdout.write(`\nThe demo repository is left at ${repo} for you to inspect.\n`);
process.exit(code);

function unescapeHtml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}
