import { resolve } from 'node:path';
import { assertDistinctRunPaths, type NamedPath } from '../io/output-paths.js';
import type { Settings } from '../settings/schema.js';
import { CONFIG_FILE } from '../settings/resolve.js';
import { HOOK_INDEX_FILE, PENDING_FILE, REJECTS_FILE, REMINDED_FILE } from './hook-day.js';
import { HOOK_KEYS_FILE } from './hook-keys.js';
import { SESSION_CACHE_FILE } from './hook-session-cache.js';
import { SETTINGS_CACHE_FILE } from './hook-settings.js';

/**
 * The hook appends to the first log and writes its tables in the state folder on every tool call; none of
 * them may be a file the night writes (settings `logs: [MEMORY.md]` would put a JSON line into the human
 * notes on each call, a pending lock that is MEMORY.md would be removed as stale). Null when each is a
 * file of its own; else the reason, and the hook writes nothing (not even a rejects line: that file may be
 * the one in question). The night fails on the same settings with E_CONFIG or E_IO and says how to fix them.
 */
export function hookPathsProblem(root: string, settings: Settings): string | null {
  const inState = (file: string): NamedPath => ({ setting: `state_dir (${file})`, path: resolve(root, settings.state_dir, file) });
  const outputs = [PENDING_FILE, `${PENDING_FILE}.lock`, REJECTS_FILE, REMINDED_FILE, HOOK_KEYS_FILE, HOOK_INDEX_FILE, SESSION_CACHE_FILE].map(inState);
  outputs.push({ setting: `.sleep-cycle (${SETTINGS_CACHE_FILE})`, path: resolve(root, '.sleep-cycle', SETTINGS_CACHE_FILE) });
  try {
    assertDistinctRunPaths(root, settings, [], CONFIG_FILE, { outputs });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
