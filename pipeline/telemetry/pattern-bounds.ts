/**
 * Whether a settings pattern (error_categories) can backtrack without bound. A repository's own config
 * supplies these patterns and they run on every failure a night classifies, so a pattern such as
 * `^(a+)+$` would hold a night for hours on forty characters. Refused by construction, on the pattern's
 * source (JavaScript's legacy syntax, flags `im`):
 * - a backreference (`\1`, `\k<name>`): matching one is not even polynomial;
 * - a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 10) on a group that itself repeats or
 *   alternates (`(a+)+`, `(a|aa)*`, `(?:\w+\s?)*`): the exponential case;
 * - more than one unbounded quantifier (`.*foo.*bar`): each adds a power of the text's length.
 * What is left runs in at most about n² steps per start on the at most 8 KB a classifier reads.
 * Returns the reason a pattern is refused, or null.
 */
export function backtrackRisk(source: string): string | null {
  const frames: { repeats: boolean; alternates: boolean }[] = [{ repeats: false, alternates: false }];
  let unbounded = 0;
  /** The atom a quantifier would apply to: a group (with what it holds) or a single character. */
  let atom: { repeats: boolean; alternates: boolean } | 'char' | null = null;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) return 'it uses a backreference';
      i += 1;
      atom = 'char';
    } else if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j += 1;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      atom = 'char';
    } else if (c === '(') {
      frames.push({ repeats: false, alternates: false });
      const prefix = /^\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i + 1));
      if (prefix) i += prefix[0].length;
      atom = null;
    } else if (c === ')') {
      const inner = frames.length > 1 ? frames.pop()! : { repeats: false, alternates: false };
      const outer = frames.at(-1)!;
      outer.repeats ||= inner.repeats;
      atom = inner;
    } else if (c === '|') {
      frames.at(-1)!.alternates = true;
      atom = null;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(?:,\d*)?\}/.test(source.slice(i)))) {
      let repeats: boolean;
      let endless: boolean;
      if (c === '{') {
        const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}/.exec(source.slice(i))!;
        endless = comma === ',' && high === '';
        repeats = endless || (comma === ',' && Number(high) > 10) || (comma === '' && Number(low) > 10);
        i = source.indexOf('}', i);
      } else {
        endless = c !== '?';
        repeats = endless;
      }
      if (source[i + 1] === '?') i += 1; // lazy: the same steps in another order
      if (repeats && atom !== null && atom !== 'char' && (atom.repeats || atom.alternates)) return 'a repeated group itself repeats or alternates (nested quantifiers backtrack exponentially)';
      if (endless) unbounded += 1;
      if (unbounded > 1) return 'it has more than one unbounded quantifier (*, + or {n,}); write one pattern per alternative, or bound them ({0,80})';
      if (repeats) frames.at(-1)!.repeats = true;
      atom = null;
    } else {
      atom = 'char';
    }
  }
  return null;
}
