/** A bounded quantifier that can take more characters than this backtracks like an unbounded one. */
export const LARGE_REACH = 100;

/** What a group holds: whether something in it repeats or alternates, and the largest reach of a quantifier in it. */
interface Frame {
  repeats: boolean;
  alternates: boolean;
  reach: number;
}

const newFrame = (): Frame => ({ repeats: false, alternates: false, reach: 1 });

/**
 * Whether a settings pattern (error_categories) can backtrack without bound. A repository's own config
 * supplies these patterns and they run on every failure a night classifies, so a pattern such as
 * `^(a+)+$` would hold a night for hours on forty characters. Refused by construction, on the pattern's
 * source (JavaScript's legacy syntax, flags `im`):
 * - a backreference (`\1`, `\k<name>`): matching one is not even polynomial;
 * - a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 10) on a group that itself repeats or
 *   alternates (`(a+)+`, `(a|aa)*`, `(?:\w+\s?)*`): the exponential case;
 * - more than one unbounded quantifier (`.*foo.*bar`): each adds a power of the text's length. A bounded
 *   quantifier counts as unbounded when its reach is large: its upper bound times the bounds of the
 *   quantifiers inside what it repeats over LARGE_REACH (`\w{0,30000}\d{0,30000}!` is two of them,
 *   n² per start on the 8 KB a classifier reads; `((a{0,10}){0,10}){0,10}` reaches 1,000).
 * What is left runs in at most about n² steps per start on the at most 8 KB a classifier reads.
 * Returns the reason a pattern is refused, or null.
 */
export function backtrackRisk(source: string): string | null {
  const frames: Frame[] = [newFrame()];
  let unbounded = 0;
  /** The atom a quantifier would apply to: a group (with what it holds) or a single character. */
  let atom: Frame | 'char' | null = null;
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
      frames.push(newFrame());
      const prefix = /^\?(?:[:=!]|<[=!]|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i + 1));
      if (prefix) i += prefix[0].length;
      atom = null;
    } else if (c === ')') {
      const inner = frames.length > 1 ? frames.pop()! : newFrame();
      const outer = frames.at(-1)!;
      outer.repeats ||= inner.repeats;
      outer.reach = Math.max(outer.reach, inner.reach);
      atom = inner;
    } else if (c === '|') {
      frames.at(-1)!.alternates = true;
      atom = null;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(?:,\d*)?\}/.test(source.slice(i)))) {
      let repeats: boolean;
      let endless: boolean;
      let bound: number;
      if (c === '{') {
        const [, low, comma, high] = /^\{(\d+)(,?)(\d*)\}/.exec(source.slice(i))!;
        endless = comma === ',' && high === '';
        bound = endless ? Infinity : Number(comma === '' ? low : high);
        repeats = bound > 10;
        i = source.indexOf('}', i);
      } else {
        endless = c !== '?';
        bound = endless ? Infinity : 1;
        repeats = endless;
      }
      // How many characters the quantifier can take: its bound times the reach of what it repeats.
      const reach = bound * (atom !== null && atom !== 'char' ? atom.reach : 1);
      const large = endless || reach > LARGE_REACH;
      if (source[i + 1] === '?') i += 1; // lazy: the same steps in another order
      if (repeats && atom !== null && atom !== 'char' && (atom.repeats || atom.alternates)) return 'a repeated group itself repeats or alternates (nested quantifiers backtrack exponentially)';
      if (large) unbounded += 1;
      if (unbounded > 1) return `it has more than one unbounded or large quantifier (*, +, {n,}, or a bound that reaches over ${LARGE_REACH} characters, such as {0,1000}); write one pattern per alternative, or bound them ({0,80})`;
      if (repeats) frames.at(-1)!.repeats = true;
      frames.at(-1)!.reach = Math.max(frames.at(-1)!.reach, reach);
      atom = null;
    } else {
      atom = 'char';
    }
  }
  return null;
}
