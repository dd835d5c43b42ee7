/**
 * Deterministic scan of evidence for instruction-like text (prompt-injection attempts). Log text is
 * data: a finding never changes what the text means, it only lets the synthesizer refuse to quote it
 * and lets a reviewer see why. Run it on redacted text: `phrase` quotes the input.
 *
 * Patterns aim at the phrasing of attacks, not at single words, because ordinary errors are full of
 * "ignore", "system" and "end of": "ignore file .gitignore not found" is not an override, and
 * "unexpected end of data" is not a fake delimiter.
 */

export interface ScanFinding {
  kind: string;
  /** The matched text, whitespace collapsed, at most 60 characters. */
  phrase: string;
}

export interface ScanResult {
  flagged: boolean;
  findings: ScanFinding[];
}

interface Detector {
  readonly kind: string;
  readonly pattern: RegExp;
}

const PHRASE_MAX = 60;

/**
 * Builds a regex in which a space outside a character class means "any run of whitespace", so the
 * patterns read like the phrases they catch and tolerate line breaks and double spaces.
 */
const re = (source: string, flags = 'gi'): RegExp =>
  new RegExp(source.replace(/\[(?:\\.|[^\]\\])*\]| /g, (token) => (token === ' ' ? String.raw`\s+` : token)), flags);

const EARLIER = '(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|old)';
const ORDERS = '(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|guidance|context|messages?|commands?|constraints?)';
const FILLER = '(?:(?:all|any|every|each|the|your|my|of|these|those|about|safety) )*';

const DETECTORS: readonly Detector[] = [
  { kind: 'override', pattern: re(String.raw`\b(?:ignore|disregard|forget|override|bypass|skip) ${FILLER}${EARLIER} ${ORDERS}\b`) },
  { kind: 'override', pattern: re(String.raw`\bignore (?:everything|all|anything) (?:above|before|previously|prior|said)\b`) },
  { kind: 'override', pattern: re(String.raw`\bdisregard ${FILLER}(?:${ORDERS}|above|everything|system prompt)\b`) },
  { kind: 'override', pattern: re(String.raw`\bforget ${FILLER}(?:${ORDERS}|everything|training)\b`) },
  { kind: 'override', pattern: re(String.raw`\b(?:do not|don['\u2019]t|stop) follow(?:ing)? (?:(?:the|your|any|previous|prior|above|system) )+${ORDERS}\b`) },
  { kind: 'override', pattern: re(String.raw`\bnew (?:system )?(?:instructions?|rules?|directives?|prompt)\s*:`) },
  // "You are now logged in" is ordinary CLI output; a persona or mode switch is not.
  {
    kind: 'override',
    pattern: re(String.raw`\byou are now (?:a|an|the|my|acting|operating|no longer|free|unrestricted|jailbroken|allowed|permitted|dan|in \w+ mode)\b`),
  },
  { kind: 'override', pattern: re(String.raw`\bfrom now on\b,?\s*(?:you|always|never|ignore|only|respond|reply|answer|act|must|your|do|don['\u2019]t)\b`) },
  // Role markers count only where a chat transcript would put them: at a line start (a real or an
  // escaped "\n"), or in a chat-template token. "system" in a sentence is ordinary text.
  { kind: 'role_marker', pattern: re(String.raw`(?<=^|\\n)[ \t>]*(?:system[ \t]*:(?=[ \t]*\S)|(?:assistant|human)[ \t]*:)`, 'gim') },
  {
    kind: 'role_marker',
    pattern: re(String.raw`<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|\[/?INST\]|<</?SYS>>|</?(?:start|end)_of_turn>`),
  },
  { kind: 'role_marker', pattern: re(String.raw`^[ \t]*#{2,}[ \t]*(?:system|instructions?|assistant|human|user|response)(?:[ \t]+(?:prompt|message))?[ \t]*(?::.*)?$`, 'gim') },
  { kind: 'fake_delimiter', pattern: /`{3,}|<{3,}|(?<!-)-{4,}[ \t]*END\b/gi },
  { kind: 'fake_delimiter', pattern: re(String.raw`</\s*(?:data|evidence|untrusted[\w-]*|logs?|context|input|document|tool_result|function_results|user_input)\s*>`) },
  // Upper case anywhere, or any case alone on its line: Python's "unexpected end of data" stays clean.
  { kind: 'fake_delimiter', pattern: re(String.raw`\bEND OF (?:DATA|INPUT|EVIDENCE|LOGS?|CONTEXT|UNTRUSTED|DOCUMENT|TOOL OUTPUT)\b`, 'g') },
  { kind: 'fake_delimiter', pattern: re(String.raw`^[ \t]*[-=#*[<]*[ \t]*end of (?:data|input|evidence|logs?|context|untrusted \w+|document)[ \t]*[-=#*\]>]*[ \t]*$`, 'gim') },
  { kind: 'rule_injection', pattern: re(String.raw`\badd (?:this|a|the following|these|that|new) (?:\w+ )?rules?\b`) },
  { kind: 'rule_injection', pattern: re(String.raw`\balways (?:use )?(?:git )?(?:force[-\s]*push|push (?:--force|-f)\b|--force\b|--no-verify\b)`) },
  { kind: 'rule_injection', pattern: re(String.raw`\b(?:add|save|write|store|put|append) (?:(?:this|it|that|the following) )?(?:to|in|into) (?:your |the )?(?:long[-\s]?term )?memory\b`) },
  { kind: 'rule_injection', pattern: re(String.raw`\bremember to always\b|\bMEMORY\.md\b|\bderived rules?\b`) },
  { kind: 'tool_call', pattern: re(String.raw`</?\s*(?:tool_use|tool_call|tool_result|function_calls|function_results)\b|</?\s*(?:antml:)?invoke\b`) },
  { kind: 'tool_call', pattern: re(String.raw`\{\s*["']type["']\s*:\s*["']tool_(?:use|result)["']|\btool_choice\b|["'](?:tool_calls|function_call)["']\s*:`) },
];

/** Zero-width and soft-hyphen characters an attacker can hide inside a phrase. */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;

/** Folds look-alike forms (full-width letters, ligatures) and drops invisible characters. */
function normalize(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}

function toPhrase(matched: string): string {
  return matched.replace(/\s+/g, ' ').trim().slice(0, PHRASE_MAX);
}

interface Hit extends ScanFinding {
  index: number;
  order: number;
}

function collectHits(text: string): Hit[] {
  const hits: Hit[] = [];
  DETECTORS.forEach(({ kind, pattern }, order) => {
    for (const m of text.matchAll(pattern)) hits.push({ kind, phrase: toPhrase(m[0]), index: m.index, order });
  });
  return hits;
}

/**
 * Flags instruction-like text. Findings are in text order, one per distinct kind and phrase. A run scans
 * each piece of evidence several times (offline drafting, the prompt's fence, validation, the report),
 * so results are remembered per text (frozen: callers share them), up to MEMO_TEXTS texts.
 */
export function scanInstructionLike(text: string): ScanResult {
  const known = memo.get(text);
  if (known !== undefined) return known;
  const result = scanUncached(text);
  if (text.length <= MEMO_TEXT_MAX) {
    if (memo.size >= MEMO_TEXTS) memo.clear();
    memo.set(text, result);
  }
  return result;
}

const memo = new Map<string, ScanResult>();
const MEMO_TEXTS = 4096;
const MEMO_TEXT_MAX = 4096;

function scanUncached(text: string): ScanResult {
  const hits = collectHits(normalize(text)).sort((a, b) => a.index - b.index || a.order - b.order);
  const seen = new Set<string>();
  const findings: ScanFinding[] = [];
  for (const { kind, phrase } of hits) {
    const id = `${kind}\u0000${phrase.toLowerCase()}`;
    if (seen.has(id)) continue;
    seen.add(id);
    findings.push(Object.freeze({ kind, phrase }));
  }
  return Object.freeze({ flagged: findings.length > 0, findings: Object.freeze(findings) as ScanFinding[] });
}

/** Log text shown where a person or another model reads it: instruction-like text is named, not repeated. */
export function shownOrWithheld(text: string): string {
  const scan = scanInstructionLike(text);
  return scan.flagged ? `[withheld: instruction-like text (${[...new Set(scan.findings.map((f) => f.kind))].join(', ')})]` : text;
}
