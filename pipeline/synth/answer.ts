import type { PromotedCluster } from '../model/cluster.js';
import { canonicalModelText } from '../safety/model-text.js';
import { redact } from '../safety/redact.js';
import { englishProblems } from '../safety/prose-check.js';

/**
 * The boundary check of a model's `write_rule` answer. The model read attacker-controlled text, so its
 * answer is untrusted too: every field is checked and every problem collected. Problems describe the
 * answer without quoting it (a report or an error message must not carry what an attacker steered).
 */

export type AnswerTarget = 'memory' | 'skill';

export type CheckedAnswer =
  | { ok: true; rule: string; target: AnswerTarget; rationale: string; confidence: number }
  | { ok: false; problems: string[] };

export interface CheckAnswerOptions {
  /** Hosts a rule may link to; a subdomain of a listed host is allowed too. */
  urlAllowlist: string[];
}

const RULE_MIN = 20;
export const RULE_MAX = 300;
const FIELDS = new Set(['rule', 'target', 'rationale', 'confidence']);

export function checkAnswer(input: unknown, cluster: PromotedCluster, options: CheckAnswerOptions): CheckedAnswer {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: ['the answer is not an object with rule, target, rationale and confidence'] };
  }
  const answer = input as Record<string, unknown>;
  const problems = [
    ...unexpectedFields(answer),
    ...ruleProblems(answer.rule, cluster.tool_name, options.urlAllowlist),
    ...targetProblems(answer.target),
    ...(typeof answer.rationale === 'string' ? [] : ['rationale is missing or not a string']),
    ...confidenceProblems(answer.confidence),
  ];
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    rule: canonicalModelText(answer.rule as string),
    target: answer.target as AnswerTarget,
    rationale: answer.rationale as string,
    confidence: answer.confidence as number,
  };
}

function unexpectedFields(answer: Record<string, unknown>): string[] {
  const extra = Object.keys(answer).filter((key) => !FIELDS.has(key));
  // Counted, never named: field names are model text too, and problems reach the report.
  return extra.length > 0 ? [`${extra.length} unexpected field${extra.length === 1 ? '' : 's'}`] : [];
}

function ruleProblems(value: unknown, toolName: string, allowlist: string[]): string[] {
  if (typeof value !== 'string') return ['rule is missing or not a string'];
  const raw = value.trim();
  const problems: string[] = [];
  // Line breaks and invisible characters are judged on the answer as given: the canonical form drops them.
  if (/[\n\r\u2028\u2029\u0085]/.test(raw)) problems.push('rule spans more than one line');
  if (/[\p{Cc}\p{Cf}]/u.test(raw.replace(/[\n\r\u0085]/g, ''))) problems.push('rule contains control or invisible characters');
  const rule = canonicalModelText(raw);
  const length = Array.from(rule).length;
  if (length < RULE_MIN || length > RULE_MAX) problems.push(`rule is ${length} characters long (expected ${RULE_MIN} to ${RULE_MAX})`);
  if (rule.includes('<!--') || rule.includes('-->')) problems.push('rule contains an HTML comment marker (<!-- or -->)');
  if (redact(rule) !== rule) problems.push('rule contains a secret-shaped value');
  problems.push(...urlProblems(rule, allowlist));
  problems.push(...disguiseProblems(rule, raw));
  problems.push(...englishProblems(rule));
  problems.push(...bareHostProblems(rule, allowlist));
  if (!mentionsTool(rule, toolName)) problems.push('rule does not name the tool');
  return problems;
}

/**
 * Letters, digits and marks outside ASCII in the answer as given. Folding would turn them into the
 * ASCII they look like (`𝗿𝗺`, `ｒｍ`, Cyrillic `о`), but a model writing English has no reason to use
 * them: an answer that does is refused rather than trusted to mean its skeleton.
 */
const LETTER_DISGUISE = /[^\x00-\x7f\p{P}\p{Zs}\p{S}]|[\uff01-\uff5e]/u;

const DISGUISES: [RegExp, string][] = [
  [/%[0-9a-f]{2}/i, 'percent-encoded text'],
  [/&#?[a-z0-9]{2,8};/i, 'HTML entities'],
  [/\\[xu][0-9a-f]{2}/i, 'escape sequences'],
  [/\b(?:system|assistant|user|human)\s*:/i, 'a chat role marker'],
  [/\b(?:instructions?|prompts?|jailbreak|approve every|long-term memory)\b/i, 'talk about instructions, prompts or memory'],
  [/\$\{?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b/, 'a reference to a secret environment variable'],
  [/[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/i, 'an e-mail address'],
  // Files outside the repository (home, system folders): a rule about a repo's tool failures has no business there.
  [/(?:^|[\s'"`(=])(?:~\/|\$\{?HOME\b|\/(?:home|root|etc|srv|var|usr|opt|mnt|dev|proc|sys|Users|private)\/)/, 'a path outside the repository'],
];

/** Bare host names (paste.example, evil.io): links need url_allowlist, and so do hosts without a scheme. */
const BARE_HOST = /\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|xyz|ru|cn|co|me|info|biz|example|site|online|cloud|ai|gg|tk)\b/gi;

/**
 * A rule is plain English for an agent. Its canonical form must be printable ASCII: what is left after
 * folding (other scripts, combining marks) and encodings and role markers are how injected text hides
 * from the checks after this one, so an answer carrying any of them is invalid (and the cluster is
 * written offline instead).
 */
function disguiseProblems(rule: string, raw: string): string[] {
  const problems: string[] = [];
  // Line breaks, control and invisible characters have their own problem above.
  const visible = rule.replace(/[\n\r\u2028\u2029\u0085\p{Cc}\p{Cf}]/gu, '');
  if (!/^[\x20-\x7e]*$/.test(visible) || LETTER_DISGUISE.test(raw)) {
    problems.push('rule contains characters outside plain ASCII (other scripts, look-alike letters or marks)');
  }
  for (const [pattern, what] of DISGUISES) if (pattern.test(rule)) problems.push(`rule contains ${what}`);
  if (redact(rule) === rule && hasEncodedRun(rule)) problems.push('rule contains a long encoded run (base64 or similar)');
  return problems;
}

function bareHostProblems(rule: string, allowlist: string[]): string[] {
  const withoutLinks = rule.replace(LINK, ' ');
  const hosts = (withoutLinks.match(BARE_HOST) ?? []).map((host) => host.toLowerCase());
  const allowed = allowlist.map((host) => host.toLowerCase());
  const foreign = hosts.filter((host) => !allowed.some((ok) => host === ok || host.endsWith(`.${ok}`)));
  return foreign.length > 0 ? [`rule names ${foreign.length === 1 ? 'a host' : `${foreign.length} hosts`} not in url_allowlist`] : [];
}

/** 24+ characters of base64 alphabet mixing upper case, lower case and digits: encoded data, not words. */
function hasEncodedRun(rule: string): boolean {
  return (rule.match(/[A-Za-z0-9+/]{24,}={0,2}/g) ?? []).some((run) => /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run));
}

function targetProblems(value: unknown): string[] {
  return value === 'memory' || value === 'skill' ? [] : ['target must be "memory" or "skill"'];
}

function confidenceProblems(value: unknown): string[] {
  if (typeof value !== 'number' || !Number.isFinite(value)) return ['confidence is missing or not a number'];
  return value >= 0 && value <= 1 ? [] : ['confidence must be between 0 and 1'];
}

/** `scheme://…`, `//host/…` and bare `www.` hosts are links; script-like schemes are never allowed. */
const LINK = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>"'`)\]]+|(?<![\w:/])\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>"'`)\]]*|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>"'`)\]]*/gi;
const SCRIPT_SCHEME = /\b(?:javascript|vbscript|data|file):/i;

function urlProblems(rule: string, allowlist: string[]): string[] {
  const problems: string[] = [];
  if (SCRIPT_SCHEME.test(rule)) problems.push('rule contains a javascript:, vbscript:, data: or file: link');
  const allowed = allowlist.map((host) => host.toLowerCase());
  for (const link of rule.match(LINK) ?? []) {
    const host = hostOf(link);
    if (host === null) problems.push('rule contains a link that is not a valid URL');
    else if (!allowed.some((entry) => host === entry || host.endsWith(`.${entry}`))) {
      problems.push(`rule links to ${JSON.stringify(redact(host).slice(0, 80))}, which is not in url_allowlist`);
    }
  }
  return problems;
}

function hostOf(link: string): string | null {
  const absolute = link.startsWith('//') ? `https:${link}` : /^www\./i.test(link) ? `https://${link}` : link;
  try {
    const host = new URL(absolute).hostname.toLowerCase();
    return host.length > 0 ? host : null;
  } catch {
    return null;
  }
}

/**
 * Names as written in prose: `git_push` may appear as "git push", and an MCP tool
 * (`mcp__server__tool`) by its last segment alone.
 */
export function mentionsTool(rule: string, toolName: string): boolean {
  const text = rule.normalize('NFKC');
  const segments = toolName.split('__').filter(Boolean);
  const last = segments.length > 1 ? segments[segments.length - 1] : undefined;
  return [toolName, ...(last !== undefined ? [last] : [])].some((name) => namePattern(name)?.test(text) ?? false);
}

/** `git_push` matches "git_push", "git-push" and "git push", but not "git_push_all" or "digit_push". */
function namePattern(name: string): RegExp | null {
  const words = name.normalize('NFKC').split(/[\s_-]+/).filter(Boolean);
  if (words.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}_])${words.map(escapeRegExp).join('[\\s_-]+')}(?![\\p{L}\\p{N}_])`, 'iu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
