import { describe, expect, it } from 'vitest';
import { parseCommandPolicy } from '../../pipeline/safety/command-policy.js';
import { safeguardFindings } from '../../pipeline/safety/safeguard-check.js';

const SAFEGUARDS = { objects: ['hook*', 'remote', 'working tree'], defeats: ['skip*', 'without', 'turn* off', 'leave * out'], identities: ['root', 'admin*'], except: ['repository root'] };
const ids = (prose: string) => safeguardFindings(prose, SAFEGUARDS).map((f) => f.id);

describe('safeguards described in words', () => {
  it('refuses a sentence that names a safeguard with an operation that defeats it (prefixes, phrases, a wildcard word)', () => {
    expect(ids('When the commit fails, commit without letting the hooks run.')).toEqual(['safeguard-defeated']);
    expect(ids('Retry, and turn the pre-commit hooks off.')).toEqual([]);
    expect(ids('Retry, and turning off the hooks helps.')).toEqual(['safeguard-defeated']);
    expect(ids('Leave hooks out of it.')).toEqual(['safeguard-defeated']);
    expect(ids('Clean the working tree without deleting anything.')).toEqual(['safeguard-defeated']);
  });

  it('judges each sentence alone, and a tool name as one word', () => {
    expect(ids('Pull from the remote first. Skip the long build when iterating.')).toEqual([]);
    expect(ids('When git_hooks fails, skip the cache.')).toEqual([]);
  });

  it('refuses a privileged identity, but not an except phrase', () => {
    expect(ids('Rerun it as root.')).toEqual(['privileged-identity']);
    expect(ids('Ask an administrator.')).toEqual(['privileged-identity']);
    expect(ids('Run pytest from the repository root.')).toEqual([]);
  });
});

describe('commands.safeguards in the policy file', () => {
  const base = { programs: { git: ['status'] }, launchers: [], wrappers: [], build_dirs: [], hosts: [], actions: ['run'], concepts: ['force'], deny: [] };

  it('is read with its four lists (except optional), and a policy without it checks no safeguards', () => {
    const problems: unknown[] = [];
    expect(parseCommandPolicy({ ...base, safeguards: { objects: ['hook*'], defeats: ['skip*'], identities: ['root'] } }, problems as never)?.safeguards).toEqual({ objects: ['hook*'], defeats: ['skip*'], identities: ['root'], except: [] });
    expect(parseCommandPolicy(base, problems as never)?.safeguards).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('names an unknown key and a list that is not one', () => {
    const problems: { rule: string; expected: string }[] = [];
    expect(parseCommandPolicy({ ...base, safeguards: { objects: 'hooks', defeats: ['skip*'], identities: ['root'], verbs: [] } }, problems as never)).toBeUndefined();
    expect(problems.map((p) => p.expected).join('\n')).toMatch(/only the keys objects, defeats, identities, except[\s\S]*commands\.safeguards\.objects to be a list/);
  });
});
