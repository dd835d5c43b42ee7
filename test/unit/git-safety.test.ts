import { describe, expect, it } from 'vitest';
import { configOverrides, gitEnvironment, isLocalUrl, LOCAL_PACK_ARGS, parseConfigListing } from '../../pipeline/io/git-safety.js';

const listing = (...entries: [string, string, string][]) => entries.map(([scope, key, value]) => `${scope}\0${key}\n${value}\0`).join('');

describe('git settings that run programs', () => {
  it('disables every filter and diff driver, whatever file set it, keeping the driver name as written', () => {
    const entries = parseConfigListing(listing(['local', 'filter.Evil.clean', 'touch /tmp/x'], ['global', 'filter.lfs.process', 'git-lfs filter-process'], ['local', 'diff.a.b.textconv', 'sh']));
    expect(configOverrides(entries)).toEqual({
      settings: [
        'filter.Evil.clean=', 'filter.Evil.smudge=', 'filter.Evil.process=', 'filter.Evil.required=false',
        'filter.lfs.clean=', 'filter.lfs.smudge=', 'filter.lfs.process=', 'filter.lfs.required=false',
        'diff.a.b.textconv=', 'diff.a.b.command=',
      ],
      refused: [],
    });
  });

  it("replaces the repository's credential helpers and ssh command, and keeps the user's own", () => {
    const entries = parseConfigListing(listing(
      ['global', 'credential.helper', 'osxkeychain'], ['local', 'credential.helper', '!evil'],
      ['local', 'credential.https://example.com.helper', '!evil2'], ['local', 'core.sshcommand', 'evil-ssh'],
    ));
    expect(configOverrides(entries).settings).toEqual([
      'credential.helper=', 'credential.helper=osxkeychain', 'credential.https://example.com.helper=', 'core.sshCommand=ssh',
    ]);
    // The user's own (global) settings alone need no override.
    expect(configOverrides(parseConfigListing(listing(['global', 'credential.helper', 'osxkeychain']))).settings).toEqual([]);
  });

  it("empties a remote helper the repository names by a path (git would run it from the work tree); a plain helper name and the user's own stay", () => {
    const repoPath = parseConfigListing(listing(['local', 'remote.origin.vcs', 'x/../.tools/run.sh']));
    expect(configOverrides(repoPath).settings).toEqual(['remote.origin.vcs=']);
    expect(configOverrides(parseConfigListing(listing(['local', 'remote.origin.vcs', 'codecommit']))).settings).toEqual([]);
    const userToo = parseConfigListing(listing(['global', 'remote.origin.vcs', 'hg'], ['local', 'remote.origin.vcs', '../run']));
    expect(configOverrides(userToo).settings).toEqual(['remote.origin.vcs=hg']);
  });

  it('refuses a key that cannot be written as -c key=value', () => {
    expect(configOverrides(parseConfigListing(listing(['local', 'filter.a=b.clean', 'x']))).refused).toEqual(['filter.a=b.clean']);
  });

  it('tells the local transport (a path, file://) from servers, as git does', () => {
    for (const url of ['/srv/git/app.git', './vendor/mirror.git', '../mirror', 'mirror.git', 'file:///srv/app.git', 'FILE://x', 'dir/with:colon']) expect(isLocalUrl(url), url).toBe(true);
    for (const url of ['https://github.com/a/b.git', 'ssh://git@host/a.git', 'git://host/a', 'git@github.com:a/b.git', 'host:path/x', 'ext::sh -c x', 'persistent-https::x']) expect(isLocalUrl(url), url).toBe(false);
  });

  it('runs the other side of a local transport with hooks, checkout and gc off, through a command a shell reads as written', () => {
    for (const arg of [LOCAL_PACK_ARGS.push, LOCAL_PACK_ARGS.fetch]) {
      expect(arg).toMatch(/^--(receive|upload)-pack=git -c core\.hooksPath=\/dev\/null /);
      // No quote, space inside a value, or shell character: the shell splits it exactly at our spaces.
      expect(arg.split('=').slice(1).join('=')).toMatch(/^[\w ./=-]+$/);
    }
    expect(LOCAL_PACK_ARGS.push).toContain('receive.denyCurrentBranch=refuse');
    expect(LOCAL_PACK_ARGS.push).toMatch(/ receive-pack$/);
  });

  it("overrides core.gitProxy, which a -c cannot, through the environment only when the repository sets it; the user's variable stays", () => {
    const repoProxy = parseConfigListing(listing(['local', 'core.gitproxy', 'evil for host']));
    const userProxy = parseConfigListing(listing(['global', 'core.gitproxy', 'corp-proxy']));
    expect(gitEnvironment({ PATH: '/bin' }, repoProxy).GIT_PROXY_COMMAND).toBe('');
    expect(gitEnvironment({ PATH: '/bin' }, userProxy).GIT_PROXY_COMMAND).toBeUndefined();
    expect(gitEnvironment({ PATH: '/bin', GIT_PROXY_COMMAND: 'mine' }, repoProxy).GIT_PROXY_COMMAND).toBe('mine');
    const env = gitEnvironment({ PATH: '/bin', GIT_EXTERNAL_DIFF: 'differ', HOME: '/h' }, []);
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' });
  });
});
