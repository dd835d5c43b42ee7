import { resolve } from 'node:path';
import type { FileChange } from '../model/file-change.js';
import type { FsPort } from './fs.js';

/** Writes file changes in order, each atomically. Shared by `run` and `review`. */
export async function applyChanges(ctx: { fs: FsPort; root: string }, changes: FileChange[]): Promise<void> {
  for (const change of changes) {
    const path = resolve(ctx.root, change.path);
    // Temp files a killed run left next to this file: never renamed into place, safe to drop.
    await ctx.fs.removeStaleTemps(path);
    await ctx.fs.writeAtomic(path, change.content);
  }
}
