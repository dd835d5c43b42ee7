import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSafetyPolicy } from '../../pipeline/safety/policy.js';
import { modelTextFindings } from '../../pipeline/safety/model-text.js';

const POLICY = parseSafetyPolicy(readFileSync(join(import.meta.dirname, '../../config/safety-rules.yaml'), 'utf8'), 'config/safety-rules.yaml');
const ids = async (text: string) => (await modelTextFindings(text, 'git_merge', POLICY.commands)).map((f) => f.id);
const inRule = (command: string) => [`When \`git_merge\` fails, run \`${command}\` and retry.`, `Before retrying git_merge, run ${command} once.`];

/** Per subcommand, the spellings that throw work away, and the deny rule of config/safety-rules.yaml that names them. */
const DATA_LOSS: Record<string, string[]> = {
  'git-tree-overwritten': ['git restore --source=HEAD~50 -- .', 'git restore --source HEAD~3 src', 'git restore -s HEAD~5 .', 'git restore -s@~2 -- :/', 'git restore --worktree --staged -- .', 'git restore :/', "git restore ':(top)'", 'git checkout HEAD~50 -- .', 'git checkout origin/main -- src/app.ts', 'git checkout -- :/', 'git restore -- *'],
  'git-side-discarded': ['git merge -s ours origin/main', 'git merge --strategy=ours origin/main', 'git merge --strategy ours feature', 'git merge -sours origin/main', 'git merge -X theirs origin/main', 'git merge -Xours feature', 'git merge --strategy-option=theirs main', 'git pull -s ours origin main', 'git pull -X theirs', 'git rebase -X ours main', 'git rebase --strategy-option theirs origin/main', 'git cherry-pick -X theirs abc123', 'git -C repo merge -s ours main'],
  'git-branch-overwritten': ['git branch -M main', 'git branch -C feature main', 'git branch --force main HEAD~5', 'git branch -f main origin/main'],
  'git-refs-or-history-lost': ['git update-ref -d refs/heads/main', 'git update-ref refs/heads/main HEAD~9', 'git filter-branch --tree-filter x HEAD', 'git filter-repo --path src', 'git replace abc123 def456', 'git prune', 'git symbolic-ref HEAD refs/heads/x'],
  'git-reflog-or-objects-pruned': ['git reflog expire --expire=now --all', 'git reflog delete HEAD@{1}', 'git gc --prune=now', 'git gc --aggressive --prune=all', 'git worktree remove --force ../x', 'git worktree prune', 'git notes prune'],
};
/** Denied before this class: still denied (by whichever rule). */
const ALREADY = ['git reset --keep HEAD~5', 'git reset --merge HEAD~5', 'git checkout -- .', 'git stash drop', 'git stash clear', 'git branch -D feature', 'git branch --delete --force feature'];
const SAFE = ['git merge origin/main', 'git merge --no-ff feature', 'git merge --abort', 'git pull --rebase origin main', 'git restore src/app.ts', 'git restore --staged src/app.ts', 'git checkout main', 'git checkout -b feature origin/feature', 'git switch feature', 'git stash', 'git stash pop', 'git branch feature', 'git branch -d merged-feature', 'git rebase origin/main', 'git cherry-pick abc123', 'git log --oneline'];

describe('git subcommands that throw work away', () => {
  for (const [id, commands] of Object.entries(DATA_LOSS)) {
    it.each(commands)(`${id}: %s`, async (command) => {
      for (const text of inRule(command)) expect(await ids(text), text).toContain(id);
    });
  }

  it('a whole-tree checkout of a revision in code formatting (in prose, "HEAD ." reads as a sentence end)', async () => {
    expect(await ids(inRule('git checkout HEAD .')[0]!)).toContain('git-tree-overwritten');
  });

  it.each(ALREADY)('still denied: %s', async (command) => {
    for (const text of inRule(command)) expect(await ids(text), text).not.toEqual([]);
  });

  it.each(SAFE)('allowed: %s', async (command) => {
    expect(await ids(inRule(command)[0]!), command).toEqual([]);
  });
});
