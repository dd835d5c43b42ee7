/** A file the run will write, with its full new content. */
export interface FileChange {
  path: string;
  role: 'memory' | 'skill' | 'archive' | 'audit' | 'state';
  content: string;
}
