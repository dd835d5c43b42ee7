/**
 * A shell command line → its simple commands (words, with quotes removed and redirections dropped), each
 * with the operator that follows it. Enough of POSIX sh to find which programs a line runs: quotes and
 * escapes, `&&` `||` `|` `;` `&` and newlines, subshell parentheses, comments, redirections (`2>&1`,
 * `>file`, `&>>log`) and heredocs (whose bodies are data, not commands). `$(…)`, backquotes and `${…}`
 * stay inside their word, unparsed. Not an interpreter: no expansion, no aliases, no functions.
 *
 * Written here rather than taken from shell-quote: that package knows no heredocs (a `cat <<'EOF'` body
 * of Python would come out as commands, and agents write files that way all the time), expands `$VAR` to
 * empty unless given an environment, and the shared install has no room for a new dependency.
 * Linear in the input: every character is looked at a bounded number of times.
 */
export interface SimpleCommand {
  words: string[];
  /** The operator after this command (`&&`, `||`, `|`, `;`, `&`, `(`, `)`), or null at the end. */
  next: string | null;
}

/** Longest line read: a command line past this is summarised, not parsed whole. */
const MAX_CHARS = 16_384;

export function simpleCommands(line: string): SimpleCommand[] {
  return new Tokenizer(line.length > MAX_CHARS ? line.slice(0, MAX_CHARS) : line).run();
}

const OPERATORS = ['&&', '||', '|&', ';;', '|', ';', '&', '(', ')'] as const;
const REDIRECT = /^(?:\d*(?:>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)|&>>|&>)/;

class Tokenizer {
  private i = 0;
  private words: string[] = [];
  private readonly out: SimpleCommand[] = [];
  /** Heredoc delimiters waiting for the end of the current line, in order. */
  private heredocs: { word: string; stripTabs: boolean }[] = [];
  /** The next word is a redirection's target, not an argument. */
  private target = false;

  constructor(private readonly s: string) {}

  run(): SimpleCommand[] {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\r') this.i += 1;
      else if (c === '\n') this.newline();
      else if (c === '#') this.skipComment();
      // Redirections first: `&>` starts like the operator `&`.
      else if (!this.redirection() && !this.operator()) this.word();
    }
    this.end(null);
    return this.out;
  }

  private newline(): void {
    this.i += 1;
    this.skipHeredocBodies();
    this.end(';');
  }

  private skipComment(): void {
    while (this.i < this.s.length && this.s[this.i] !== '\n') this.i += 1;
  }

  private operator(): boolean {
    const op = OPERATORS.find((candidate) => this.s.startsWith(candidate, this.i));
    if (op === undefined) return false;
    this.i += op.length;
    this.end(op === ';;' ? ';' : op === '|&' ? '|' : op);
    return true;
  }

  private redirection(): boolean {
    const match = REDIRECT.exec(this.s.slice(this.i, this.i + 4));
    if (match === null) return false;
    const op = match[0];
    this.i += op.length;
    // `2>&1`, `>&2`: the target is a descriptor, part of the operator.
    if (op.endsWith('&') && /\d|-/.test(this.s[this.i] ?? '')) {
      while (/[\d-]/.test(this.s[this.i] ?? '')) this.i += 1;
      return true;
    }
    if (!op.endsWith('<<<') && (op.endsWith('<<') || op.endsWith('<<-'))) {
      this.skipBlanks();
      const delimiter = this.readWord();
      if (delimiter !== '') this.heredocs.push({ word: delimiter, stripTabs: op.endsWith('-') });
      return true;
    }
    this.target = true;
    return true;
  }

  private word(): void {
    const text = this.readWord();
    if (this.target) this.target = false;
    else if (text !== '' || this.s[this.i - 1] === "'" || this.s[this.i - 1] === '"') this.words.push(text);
  }

  /** One word from `i`: quotes removed, escapes resolved, `$(…)` `${…}` and backquotes kept as written. */
  private readWord(): string {
    const s = this.s;
    let text = '';
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '<' || c === '>') break;
      if (c === "'") text += this.until("'");
      else if (c === '"') text += this.doubleQuoted();
      else if (c === '\\') {
        const next = s[this.i + 1];
        this.i += 2;
        if (next !== undefined && next !== '\n') text += next;
      } else if (c === '$' && (s[this.i + 1] === '(' || s[this.i + 1] === '{')) text += this.balanced();
      else if (c === '`') text += `\`${this.until('`')}\``;
      else {
        text += c;
        this.i += 1;
      }
    }
    return text;
  }

  /** From an opening quote to its closing one (or the end): the text between. */
  private until(quote: string): string {
    const end = this.s.indexOf(quote, this.i + 1);
    const stop = end < 0 ? this.s.length : end;
    const text = this.s.slice(this.i + 1, stop);
    this.i = stop + 1;
    return text;
  }

  private doubleQuoted(): string {
    const s = this.s;
    let text = '';
    this.i += 1;
    while (this.i < s.length && s[this.i] !== '"') {
      if (s[this.i] === '\\' && /["\\$`\n]/.test(s[this.i + 1] ?? '')) {
        if (s[this.i + 1] !== '\n') text += s[this.i + 1];
        this.i += 2;
      } else if (s[this.i] === '$' && s[this.i + 1] === '(') {
        text += this.balanced();
      } else {
        text += s[this.i];
        this.i += 1;
      }
    }
    this.i += 1;
    return text;
  }

  /** `$(…)` or `${…}` with what it nests, as written (its inside is not parsed). */
  private balanced(): string {
    const s = this.s;
    const start = this.i;
    const open = s[this.i + 1]!;
    const close = open === '(' ? ')' : '}';
    let depth = 0;
    this.i += 1;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\\') this.i += 1;
      else if (c === "'" && open === '(') this.i = skipTo(s, "'", this.i + 1);
      else if (c === '"') this.i = skipDoubleQuoted(s, this.i + 1);
      else if (c === open) depth += 1;
      else if (c === close && --depth === 0) break;
      this.i += 1;
    }
    this.i = Math.min(this.i + 1, s.length);
    return s.slice(start, this.i);
  }

  private skipBlanks(): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i += 1;
  }

  /** After a newline: the bodies of the heredocs opened on the line before, up to each delimiter line. */
  private skipHeredocBodies(): void {
    for (const { word, stripTabs } of this.heredocs) {
      while (this.i < this.s.length) {
        const eol = this.s.indexOf('\n', this.i);
        const stop = eol < 0 ? this.s.length : eol;
        const lineText = this.s.slice(this.i, stop).replace(/\r$/, '');
        this.i = stop + 1;
        if ((stripTabs ? lineText.replace(/^\t+/, '') : lineText) === word) break;
      }
    }
    this.heredocs = [];
  }

  private end(next: string | null): void {
    this.target = false;
    if (this.words.length > 0) this.out.push({ words: this.words, next });
    this.words = [];
  }
}

/** The position of the `"` that closes a double-quoted string opened before `from` (escapes skipped). */
function skipDoubleQuoted(s: string, from: number): number {
  let i = from;
  while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
  return Math.min(i, s.length);
}

/** The position of `quote` from `from`, or the end of `s` when it never comes. */
function skipTo(s: string, quote: string, from: number): number {
  const at = s.indexOf(quote, from);
  return at < 0 ? s.length : at;
}
