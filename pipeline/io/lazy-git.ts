import type { GitPort } from './git.js';

let adapter: Promise<GitPort> | undefined;
const load = (): Promise<GitPort> => (adapter ??= import('./git.js').then((module) => module.simpleGitPort));

/**
 * The git adapter (git.ts), loaded at its first call. A plain dry run, the pre-session hook's, asks git
 * nothing, and loading the adapter with what it needs (simple-git's wrapper, the hostile-repository
 * checks of git's files, `node:crypto`, `node:fs/promises`) was ~20 ms of CPU at the start of each one.
 */
export const lazyGitPort: GitPort = {
  inspect: async (...args) => (await load()).inspect(...args),
  readHead: async (...args) => (await load()).readHead(...args),
  resolve: async (...args) => (await load()).resolve(...args),
  commitFiles: async (...args) => (await load()).commitFiles(...args),
  pushBranch: async (...args) => (await load()).pushBranch(...args),
  foreignCommits: async (...args) => (await load()).foreignCommits(...args),
  fetchBranch: async (...args) => (await load()).fetchBranch(...args),
  repairIndex: async (...args) => (await load()).repairIndex(...args),
};
