import type { DraftRule } from '../model/draft.js';

/** What the safety policy can see of a draft. Names are snake_case because humans write them in YAML. */
export interface RuleFacts {
  text: string;
  text_lower: string;
  tool_name: string;
  error_category: string;
  kind: string;
  commands: string[];
  flags: string[];
  paths: string[];
  urls: string[];
  length: number;
  line_count: number;
}

export type FactType = 'string' | 'string[]' | 'number';

/** The fact catalog: the policy parser rejects any other name and checks operators against these types. */
export const FACT_TYPES = {
  text: 'string',
  text_lower: 'string',
  tool_name: 'string',
  error_category: 'string',
  kind: 'string',
  commands: 'string[]',
  flags: 'string[]',
  paths: 'string[]',
  urls: 'string[]',
  length: 'number',
  line_count: 'number',
} as const satisfies Record<keyof RuleFacts, FactType>;

export type FactName = keyof typeof FACT_TYPES;

export function extractFacts(draft: DraftRule): RuleFacts {
  const text = normalizeText(draft.text);
  return {
    text,
    text_lower: text.toLowerCase(),
    tool_name: draft.toolName,
    error_category: draft.errorCategory ?? '',
    kind: draft.kind,
    commands: findCommands(text),
    flags: findFlags(text),
    paths: findPaths(text),
    urls: findUrls(text),
    length: draft.text.length,
    line_count: countLines(draft.text),
  };
}

/**
 * The text as a reader (or a model) perceives it. Checking the raw string would let "for\u200Bce push"
 * or an autocorrected "—force" slip past patterns that a model would still read as the real thing.
 */
export function normalizeText(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
    .replace(/[\u2013\u2014]/g, '--')
    .replace(/[\u2010-\u2012\u2212]/g, '-')
    .replace(/[\u2018\u2019\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201F\u2033]/g, '"');
}

function countLines(text: string): number {
  const body = text.replace(/(?:\r\n|\r|\n)$/, '');
  return body === '' ? 0 : body.split(/\r\n|\r|\n/).length;
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

// Subcommands are listed, not guessed, so "git and npm" does not become a command "git and".
const SUBCOMMANDS: Record<string, readonly string[]> = {
  git: [
    'add', 'branch', 'checkout', 'cherry-pick', 'clean', 'clone', 'commit', 'config', 'diff', 'fetch',
    'filter-branch', 'gc', 'init', 'log', 'merge', 'mv', 'pull', 'push', 'rebase', 'remote', 'reset',
    'restore', 'revert', 'rm', 'stash', 'status', 'submodule', 'switch', 'tag', 'update-ref', 'worktree',
  ],
  npm: ['audit', 'cache', 'ci', 'config', 'exec', 'i', 'install', 'link', 'publish', 'run', 'test', 'uninstall', 'update'],
  pnpm: ['add', 'exec', 'install', 'publish', 'run', 'test'],
  yarn: ['add', 'install', 'publish', 'run', 'test'],
  docker: ['build', 'compose', 'exec', 'pull', 'push', 'rm', 'rmi', 'run', 'system'],
  kubectl: ['apply', 'delete', 'exec', 'get', 'logs'],
  pip: ['install', 'uninstall'],
};
const SIMPLE_VERBS = ['rm', 'curl', 'wget', 'chmod', 'chown', 'sudo', 'npx', 'bash', 'sh', 'ssh', 'scp', 'find', 'kill'];
const VERB_PATTERN = new RegExp(
  `(?<![\\w./-])(${[...Object.keys(SUBCOMMANDS), ...SIMPLE_VERBS].join('|')})\\b(?:\\s+([a-z][\\w-]*))?`,
  'gi',
);
const QUOTED_PATTERN = /`([^`\n]+)`|"([^"\n]+)"|(?<!\w)'([^'\n]+)'(?!\w)/g;

/** Quoted spans first (the text's own idea of a command), then known CLI verbs found in prose. */
function findCommands(text: string): string[] {
  const quoted = [...text.matchAll(QUOTED_PATTERN)].map((m) => (m[1] ?? m[2] ?? m[3] ?? '').trim());
  const verbs = [...text.matchAll(VERB_PATTERN)].map((m) => {
    const verb = (m[1] ?? '').toLowerCase();
    const sub = m[2]?.toLowerCase();
    return sub && SUBCOMMANDS[verb]?.includes(sub) ? `${verb} ${sub}` : verb;
  });
  return unique([...quoted, ...verbs].filter((c) => c !== ''));
}

// A flag starts after whitespace or an opening quote, so "non-zero" and "re-run" are not flags.
const FLAG_PATTERN = /(?<![\w\-/.=:])--?[a-z][\w-]*/gi;

function findFlags(text: string): string[] {
  return unique([...text.matchAll(FLAG_PATTERN)].map((m) => m[0].replace(/-+$/, '')));
}

const URL_PATTERN = /\b(?:(?:https?|ftp|file|ssh|git|wss?):\/\/|www\.)[^\s<>"'`)\]]+/gi;

function findUrls(text: string): string[] {
  return unique([...text.matchAll(URL_PATTERN)].map((m) => m[0].replace(/[.,;:!?]+$/, '')));
}

const LEADING_PUNCT = /^[("'`<[{]+/;
const TRAILING_PUNCT = /[)"'`>\]},;:!?]+$/;

function findPaths(text: string): string[] {
  const tokens = text.split(/\s+/).map(stripToken);
  return unique(tokens.filter(isPathLike));
}

function stripToken(token: string): string {
  const inner = token.replace(LEADING_PUNCT, '').replace(TRAILING_PUNCT, '');
  // A sentence-ending period is not part of the path, but "." and ".." are paths on their own.
  return /^\.+$/.test(inner) ? inner : inner.replace(/\.+$/, '').replace(TRAILING_PUNCT, '');
}

function isPathLike(token: string): boolean {
  if (token === '' || token.includes('://') || token.startsWith('-')) return false;
  if (token === '.' || token === '..' || token === '~' || token === '/') return true;
  if (/^(?:~|\.{1,2}\/|\$\{?HOME\b|\/)/.test(token)) return true;
  if (/^\.[\w][\w.-]*(?:\/.*)?$/.test(token)) return true;
  if (token.includes('/')) return true;
  return /^[a-z_][\w-]+\.[a-z][a-z0-9]{0,7}$/i.test(token);
}
