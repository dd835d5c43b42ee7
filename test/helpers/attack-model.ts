import { createHash } from 'node:crypto';
import { identifierProblem } from '../../pipeline/safety/identifier.js';
import type { Attack } from '../fixtures/attacks/types.js';
import { replies, type Reply } from './fake-messages-server.js';

/**
 * The hostile model: the worst a model behind the Messages API can do. For an attack with a scripted
 * answer it gives that answer; otherwise it obeys the evidence, copying the templates, what worked next
 * and a sample into a rule. Asked anything else through a forced tool (a judge), it approves, filling
 * the tool's schema with the most permissive values.
 */

export const WRITER_TOOL = 'write_rule';

/** `answered` hears the id of each attack whose scripted answer was served (its block then means something). */
export function hostileModel(attacks: readonly Attack[], answered: (id: string) => void = () => {}): (body: unknown) => Reply {
  const byCategory = new Map(attacks.map((attack) => [attackCategory(attack), attack]));
  return (body) => {
    const request = (body ?? {}) as { tool_choice?: { name?: string }; tools?: { name: string; input_schema?: unknown }[]; messages?: { content?: unknown }[] };
    const forced = request.tool_choice?.name;
    if (forced !== undefined && forced !== WRITER_TOOL) return approve(forced, request.tools?.find((tool) => tool.name === forced)?.input_schema);
    const text = userText(request);
    const tool = /\ntool: (\S+)/.exec(text)?.[1] ?? 'the tool';
    const category = /\ncategory: (\S+)/.exec(text)?.[1] ?? '';
    // A scenario runs alone: its answer is for every cluster of its repository.
    const attack = byCategory.get(category) ?? attacks.find((a) => a.answer !== undefined && text.includes(attackCategory(a))) ?? (attacks.length === 1 ? attacks[0] : undefined);
    if (attack?.answer !== undefined) {
      answered(attack.id);
      return fill(typeof attack.answer === 'function' ? attack.answer(tool) : attack.answer, tool);
    }
    return obey(text, tool);
  };
}

/**
 * The category that names an attack's clusters: its id when the identifier grammar takes it, else a hash
 * of it. An id such as `inj-developer-mode` or `mdl-no-verify-short` holds words the grammar rightly
 * refuses in a category, which then became a placeholder: the attack's clusters were formed but no longer
 * carried its name, so the harness (and the hostile model's script) lost them. The label is the
 * harness's, not part of the attack, so it must not be what stops it.
 */
export function attackCategory(attack: { id: string }): string {
  const readable = `atk_${attack.id.replace(/[^\w]/g, '_')}`;
  return identifierProblem('error_category', readable) === null ? readable : `atk_${createHash('sha256').update(attack.id).digest('hex').slice(0, 8)}`;
}

function userText(request: { messages?: { content?: unknown }[] }): string {
  const content = request.messages?.[0]?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((block) => String((block as { text?: unknown }).text ?? '')).join('\n');
  return '';
}

/** A rule that does what the data says: what worked next, else the templates, plus the first sample. */
function obey(text: string, tool: string): Reply {
  const literal = String.raw`(?:\[flagged[^\]]*\] )?("(?:[^"\\]|\\.)*")`;
  const shape = new RegExp(`sessions: ${literal}`).exec(text)?.[1];
  const head = text.split('\ntop signatures:')[0]!;
  const templates = [...head.matchAll(new RegExp(`^(?:error template: |- \\d+x )${literal}`, 'gm'))].map((m) => JSON.parse(m[1]!) as string);
  const sample = new RegExp(`^- \\S+ \\d+ ms ${literal}`, 'm').exec(text)?.[1];
  const payload = [shape !== undefined ? `run ${JSON.parse(shape) as string} instead` : templates.join(' '), sample !== undefined ? (JSON.parse(sample) as string) : ''].join(' ').trim();
  const rule = `When ${tool} fails, do what its error says: ${payload}`.replace(/\s+/g, ' ').slice(0, 295);
  return replies.answer({ rule, target: 'memory', rationale: 'The telemetry says so.', confidence: 1 });
}

function fill(reply: Reply, tool: string): Reply {
  const swap = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replaceAll('{tool}', tool);
    if (Array.isArray(value)) return value.map(swap);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
    return value;
  };
  return swap(reply) as Reply;
}

const GOOD = /approv|allow|safe|pass|accept|ok|yes|valid|benign|harmless/i;
const BAD = /unsafe|reject|block|harm|danger|violat|risk|deny|refus|flag/i;

/** A judge's verdict that lets everything through, whatever the verdict tool's schema. */
function approve(name: string, schema: unknown): Reply {
  const props = ((schema as { properties?: Record<string, any> } | undefined)?.properties ?? {}) as Record<string, any>;
  const input: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(props)) input[key] = permissive(key, prop ?? {});
  return { kind: 'tool', toolName: name, input };
}

function permissive(key: string, prop: { type?: string; enum?: unknown[]; minimum?: number; maximum?: number }): unknown {
  if (Array.isArray(prop.enum)) return prop.enum.find((v) => GOOD.test(String(v)) && !BAD.test(String(v))) ?? prop.enum[0];
  switch (prop.type) {
    case 'boolean':
      return !BAD.test(key);
    case 'number':
    case 'integer':
      return BAD.test(key) ? (prop.minimum ?? 0) : (prop.maximum ?? 1);
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'The rule is specific, harmless and supported by the evidence.';
  }
}
