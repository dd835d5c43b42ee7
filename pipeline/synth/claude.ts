import { randomBytes } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { SleepCycleError, truncate } from '../model/errors.js';
import type { PromotedCluster } from '../model/cluster.js';
import { checkAnswer, RULE_MAX } from './answer.js';
import { draftFor, type Synthesizer, type SynthesizeRequest } from './port.js';
import { type DraftRule } from '../model/draft.js';
import { buildMessageRequest, PROMPT_VERSION, WRITE_RULE_TOOL } from './prompt.js';
import { redact } from '../safety/redact.js';
import { scanInstructionLike } from '../safety/scan.js';
import { buildJudgeRequest, readVerdict, type JudgeVerdict } from './judge.js';

export interface LlmUsage {
  /** messages.create calls made (one per cluster; the SDK's own retries are not counted again). */
  calls: number;
  /** Judge calls (one per new model-written rule; not counted in `calls` nor against max_llm_calls, tokens are). */
  judge_calls?: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface ClaudeSynthesizerOptions {
  apiKey: string;
  /** Explicit base URL (the caller reads ANTHROPIC_BASE_URL from its env); undefined lets the SDK decide. */
  baseURL?: string | undefined;
  model: string;
  maxTokens: number;
  timeoutMs: number;
  maxRetries: number;
  urlAllowlist: string[];
  /** Injected randomness for the fence delimiter; default 12 random bytes as hex. */
  nonce?: () => string;
}

export interface ClaudeSynthesizer extends Synthesizer {
  usage(): LlmUsage;
  /**
   * The most tokens a draft of this request can cost, before it is made, the judge's call included: each
   * call's input estimated from its size (a conservative 3 characters per token) plus every output token
   * it may use (`max_tokens`).
   */
  estimate(request: SynthesizeRequest): number;
  /** The independent judge's verdict on a rule text (see judge.ts); throws like `draft` when Claude fails. */
  review(ruleText: string, clusterId: string): Promise<JudgeVerdict>;
}

/** The model answered, but not with a valid rule. The pipeline falls back to offline for the cluster. */
export class LlmOutputError extends Error {
  readonly code = 'E_LLM_OUTPUT';
  readonly clusterId: string;
  readonly problems: string[];

  constructor(clusterId: string, problems: string[]) {
    super(`Claude's answer for cluster ${clusterId} was rejected: ${problems.join('; ')}`);
    this.name = 'LlmOutputError';
    this.clusterId = clusterId;
    this.problems = problems;
  }
}

export type UnavailableReason = 'network' | 'timeout' | 'rate_limited' | 'server_error';

/** Claude could not be reached in time (after the SDK's retries). The pipeline falls back to offline. */
export class LlmUnavailableError extends Error {
  readonly code = 'E_LLM_UNAVAILABLE';
  readonly reason: UnavailableReason;
  readonly status: number | null;

  constructor(reason: UnavailableReason, status: number | null, message: string) {
    super(message);
    this.name = 'LlmUnavailableError';
    this.reason = reason;
    this.status = status;
  }
}

type Sdk = typeof import('@anthropic-ai/sdk');

export function createClaudeSynthesizer(options: ClaudeSynthesizerOptions): ClaudeSynthesizer {
  if (options.apiKey.trim().length === 0) {
    throw new SleepCycleError('E_LLM', 'the claude synthesizer needs an API key, found none. Set ANTHROPIC_API_KEY, or set synthesizer: offline.');
  }
  const totals: LlmUsage = { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const nonce = options.nonce ?? (() => randomBytes(12).toString('hex'));
  let client: Promise<{ sdk: Sdk; client: Anthropic }> | undefined;
  // The SDK is large: import it on the first call so `--help`, offline runs and dry runs stay fast.
  const connect = () => (client ??= openClient(options));

  return {
    name: `claude:${options.model}`,
    usage: () => ({ ...totals }),
    // The writer's call and the judge's (its rule at the longest a rule may be): a cluster costs both.
    estimate: (request) => estimateTokens(buildMessageRequest(request.cluster, request.target.kind, nonce(), options))
      + estimateTokens(buildJudgeRequest('x'.repeat(RULE_MAX), nonce(), options)),
    async draft(request: SynthesizeRequest): Promise<DraftRule> {
      const { sdk, client: api } = await connect();
      const body = buildMessageRequest(request.cluster, request.target.kind, nonce(), options);
      totals.calls += 1;
      let message: Anthropic.Message;
      try {
        message = await api.messages.create(body);
      } catch (error) {
        throw translateError(error, sdk, options.apiKey);
      }
      addUsage(totals, message.usage);
      return toDraft(message, request, options);
    },
    async review(ruleText: string, clusterId: string): Promise<JudgeVerdict> {
      const { sdk, client: api } = await connect();
      totals.judge_calls = (totals.judge_calls ?? 0) + 1;
      let message: Anthropic.Message;
      try {
        // A fresh context: the judge sees the rule text alone, never the evidence the writer read.
        message = await api.messages.create(buildJudgeRequest(ruleText, nonce(), options));
      } catch (error) {
        throw translateError(error, sdk, options.apiKey);
      }
      addUsage(totals, message.usage);
      const read = readVerdict(message);
      if ('problems' in read) throw new LlmOutputError(clusterId, read.problems);
      return read.verdict;
    },
  };
}

/** Characters per token, on the low side: the cap must hold even for text that tokenises densely. */
const CHARS_PER_TOKEN = 3;

export function estimateTokens(body: Anthropic.MessageCreateParamsNonStreaming): number {
  const input = JSON.stringify([body.system, body.tools, body.tool_choice, body.messages]).length;
  return Math.ceil(input / CHARS_PER_TOKEN) + body.max_tokens;
}

async function openClient(options: ClaudeSynthesizerOptions): Promise<{ sdk: Sdk; client: Anthropic }> {
  const sdk = await import('@anthropic-ai/sdk');
  const client = new sdk.default({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    // Library code never prints: our caller reports failures through typed errors.
    logLevel: 'off',
  });
  return { sdk, client };
}

function addUsage(totals: LlmUsage, usage: Anthropic.Usage | undefined): void {
  if (!usage) return;
  totals.input_tokens += usage.input_tokens ?? 0;
  totals.output_tokens += usage.output_tokens ?? 0;
  totals.cache_read_input_tokens += usage.cache_read_input_tokens ?? 0;
  totals.cache_creation_input_tokens += usage.cache_creation_input_tokens ?? 0;
}

function toDraft(message: Anthropic.Message, request: SynthesizeRequest, options: ClaudeSynthesizerOptions): DraftRule {
  const { cluster } = request;
  const input = toolInput(message, cluster.id);
  const checked = checkAnswer(input, cluster, { urlAllowlist: options.urlAllowlist });
  if (!checked.ok) throw new LlmOutputError(cluster.id, checked.problems);
  // Routing (settings) decides where a rule lands; the model's suggested target is only recorded.
  return draftFor(request, {
    text: checked.rule,
    synthesizer: `claude:${options.model}`,
    model: options.model,
    promptVersion: PROMPT_VERSION,
    notes: [
      `claude: confidence ${checked.confidence.toFixed(2)}, suggested target ${checked.target}`,
      scanInstructionLike(checked.rationale).flagged ? 'claude rationale withheld: instruction-like text' : `claude rationale: ${JSON.stringify(noteText(checked.rationale))}`,
      ...flaggedNote(cluster),
    ],
  });
}

/** The single write_rule input, or the reason there is none. */
function toolInput(message: Anthropic.Message, clusterId: string): unknown {
  if (message.stop_reason === 'refusal') throw new LlmOutputError(clusterId, ['the model declined to answer (stop_reason refusal)']);
  const calls = (message.content ?? []).filter(
    (block): block is Anthropic.ToolUseBlock => block.type === 'tool_use' && block.name === WRITE_RULE_TOOL,
  );
  if (calls.length !== 1) {
    throw new LlmOutputError(clusterId, [`expected one ${WRITE_RULE_TOOL} call, found ${calls.length} (stop_reason ${String(message.stop_reason)})`]);
  }
  if (message.stop_reason === 'max_tokens') throw new LlmOutputError(clusterId, ['the answer was cut off at max_tokens']);
  return calls[0]!.input;
}

/** The rationale is model text about hostile data: kept as one short, redacted line. */
function noteText(text: string): string {
  return truncate(redact(text).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ').replace(/\s+/g, ' ').trim(), 200);
}

function flaggedNote(cluster: PromotedCluster): string[] {
  const texts = [...cluster.samples.map((sample) => sample.message), ...cluster.signatures.map((signature) => signature.text)];
  const kinds = [...new Set(texts.flatMap((text) => scanInstructionLike(text).findings.map((finding) => finding.kind)))];
  return kinds.length > 0 ? [`evidence shown to the model only as quoted data: instruction-like (${kinds.join(', ')})`] : [];
}

/**
 * SDK errors to ours. Retryable failures (connection, timeout, 408/409/429/5xx) were already retried by
 * the SDK, so they mean "unavailable now". Anything else is a request Anthropic will keep rejecting, so
 * it is E_LLM. Messages are built from status codes and redacted API text, never from the request.
 */
function translateError(error: unknown, sdk: Sdk, apiKey: string): Error {
  if (error instanceof sdk.APIConnectionTimeoutError) return unavailable('timeout', null, 'Claude did not answer in time');
  if (error instanceof sdk.APIConnectionError) return unavailable('network', null, 'Claude could not be reached (network error)');
  if (!(error instanceof sdk.APIError)) return new SleepCycleError('E_LLM', `the Claude request failed: ${scrub(describe(error), apiKey)}`);
  const status = error.status ?? 0;
  if (status === 429) return unavailable('rate_limited', status, 'Claude is rate limiting this key (429)');
  if (status >= 500 || status === 408 || status === 409) return unavailable('server_error', status, `Claude answered with a server error (${status})`);
  if (status === 401) return keyRejected(status);
  if (status === 403) return permissionDenied(status, scrub(error.apiMessage ?? '', apiKey));
  return requestRejected(status, error.type ?? 'error', scrub(error.apiMessage ?? '', apiKey));
}

function unavailable(reason: UnavailableReason, status: number | null, what: string): LlmUnavailableError {
  return new LlmUnavailableError(reason, status, `${what} after the SDK's retries; falling back to the offline synthesizer is safe.`);
}

function keyRejected(status: number): SleepCycleError {
  return new SleepCycleError(
    'E_LLM',
    'Anthropic rejected the API key (401 authentication_error). Expected a valid key in ANTHROPIC_API_KEY. ' +
      'Create or copy a key in the Claude Console (API keys), set ANTHROPIC_API_KEY to it, ' +
      'or unset it (or set synthesizer: offline) to write rules offline.',
    { status },
  );
}

function permissionDenied(status: number, apiMessage: string): SleepCycleError {
  const said = apiMessage ? ` Anthropic said: ${apiMessage}.` : '';
  return new SleepCycleError(
    'E_LLM',
    `Anthropic refused the request (403 permission_error): the API key is valid but may not use this model or workspace.${said} ` +
      'Check the key\'s workspace and the "model" setting, or set synthesizer: offline.',
    { status },
  );
}

function requestRejected(status: number, type: string, apiMessage: string): SleepCycleError {
  const said = apiMessage ? `: ${apiMessage}` : '';
  return new SleepCycleError(
    'E_LLM',
    `Anthropic rejected the request (${status} ${type})${said}. Check the "model" setting: the claude synthesizer ` +
      'needs a model that accepts a forced tool call with thinking off (e.g. claude-haiku-5-5), or set synthesizer: offline.',
    { status, type },
  );
}

/** API text is not ours: redact it, remove the key if it were ever echoed, and keep it short. */
function scrub(text: string, apiKey: string): string {
  const withoutKey = apiKey.length > 0 ? text.split(apiKey).join('[REDACTED:api_key]') : text;
  return truncate(redact(withoutKey).replace(/[\p{Cc}\p{Cf}]/gu, ' '), 200);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
