/**
 * Whether a word, as written in the source (quotes and backslashes still in it), holds a pattern the shell
 * expands into file names: an unquoted `*`, `?` or `[…]`, or a brace expansion (`{a,b}`, `{1..3}`).
 * The shell parser we use removes quotes and does not mark globs, so `'*'` (a literal star) and `*` (every
 * file name, `-f` and `--force` included) reach us as the same text: only the source tells them apart.
 * Expansions (`$…`, `` `…` ``) are skipped: they are judged as expansions, and their insides are other words.
 */
export function hasUnquotedGlob(raw: string): boolean {
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i]!;
    if (quote === "'") {
      if (char === "'") quote = null;
      continue;
    }
    if (char === '\\') {
      i += 1;
      continue;
    }
    if (char === '"') {
      quote = quote === '"' ? null : '"';
      continue;
    }
    if (char === '$' || char === '`') {
      i = endOfExpansion(raw, i);
      continue;
    }
    if (quote === '"') continue;
    if (char === "'") quote = "'";
    else if (char === '*' || char === '?') return true;
    else if (char === '[' && closes(raw, i, '[', ']', () => true)) return true;
    else if (char === '{' && closes(raw, i, '{', '}', (inside) => /,|\.\./.test(inside))) return true;
  }
  return false;
}

/** The index of the last character of `$x`, `${…}`, `$(…)`, `$((…))` or `` `…` `` starting at `at`. */
function endOfExpansion(raw: string, at: number): number {
  if (raw[at] === '`') {
    const end = raw.indexOf('`', at + 1);
    return end < 0 ? raw.length : end;
  }
  const open = raw[at + 1];
  if (open === '(' || open === '{') return matching(raw, at + 1, open, open === '(' ? ')' : '}');
  const name = /^(?:[A-Za-z_]\w*|[0-9@*#?$!-])/.exec(raw.slice(at + 1));
  return at + (name?.[0].length ?? 0);
}

function matching(raw: string, at: number, open: string, close: string): number {
  let depth = 0;
  for (let i = at; i < raw.length; i += 1) {
    if (raw[i] === '\\') i += 1;
    else if (raw[i] === open) depth += 1;
    else if (raw[i] === close && (depth -= 1) === 0) return i;
  }
  return raw.length;
}

/** An unquoted closing bracket after `at`, with what lies between passing `inside` (a brace needs `,` or `..`). */
function closes(raw: string, at: number, open: string, close: string, inside: (text: string) => boolean): boolean {
  const end = matching(raw, at, open, close);
  if (end >= raw.length) return false;
  const between = raw.slice(at + 1, end);
  return !/['"\\]/.test(between) ? inside(between) : inside(between.replace(/'[^']*'|"[^"]*"|\\./g, ''));
}
