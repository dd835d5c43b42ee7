import type { PromotedCluster } from '../model/cluster.js';

/**
 * Whether a code span of a model-written rule is a quote of the cluster's own error text (issue 14 item 4).
 * A span of words used to count as a quote because it did not look like a command, so `run0 <tool>` (a
 * program the policy does not know) passed as "error text" and its words were read as a noun. By
 * construction now: a span is a quote only when its words occur, in order and contiguous, in one of the
 * error texts the rule is about (the cluster's templates, signatures and redacted evidence messages);
 * anything else in code formatting is read as a command. A placeholder in the span (`<*>`, `<file>`)
 * stands for one or more tokens of the error text; a placeholder in the error text matches only a
 * placeholder in the span: the log's variable part is no licence for the model's own words.
 */
export function isErrorQuote(span: string, errorTexts: readonly string[], minWordLength = 2): boolean {
  const quoted = tokens(span);
  if (!quoted.some((token) => token !== WILD && token.length >= minWordLength && /^[a-z0-9_]+$/.test(token))) return false;
  return errorTexts.some((text) => occursIn(quoted, tokens(text)));
}

/** The error texts a rule for this cluster may quote: its template(s), signatures and evidence messages. */
export function errorTextsOf(cluster: Pick<PromotedCluster, 'template' | 'templates' | 'signatures' | 'samples'>): string[] {
  return [
    ...(cluster.template ? [cluster.template] : []),
    ...(cluster.templates ?? []).map((t) => t.template),
    ...cluster.signatures.map((s) => s.text),
    ...cluster.samples.map((s) => s.message),
  ];
}

const WILD = '\u0000';
/** Texts longer than this are read up to it: an error line that matters is near its start. */
const MAX_CHARS = 4000;

/** Lowercased words and single punctuation marks; placeholders as one wildcard token. */
function tokens(text: string): string[] {
  const marked = text
    .slice(0, MAX_CHARS)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/<\*>|\bany_value\b|<[a-z][\w.:-]*>/g, ` ${WILD} `);
  return marked.match(/\u0000|[a-z0-9_]+|[^\sa-z0-9_]/g) ?? [];
}

/** The quote's tokens as a contiguous run of the text's; a wildcard of the quote takes one or more tokens. */
function occursIn(quote: string[], text: string[]): boolean {
  // at[j]: the quote's first i tokens end just before text position j (any start: a quote may be a part).
  let at: boolean[] = Array.from({ length: text.length + 1 }, () => true);
  for (let i = 0; i < quote.length; i += 1) {
    const next: boolean[] = new Array<boolean>(text.length + 1).fill(false);
    for (let j = 0; j < text.length; j += 1) {
      const equal = quote[i] === WILD || quote[i] === text[j];
      if (equal && at[j]) next[j + 1] = true;
      // A wildcard of the quote goes on taking tokens.
      if (quote[i] === WILD && next[j]) next[j + 1] = true;
    }
    at = next;
    if (!at.some(Boolean)) return false;
  }
  return at.some(Boolean);
}
