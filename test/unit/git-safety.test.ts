import { describe, expect, it } from 'vitest';
import { configOverrides, parseConfigListing } from '../../pipeline/io/git-safety.js';

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

  it('refuses a key that cannot be written as -c key=value', () => {
    expect(configOverrides(parseConfigListing(listing(['local', 'filter.a=b.clean', 'x']))).refused).toEqual(['filter.a=b.clean']);
  });
});
