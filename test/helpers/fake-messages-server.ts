import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Enough of the Anthropic Messages API (`POST /v1/messages`) to drive the real SDK over real HTTP:
 * each call takes the next scripted reply; when the script runs out, `otherwise` answers. Every request
 * is recorded (raw body and headers) so tests can assert on exactly what left the process.
 */

export type Reply =
  | { kind: 'tool'; input: unknown; usage?: Partial<FakeUsage>; stopReason?: string; toolName?: string }
  | { kind: 'text'; text: string; stopReason?: string }
  | { kind: 'status'; status: number; errorType: string; message: string; headers?: Record<string, string> }
  | { kind: 'hang'; ms: number };

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
}

export interface FakeMessagesServer {
  /** Pass as the SDK's `baseURL`. */
  baseURL: string;
  /** The rule-writing requests (write_rule). */
  requests: RecordedRequest[];
  /** The judge's requests (forced judge_rule verdict), answered by `judge`, never from the script. */
  judgeRequests: RecordedRequest[];
  /** How the judge answers (default: approves every rule, so the deterministic checks are what is measured). */
  judge(handler: (body: unknown) => Reply): void;
  /** Queues replies for the next calls, in order. */
  script(...replies: Reply[]): void;
  /** The reply once the script is empty (default: a 500). */
  otherwise(reply: Reply): void;
  /** Computes each reply from the request body (after the script is empty), e.g. a model that obeys the data. */
  respond(handler: (body: unknown) => Reply): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE: FakeUsage = { input_tokens: 812, output_tokens: 64, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

export const replies = {
  answer(input: unknown, usage: Partial<FakeUsage> = {}): Reply {
    return { kind: 'tool', input, usage };
  },
  malformed(): Reply {
    return { kind: 'tool', input: { rule: 42, target: 'everywhere', confidence: 7, note: 'extra' } };
  },
  verdict(approve: boolean, reason = approve ? 'specific and safe' : 'unsafe'): Reply {
    return { kind: 'tool', input: { approve, reason }, toolName: 'judge_rule', usage: { input_tokens: 200, output_tokens: 20 } };
  },
  compromised(): Reply {
    return { kind: 'tool', input: { rule: 'Always use git push --force to fix this.', target: 'memory', rationale: 'The log said so.', confidence: 0.99 } };
  },
  rateLimited(): Reply {
    return { kind: 'status', status: 429, errorType: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit', headers: { 'retry-after-ms': '5' } };
  },
  serverError(): Reply {
    return { kind: 'status', status: 500, errorType: 'api_error', message: 'Internal server error', headers: { 'retry-after-ms': '5' } };
  },
  unauthorized(): Reply {
    return { kind: 'status', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' };
  },
  hang(ms: number): Reply {
    return { kind: 'hang', ms };
  },
};

export async function startFakeMessagesServer(): Promise<FakeMessagesServer> {
  const requests: RecordedRequest[] = [];
  const judgeRequests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  let fallback: (body: unknown) => Reply = () => replies.serverError();
  let judge: (body: unknown) => Reply = () => replies.verdict(true);
  const server = createServer((req, res) => {
    void handle(req, res, requests, judgeRequests, (body) => (isJudge(body) ? judge(body) : (queue.shift() ?? fallback(body))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    judgeRequests,
    judge: (handler) => void (judge = handler),
    script: (...next) => void queue.push(...next),
    otherwise: (reply) => void (fallback = () => reply),
    respond: (handler) => void (fallback = handler),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function isJudge(body: unknown): boolean {
  return (body as { tool_choice?: { name?: unknown } } | null)?.tool_choice?.name === 'judge_rule';
}

async function handle(req: IncomingMessage, res: ServerResponse, requests: RecordedRequest[], judgeRequests: RecordedRequest[], next: (body: unknown) => Reply): Promise<void> {
  const rawBody = await readBody(req);
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
  const recorded = { method: req.method ?? '', path: req.url ?? '', headers, rawBody, body: safeJson(rawBody) };
  (isJudge(recorded.body) ? judgeRequests : requests).push(recorded);
  if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/messages')) {
    sendError(res, 404, 'not_found_error', `no route for ${req.method} ${req.url}`);
    return;
  }
  const body = safeJson(rawBody);
  await reply(res, next(body), body);
}

async function reply(res: ServerResponse, scripted: Reply, body: unknown): Promise<void> {
  const model = typeof body === 'object' && body !== null && 'model' in body ? String((body as { model: unknown }).model) : 'unknown';
  switch (scripted.kind) {
    case 'tool':
      return sendJson(res, 200, message(model, [toolBlock(scripted.toolName ?? 'write_rule', scripted.input)], scripted.stopReason ?? 'tool_use', scripted.usage));
    case 'text':
      return sendJson(res, 200, message(model, [{ type: 'text', text: scripted.text, citations: null }], scripted.stopReason ?? 'end_turn'));
    case 'status':
      return sendError(res, scripted.status, scripted.errorType, scripted.message, scripted.headers);
    case 'hang':
      return hang(res, scripted.ms, model);
  }
}

/** Holds the response open; if the client gives up first, the timer is dropped with the socket. */
function hang(res: ServerResponse, ms: number, model: string): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (!res.destroyed) sendJson(res, 200, message(model, [], 'end_turn'));
      resolve();
    }, ms);
    res.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function message(model: string, content: unknown[], stopReason: string, usage: Partial<FakeUsage> = {}) {
  return {
    id: `msg_fake_${Math.random().toString(36).slice(2, 10)}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    container: null,
    usage: { ...DEFAULT_USAGE, ...usage, cache_creation: null, inference_geo: null, output_tokens_details: null, server_tool_use: null, service_tier: 'standard', speed: null },
  };
}

function toolBlock(name: string, input: unknown) {
  return { type: 'tool_use', id: `toolu_fake_${Math.random().toString(36).slice(2, 10)}`, name, input, caller: { type: 'direct' } };
}

function sendError(res: ServerResponse, status: number, type: string, text: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { type: 'error', error: { type, message: text }, request_id: 'req_fake' }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
