import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../pipeline/settings/resolve.js';
import { SleepCycleError } from '../../pipeline/model/errors.js';

const resolve = (fileText: string | undefined, env: Record<string, string> = {}, flags = {}) =>
  resolveSettings({ fileText, filePath: 'config/sleep-cycle.yaml', env, flags });

function errorOf(fn: () => unknown): SleepCycleError {
  try {
    fn();
  } catch (error) {
    return error as SleepCycleError;
  }
  throw new Error('expected an error');
}

describe('settings', () => {
  it('defaults < file < environment < flags, with the source of each value', () => {
    const { settings, sources } = resolve('min_repeats: 4\nwindow_days: 3\n', { SLEEP_CYCLE_MIN_REPEATS: '5', SLEEP_CYCLE_LOGS: 'a.jsonl, b.jsonl' }, { min_repeats: 6 });
    expect(settings).toMatchObject({ min_repeats: 6, window_days: 3, slow_factor: 2, logs: ['a.jsonl', 'b.jsonl'] });
    expect(sources).toMatchObject({ min_repeats: 'flag', window_days: 'file', slow_factor: 'default', logs: 'env' });
  });

  it('an unknown key is E_CONFIG with a did-you-mean hint', () => {
    const error = errorOf(() => resolve('min_repeat: 3\n'));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('unknown setting "min_repeat"');
    expect(error.message).toContain('Did you mean "min_repeats"?');
  });

  it.each([
    ['min_repeats: 0\n', {}, 'min_repeats'],
    ['slow_factor: fast\n', {}, 'slow_factor'],
    ['routing:\n  git_push: "../../etc"\n', {}, 'routing'],
    [undefined, { SLEEP_CYCLE_WINDOW_DAYS: 'week' }, 'SLEEP_CYCLE_WINDOW_DAYS'],
    // The error quotes what was written, not NaN (which JSON shows as null).
    [undefined, { SLEEP_CYCLE_INGEST_WORKER_MIN_MB: 'lots' }, 'found lots'],
    ['min_repeats: [\n', {}, 'not valid YAML'],
  ])('an invalid value is E_CONFIG naming it, never a silent default (%s %o)', (file, env, mention) => {
    const error = errorOf(() => resolve(file, env as Record<string, string>));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain(mention);
  });
});
