import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mayNameProgram, PROGRAM_SETTINGS } from '../../pipeline/io/git-program-settings.js';
import { configOverrides, FIXED_SAFE_CONFIG, LOCAL_PACK_ARGS, parseConfigListing, PROBED_KEYS } from '../../pipeline/io/git-safety.js';

/** The setting names the installed git documents (`git help --config`: built into git, no manual pages needed). */
const documented = execFileSync('git', ['help', '--config'], { encoding: 'utf8' }).split('\n').map((key) => key.trim().toLowerCase()).filter(Boolean);

/** A key of the table with its placeholders filled in, as a config listing prints it. */
const concrete = (key: string) => key.replace('<driver>', 'evil').replace('<name>', 'origin').replace('<url>', 'https://example.com');

describe('every git setting that names a program is accounted for (pipeline/io/git-program-settings.ts)', () => {
  it('places each setting of the installed git whose name says program, command, helper, hook, editor, pager, tool… in the table', () => {
    const programs = documented.filter(mayNameProgram);
    // The list git prints is long (hundreds of names); the selection finds the known execution points in it.
    expect(documented.length).toBeGreaterThan(300);
    for (const known of ['core.hookspath', 'core.alternaterefscommand', 'core.sshcommand', 'credential.helper', 'remote.<name>.vcs', 'uploadpack.packobjectshook']) expect(programs).toContain(known);
    expect(programs.filter((key) => !(key in PROGRAM_SETTINGS))).toEqual([]);
  });

  it('sets every fixed one on each command, and the remote ones on the other side of a local push and fetch', () => {
    const setKeys = FIXED_SAFE_CONFIG.map((setting) => setting.slice(0, setting.indexOf('=')).toLowerCase());
    for (const [key, entry] of Object.entries(PROGRAM_SETTINGS).filter(([, entry]) => entry.how === 'fixed')) {
      expect(entry.settings?.length, key).toBeGreaterThan(0);
      for (const setting of entry.settings!) {
        expect(setKeys, `${key}: ${setting}`).toContain(setting.toLowerCase());
        if (entry.remote) for (const side of [LOCAL_PACK_ARGS.push, LOCAL_PACK_ARGS.fetch]) expect(side.toLowerCase(), `${key} on the remote side`).toContain(` -c ${setting.toLowerCase()}=`);
      }
    }
  });

  it("overrides the repository's value of every probed one (each is read by the probe, and a local value gets a -c)", () => {
    const probe = new RegExp(PROBED_KEYS);
    for (const key of Object.keys(PROGRAM_SETTINGS).filter((k) => PROGRAM_SETTINGS[k]!.how === 'probed')) {
      const name = concrete(key);
      expect(probe.test(name), `${name} is read by the probe`).toBe(true);
      const value = key === 'remote.<name>.vcs' ? 'x/../run.sh' : '/tmp/evil';
      const { settings } = configOverrides(parseConfigListing(`local\0${name}\n${value}\0`));
      expect(settings.some((setting) => setting.toLowerCase().startsWith(`${name.toLowerCase()}=`)), `${name}: ${settings.join(' ')}`).toBe(true);
    }
  });
});
