/**
 * The first, cheap half of template mining, run on every failure's error line: a token that holds a digit
 * (a number, a line number, a port, a timestamp, an id, a versioned or numbered file name) is a variable
 * and becomes `<*>`. Two lines that differ only there are one line to the miner, so a night's clusters
 * are keyed by masked lines (few) rather than raw ones (many), and the miner runs once per masked line.
 * It only ever merges what any template would merge: the miner masks such tokens too.
 */
export const WILDCARD = '<*>';

/** The line with every whitespace-separated token that contains a digit replaced by `<*>`. */
export function maskVariables(line: string): string {
  if (!hasDigit(line)) return line;
  const tokens = line.split(' ');
  for (let i = 0; i < tokens.length; i++) if (hasDigit(tokens[i]!)) tokens[i] = WILDCARD;
  return tokens.join(' ');
}

function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}
