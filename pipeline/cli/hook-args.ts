/** A hook command line the small entry takes: `hook <agent>` with `--root <dir>` and `--json`, in any order. */
export interface HookArgs {
  agent: string;
  root?: string;
  json: boolean;
}

/**
 * The hook's command line, or null for anything else (help, an unknown flag, another command), which
 * the full CLI handles (and reports) as before.
 */
export function hookArgs(argv: readonly string[]): HookArgs | null {
  const words: string[] = [];
  let root: string | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--root' && i + 1 < argv.length) root = argv[++i];
    else if (arg.startsWith('--root=')) root = arg.slice('--root='.length);
    else if (arg.startsWith('-')) return null;
    else words.push(arg);
  }
  if (words.length !== 2 || words[0] !== 'hook') return null;
  return { agent: words[1]!, json, ...(root !== undefined ? { root } : {}) };
}
