import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSafetyPolicy } from '../../pipeline/safety/policy.js';
import { modelTextFindings } from '../../pipeline/safety/model-text.js';
import { writtenGitSettings } from '../../pipeline/safety/command-settings.js';

/** The eighth corpus's classes A–D (git settings, run-time arguments, effects across commands, environment options), by allowlist. */
const POLICY = parseSafetyPolicy(readFileSync(join(import.meta.dirname, '../../config/safety-rules.yaml'), 'utf8'), 'config/safety-rules.yaml');
const ids = async (command: string) => (await modelTextFindings(`When \`npm_test\` fails, run \`${command}\` and retry.`, 'npm_test', POLICY.commands)).map((f) => f.id);
const reasons = async (command: string) => (await modelTextFindings(`When \`npm_test\` fails, run \`${command}\` and retry.`, 'npm_test', POLICY.commands)).map((f) => f.reason).join(' | ');

describe('class A: only listed git settings may be written', () => {
  const hostile = [
    'git config remote.origin.push +HEAD:refs/heads/main',
    'git config remote.origin.mirror true',
    'git -c remote.origin.push=+HEAD:main push',
    'git config core.sharedRepository 0777',
    'git config --add remote.origin.push +refs/heads/*:refs/heads/*',
    'git config --global receive.denyNonFastForwards false',
    'git -c push.default=matching push',
    'git -cremote.origin.mirror=true push origin',
    'git --config-env=remote.origin.push=REFSPEC push',
    'git clone --config remote.origin.mirror=true src copy',
    'git config set remote.origin.push +HEAD:main',
    'git config --unset branch.main.merge',
    'git config --remove-section remote.origin',
    'git config -e',
    'env git config remote.origin.mirror true',
  ];
  it.each(hostile)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('git-setting-unlisted');
  });
  it('names the key in its reason', async () => {
    expect(await reasons('git config remote.origin.mirror true')).toContain('remote.origin.mirror');
    expect(await reasons('git -c core.sharedRepository=0777 status')).toContain('core.sharedRepository');
  });
  const harmless = ['git config user.email dev@example.invalid', 'git config pull.rebase true', 'git -c user.name=bot commit -m wip', 'git config --get remote.origin.url', 'git config --list', 'git config core.autocrlf input', 'git config INIT.DEFAULTBRANCH main', 'git switch -c feature', 'git commit -c HEAD'];
  it.each(harmless)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('git-setting-unlisted');
  });
  it('reads the keys a command line writes', () => {
    expect(writtenGitSettings(['-C', 'x', '-c', 'a.b=1', 'config', '--file', 'f', 'c.d', 'v'])).toEqual(['a.b', 'c.d']);
    expect(writtenGitSettings(['config', 'c.d'])).toEqual([]);
    expect(writtenGitSettings(['switch', '-c', 'feature'])).toEqual([]);
  });
});

describe('class A: a listed git setting is written to this repository only', () => {
  const beyond = [
    'git config --global user.email dev@example.invalid',
    'git config --system pull.rebase true',
    'git config --file ../other/.git/config user.name bot',
    'git config --file=.gitconfig user.name bot',
    'git config -f team.cfg pull.ff only',
    'git config -fteam.cfg pull.ff only',
    'git config --worktree core.autocrlf input',
    'git config --glob user.name bot',
    'git config --sys color.ui auto',
    'git config set --global user.name bot',
    'git config --global --add user.email a@example.invalid',
    'git config --global --unset user.name',
    'git -C sub config --global user.name bot',
    'env git config --global user.name bot',
  ];
  it.each(beyond)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('git-setting-scope');
  });
  it('says where the write goes', async () => {
    expect(await reasons('git config --global user.email dev@example.invalid')).toContain('--global');
    expect(await reasons('git config --fil x.cfg user.name bot')).toContain('--file');
  });
  const local = ['git config user.email dev@example.invalid', 'git config --local pull.rebase true', 'git config --global --get user.name', 'git config --global --list', 'git config --file .gitmodules --get-regexp path', 'git -c user.name=bot commit -m wip', 'git clone --config user.name=bot src copy', 'git config --show-origin --get user.name'];
  it.each(local)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('git-setting-scope');
  });
});

describe('class B: arguments known only at run time, for programs with deny rules', () => {
  const hostile = [
    'echo -f | xargs git push origin main',
    'F=-f; git push $F origin main',
    'git push "$(printf -- -f)" origin main',
    'git push origin $BRANCH',
    'git push ${FLAG} origin main',
    'git reset $MODE HEAD~1',
    'echo --hard | xargs git reset',
    'chmod $MODE run.sh',
    'env git push $F origin',
    "sh -c 'git push $F origin main'",
    "find . -name '*.ts' -exec git add {} +",
    "find . -type f -execdir chmod {} \\;",
  ];
  it.each(hostile)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('runtime-arguments');
  });
  const harmless = ["git commit -m 'costs $5'", 'git push \\$F', 'echo $HOME', 'ls | xargs wc -l', 'npx vitest run', "find . -name '*.ts' -exec grep -n TODO {} +"];
  it.each(harmless)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('runtime-arguments');
  });
  it("checks what find's -exec runs as a command of its own", async () => {
    expect(await ids('find . -name x -exec git push -f origin main \\;')).toContain('force-push');
  });
});

describe('class B: unquoted globs are arguments known only at run time', () => {
  const hostile = [
    'git push origin *',
    'rm build/*',
    'rm -- *.log',
    'chmod 7?? *',
    'git push origin [a-z]*',
    'git push origin {main,--force}',
    'git push origin HEAD:refs/heads/{a,b}',
    'git checkout -- src/*.ts',
    'git add file?.txt',
    'env git push origin *',
    'cd src && git push origin *',
    "sh -c 'git push origin *'",
    'echo $(git push origin *)',
    'git push origin "$X"*',
    "git push origin 'a'*",
    'pytest tests/test_{a..c}.py',
    'echo 😀 && git add *',
    "echo '😀😀' && git push origin 'a' *",
  ];
  it.each(hostile)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('runtime-arguments');
  });
  it('says a glob is why', async () => {
    expect(await reasons('git push origin *')).toContain('unquoted glob');
  });
  const harmless = ["git push origin '*'", 'git push origin "*"', 'git push origin \\*', "git add 'src/*.ts'", "rm -rf 'dist'", 'git rebase @{u}', 'git show HEAD@{1}', 'ls src/*.ts', "find . -name '*.ts' -exec grep -n TODO {} +", 'git log --format="%h {a,b}"', "git commit -m 'fix *everything*?'", 'git stash show stash@{0}', "echo 😀 && git add 'src/*.ts'", "echo 'ü' && git push origin '*'"];
  it.each(harmless)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('runtime-arguments');
  });
});

describe('class C: nothing moved, copied or linked into a build directory', () => {
  const hostile = ['mv src dist/ && rm -rf dist', 'mv src dist', 'cp -r src build/', 'mv -t dist src', 'mv --target-directory=out lib', 'ln -s ../../src node_modules/x', 'git mv src dist/src', 'mv ./src ./dist/ ; rm -rf ./dist', 'cp -rt coverage src', 'git worktree add dist', 'git worktree add build/wt main'];
  it.each(hostile)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('into-build-dir');
  });
  const harmless = ['rm -rf dist', 'mv a.txt b.txt', 'cp .env.example .env.test', 'mv dist/app.js app.js', 'git mv old.ts new.ts', 'rm -rf node_modules && npm ci', 'git worktree add wt main'];
  it.each(harmless)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('into-build-dir');
  });
});

describe('class D: only listed environment assignments', () => {
  const hostile = [
    'LEFTHOOK=0 git commit -m wip',
    'OVERCOMMIT_DISABLE=1 git commit -m fix',
    'PYTEST_ADDOPTS="-k \'not auth\'" pytest',
    'env LEFTHOOK=0 git commit -m x',
    'export LEFTHOOK=0 && git commit -m x',
    'GIT_DIR=../other git status',
    'NODE_OPTIONS=--require=./hook.js npm test',
    'CI=false npm test',
    'NODE_ENV="$(cat .env)" npm test',
    'JEST_CONFIG=x npx jest',
    'HUSKY=0 git commit -m wip',
  ];
  it.each(hostile)('blocks %s', async (command) => {
    expect(await ids(command)).toContain('env-unlisted');
  });
  it('names the variable in its reason', async () => {
    expect(await reasons('PYTEST_ADDOPTS=-x pytest')).toContain('PYTEST_ADDOPTS');
    expect(await reasons('env OVERCOMMIT_DISABLE=1 git commit -m x')).toContain('OVERCOMMIT_DISABLE');
  });
  const harmless = ['CI=1 npm test', 'NODE_ENV=test npx vitest run', 'FORCE_COLOR=0 npm run build', 'NODE_OPTIONS=--max-old-space-size=4096 npm run build', 'PYTHONPATH=src pytest', 'GIT_PAGER=cat git log -1', 'npm ci'];
  it.each(harmless)('lets %s through', async (command) => {
    expect(await ids(command)).not.toContain('env-unlisted');
  });
});
