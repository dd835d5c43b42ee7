import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHookSettings, SETTINGS_CACHE_FILE } from '../../pipeline/cli/hook-settings.js';
import { nodeFs } from '../../pipeline/io/fs.js';
import { makeDir } from '../helpers/repo.js';

describe('the hook settings cache', () => {
  const cache = (dir: string) => join(dir, '.sleep-cycle', SETTINGS_CACHE_FILE);

  it('parses the YAML once, reuses it while the file is unchanged, and parses again when it changes', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'context_budget_chars: 300\n' });
    expect((await loadHookSettings(dir, { fs: nodeFs, env: {} })).context_budget_chars).toBe(300);
    const kept = JSON.parse(readFileSync(cache(dir), 'utf8'));
    expect(kept).toMatchObject({ version: 2, source: 'context_budget_chars: 300\n', data: { context_budget_chars: 300 } });
    // The cache answers for the same text (a marker value proves it was read, not the YAML).
    writeFileSync(cache(dir), JSON.stringify({ ...kept, data: { context_budget_chars: 301 } }));
    expect((await loadHookSettings(dir, { fs: nodeFs, env: {} })).context_budget_chars).toBe(301);
    writeFileSync(join(dir, 'config/sleep-cycle.yaml'), 'context_budget_chars: 500\n');
    expect((await loadHookSettings(dir, { fs: nodeFs, env: {} })).context_budget_chars).toBe(500);
    // The environment still wins over the file, cached or not.
    expect((await loadHookSettings(dir, { fs: nodeFs, env: { SLEEP_CYCLE_CONTEXT_BUDGET_CHARS: '40' } })).context_budget_chars).toBe(40);
  });

  it('checks cached values as it checks the file: a hand-edited cache cannot hold what the file could not', async () => {
    const dir = makeDir({ 'config/sleep-cycle.yaml': 'context_budget_chars: 300\n' });
    await loadHookSettings(dir, { fs: nodeFs, env: {} });
    const kept = JSON.parse(readFileSync(cache(dir), 'utf8'));
    writeFileSync(cache(dir), JSON.stringify({ ...kept, data: { context_budget_chars: -5 } }));
    expect((await loadHookSettings(dir, { fs: nodeFs, env: {} })).context_budget_chars).toBe(300);
    expect(JSON.parse(readFileSync(cache(dir), 'utf8'))).toEqual(kept);
    // A broken file is still an error (the hook records with defaults and says why in its rejects file).
    writeFileSync(join(dir, 'config/sleep-cycle.yaml'), 'context_budget_chars: -5\n');
    await expect(loadHookSettings(dir, { fs: nodeFs, env: {} })).rejects.toMatchObject({ code: 'E_CONFIG' });
  });

  it('no settings file: defaults, and no cache written', async () => {
    const dir = makeDir({});
    expect((await loadHookSettings(dir, { fs: nodeFs, env: {} })).context_budget_chars).toBe(2000);
    expect(() => readFileSync(cache(dir))).toThrow();
  });
});
