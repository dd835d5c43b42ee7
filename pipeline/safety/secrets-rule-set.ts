import { compileAnyOf, compileNeeds, type Needs } from './secret-prefilter.js';
import { ruleSetNeeds } from './rule-set-needs.js';

/**
 * The maintained secret rule set: `@secretlint/secretlint-rule-preset-recommend` (AWS, GCP, GitHub,
 * GitLab, npm, Slack, SendGrid, Shopify, OpenAI, Anthropic, Groq, Hugging Face, Linear, Notion,
 * 1Password, HashiCorp Vault, Vercel, Databricks, Docker, Figma, Grafana, private keys, basic auth,
 * database connection strings), used as a library.
 *
 * Why the preset's rules are run here rather than through `@secretlint/core`'s `lintSource`:
 * - `lintSource` is asynchronous, and redaction runs synchronously inside the ingest fold, per distinct
 *   string; the preset's `file` handlers are synchronous (only the `.p12` check awaits, and log text is
 *   never a `.p12` file), so a rule's reports arrive before its handler returns.
 * - `lintSource` honours `secretlint-disable` comments (the preset's filter-comments rule): in log text
 *   an attacker writes those comments, so that rule is left out.
 * - The rules are created once, not once per string: about 20 µs a string instead of about 200 µs.
 * - A rule runs only on a text that holds what it needs (rule-set-needs.ts, secret-prefilter.ts): most
 *   strings (input hashes, session ids, error lines) hold no vendor prefix and skip them all.
 * The context given to each rule follows core's `createRuleContext` (report, ignore, createTranslator,
 * sharedOptions); test/unit/secrets.test.ts checks the findings against `lintSource` on the corpus.
 *
 * Loaded lazily (a dynamic import, about 10 ms): the hook and the logger never load it; the ingest stage
 * and the commands that store log text await `loadSecretRuleSet()` first.
 */

export interface RuleSetFinding {
  start: number;
  end: number;
  /** The rule's short name (`github`, `database_connection_string`). */
  kind: string;
}

interface RuleModule {
  meta: { id: string; supportedContentTypes?: string[] };
  create(context: unknown, options: unknown): { file?: (source: unknown) => unknown };
}

type Scan = (text: string) => RuleSetFinding[];

let scan: Scan | null = null;
let detectors: readonly RuleDetector[] = [];
let loading: Promise<void> | null = null;

/** One rule of the set, ready to scan a text, with what a text needs before it can report (see rule-set-needs.ts). */
export interface RuleDetector {
  readonly id: string;
  readonly needs: Needs;
  /** The rule's findings in `text`, whatever the text holds (the prefilter is not asked). */
  readonly scan: Scan;
}

/** Rule ids left out: comments in log text are the attacker's, not the repository's. */
const LEFT_OUT = new Set(['@secretlint/secretlint-rule-filter-comments']);
/** Options that widen a rule: AWS access key ids are off by default (an id is not a secret; in logs it leads to one). */
const OPTIONS: Record<string, unknown> = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } };

/** Loads the rule set once; later calls share the same promise. */
export function loadSecretRuleSet(): Promise<void> {
  loading ??= import('@secretlint/secretlint-rule-preset-recommend').then((mod) => {
    detectors = buildDetectors((mod as unknown as { rules: RuleModule[] }).rules);
    scan = prefiltered(detectors);
  });
  return loading;
}

/** Whether the rule set is loaded (redaction without it uses the built-in shapes only). */
export function secretRuleSetLoaded(): boolean {
  return scan !== null;
}

/** The rule set's findings in `text`; empty until loaded. */
export function scanWithRuleSet(text: string): RuleSetFinding[] {
  return scan === null ? [] : scan(text);
}

/** The loaded rules one by one (empty until loaded): what the prefilter's property test holds to their needs. */
export function ruleSetDetectors(): readonly RuleDetector[] {
  return detectors;
}

function shortName(id: string): string {
  return id.replace(/^@secretlint\/secretlint-rule-/, '').replace(/[^a-z0-9]+/g, '_');
}

function buildDetectors(rules: readonly RuleModule[]): RuleDetector[] {
  let sink: RuleSetFinding[] = [];
  return rules
    .filter((rule) => !LEFT_OUT.has(rule.meta.id))
    .map((rule) => {
      const kind = shortName(rule.meta.id);
      const context = {
        sharedOptions: {},
        createTranslator: () => (messageId: string, data: unknown) => ({ message: messageId, messageId, data }),
        report: (descriptor: { range: [number, number] }) => sink.push({ start: descriptor.range[0], end: descriptor.range[1], kind }),
        ignore: () => undefined,
      };
      const handler = rule.create(context, OPTIONS[rule.meta.id] ?? {});
      const scanOne = (text: string): RuleSetFinding[] => {
        sink = [];
        try {
          void handler.file?.({ content: text, filePath: undefined, ext: '', contentType: 'text' });
        } catch {
          // A rule that throws on odd input must not stop redaction: the other rules and shapes still run.
        }
        const found = sink;
        sink = [];
        return found;
      };
      return { id: rule.meta.id, needs: ruleSetNeeds(rule.meta.id), scan: scanOne };
    });
}

/**
 * All rules over a text, in order, each only when the text holds what it needs: most texts (input
 * hashes, session ids, error lines) hold nothing any rule needs, and one test spares them every rule.
 */
function prefiltered(rules: readonly RuleDetector[]): Scan {
  const gated = rules.map((rule) => ({ scan: rule.scan, admits: compileNeeds(rule.needs) }));
  const anyRule = compileAnyOf(rules.map((rule) => rule.needs));
  return (text) => {
    if (!anyRule(text)) return [];
    const found: RuleSetFinding[] = [];
    for (const rule of gated) if (rule.admits(text)) for (const f of rule.scan(text)) found.push(f);
    return found;
  };
}
