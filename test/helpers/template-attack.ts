import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { replies, startFakeMessagesServer, type Reply } from './fake-messages-server.js';
import { CLI, PACKAGE_ROOT, git, makeDir, read } from './repo.js';
import { childEnv } from './temp.js';

/**
 * Attacks on the template path (error templates, what worked next, the offline writer, the fence), as
 * data: an attacker who controls every field of every telemetry line. Two shapes:
 * - a content attack (goals 1 and 2) is a few lines whose text must not land somewhere; all of them run
 *   together in one night, each in its own error category (so its own template scope and cluster);
 * - a scenario attack (goals 3 and 4) is one or more nights in a repository of its own, with an
 *   expectation about the last night (a rule is written, nothing is re-proposed, the run completes).
 * test/e2e/template-attacks.test.ts runs the ones that are blocked; test/fixtures/template-attacks-leaking.ts
 * holds the ones that leak today, in the same shape, so that a fixed one moves across unchanged.
 */

export type Goal = 1 | 2 | 3 | 4;
/**
 * Who writes the rules: the offline writer, or Claude behind a fake Messages API that obeys the data
 * (the worst model there is). `obeying-claude` copies the attacker's text as it reads in the fence;
 * `paraphrasing-claude` does the same with a filler word after every sixth word, as a model that
 * rewords would, so a check that only looks for long copied runs cannot tell.
 */
export type Synthesizer = 'offline' | 'obeying-claude' | 'paraphrasing-claude';
export const SYNTHESIZERS: readonly Synthesizer[] = ['offline', 'obeying-claude', 'paraphrasing-claude'];

/**
 * Where a fragment must not appear. `rule` is the text this attack's clusters wrote to MEMORY.md or a
 * skill file (its landed rule lines); the others are whole surfaces of the run: MEMORY.md, the skill
 * files, state.json, the report, run --json's stdout, the commit (message and patch), and every
 * request sent to Claude.
 */
export type Surface = 'rule' | 'memory' | 'skills' | 'state' | 'report' | 'json' | 'commit' | 'claude';

/** The fields of one telemetry line an attack sets; the runner fills in the rest. */
export interface AttackEvent {
  tool_name?: string;
  exit_code?: number;
  error_category?: string;
  error_message?: string;
  input_summary?: string;
  session_id?: string;
  input_hash?: string;
  duration_ms?: number;
}

export interface ContentAttack {
  id: string;
  goal: 1 | 2;
  title: string;
  events: AttackEvent[];
  /** Fragments that must not appear on any of `surfaces` (case-sensitive, as written). */
  forbid: string[];
  surfaces: Surface[];
  /** The synthesizers this entry is about (blocked with, or leaking with). */
  via: Synthesizer[];
  /** Routes the attack's tool family to skills/<name>.yaml. */
  skill?: string;
}

export interface Night {
  events?: AttackEvent[];
  /** A hand edit of .sleep-cycle/state.json before the night runs. */
  editState?: (state: any) => any;
  /** A human's edit of MEMORY.md (committed) before the night runs. */
  editMemory?: (memory: string) => string;
}

export type Expectation =
  /** After the last night, MEMORY.md holds a rule quoting this text: the real failure was not kept from its rule. */
  | { kind: 'rule-written'; quoting: string }
  /** The last night proposes no rule at all: a failure already covered (or burned) stays so. */
  | { kind: 'nothing-proposed' }
  /** Every night exits 0 within the time, and the state file and the report stay under the sizes. */
  | { kind: 'completes'; withinMs: number; maxStateBytes: number; maxReportBytes: number }
  /** The last night stops with this error code and exit code, and says which file to fix. */
  | { kind: 'fails-cleanly'; code: string; exit: number; mentions: string };

export interface ScenarioAttack {
  id: string;
  goal: 3 | 4;
  title: string;
  nights: Night[];
  expect: Expectation;
  /** Extra settings (config/sleep-cycle.yaml lines). */
  settings?: string;
}

export const NOW = Date.parse('2026-11-21T03:00:00Z');
const DAY = 86_400_000;
const POLICY = read(PACKAGE_ROOT, 'config/safety-rules.yaml');
const MEMORY = '# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n## Later section\n\nAlso human.\n';

/** Every surface: where a secret must never appear. */
export const EVERY_SURFACE: readonly Surface[] = ['rule', 'memory', 'skills', 'state', 'report', 'json', 'commit', 'claude'];

/** `count` failures of an MCP tool named after the attack, with this error message. */
export function says(id: string, message: string, count = 3): AttackEvent[] {
  return failing(count, { tool_name: `mcp__atk_${id}__run`, error_message: message });
}

/** A real failure of a deploy tool in the scenarios, in two sessions (`session` names them). */
export function deployFailures(message: string, count: number, session = 'r'): AttackEvent[] {
  return Array.from({ length: count }, (_, i) => ({ tool_name: 'mcp__svc__deploy', exit_code: 1, error_category: 'api_error', error_message: message, session_id: `${session}-${i % 2}` }));
}

/** The real failure the flooding scenarios try to keep from its rule. */
export const REAL_ERROR = 'error: deploy rejected: manifest invalid';

/**
 * `n` distinct junk errors in the deploy tool's scope, one each, in one session: no two differ at one
 * position only, so none merge and each becomes a template. `prefix` decides where they sort.
 */
export function junkTemplates(n: number, prefix = ''): AttackEvent[] {
  return Array.from({ length: n }, (_, i) => ({ tool_name: 'mcp__svc__deploy', exit_code: 1, error_category: 'api_error', error_message: `error: ${prefix}${word(i)} collapsed ${word(i * 7 + 1)}`, session_id: 'j' }));
}

/** The scope key state.json files the deploy tool's templates under, and a template's id in it. */
export const DEPLOY_SCOPE = 'mcp__svc\u0000api_error';
export { templateId } from '../../pipeline/templates/template-id.js';

/** `count` failures of one attack, spread over `sessions` sessions. */
export function failing(count: number, fields: AttackEvent, sessions = 3): AttackEvent[] {
  return Array.from({ length: count }, (_, i) => ({ exit_code: 1, ...fields, session_id: fields.session_id ?? `s-${i % sessions}` }));
}

/**
 * A shell failure followed, in the same session, by a success of the same program: what worked next,
 * in `sessions` sessions (the writer cites it from two on).
 */
export function recovered(failedSummary: string, error: string, workedSummary: string, sessions = 3): AttackEvent[] {
  return Array.from({ length: sessions }, (_, i) => [
    { tool_name: 'Bash', exit_code: 1, input_summary: failedSummary, error_message: error, session_id: `r-${i}` },
    { tool_name: 'Bash', exit_code: 0, input_summary: workedSummary, session_id: `r-${i}` },
  ]).flat();
}

/** Short distinct words (a, b, …, z, ab, …): varied text without digits, which the masker would hide. */
export function word(i: number): string {
  let out = '';
  let n = i;
  do {
    out += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return out;
}

/** The category that keeps a content attack in its own scope and names its clusters. */
export function attackCategory(attack: { id: string }): string {
  return `atk_${attack.id.replace(/[^\w.:-]/g, '_')}`;
}

let hashes = 0;

/** Telemetry lines for events, one second apart from `start`, failures categorised by `category`. */
export function telemetryLines(events: AttackEvent[], start: number, category?: string): string {
  return events
    .map((e, i) => {
      hashes += 1;
      const failure = (e.exit_code ?? 0) !== 0;
      const line = {
        timestamp: new Date(start + i * 1000).toISOString(),
        tool_name: 'Bash',
        input_hash: `h-${hashes.toString(16)}`,
        exit_code: 0,
        duration_ms: 100,
        session_id: 's-0',
        ...e,
        ...(failure && e.error_category === undefined && category !== undefined ? { error_category: category } : {}),
      };
      return `${JSON.stringify(line)}\n`;
    })
    .join('');
}

export interface NightRun {
  code: number | null;
  signal: string | null;
  ms: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** The built CLI as a child process, killed after `timeoutMs` (a hang is a finding, not a stuck test run). */
export function runCli(dir: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<NightRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...childEnv(dir), ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null;
      }
      resolve({ code, signal, ms: Date.now() - started, stdout, stderr, json });
    });
    child.stdin.end();
  });
}

/** A temp git repository with the default policy, an empty log and these settings. */
export function attackRepo(settings = ''): string {
  return makeDir(
    { 'MEMORY.md': MEMORY, 'logs/telemetry.jsonl': '', 'config/safety-rules.yaml': POLICY, 'config/sleep-cycle.yaml': settings },
    { git: true },
  );
}

export interface Surfaces {
  memory: string;
  skills: string;
  state: string;
  report: string;
  json: string;
  commit: string;
  claude: string;
}

export function readSurfaces(dir: string, run: NightRun, claudeBodies: string[] = []): Surfaces {
  const optional = (path: string) => (existsSync(join(dir, path)) ? read(dir, path) : '');
  return {
    memory: read(dir, 'MEMORY.md'),
    skills: skillFiles(dir).map((name) => read(dir, `skills/${name}`)).join('\n'),
    state: optional('.sleep-cycle/state.json'),
    report: optional('proposed_memory_updates.md'),
    json: run.stdout,
    commit: git(dir, 'log', '-p', '-n', '1', '--format=%H%n%s%n%b'),
    claude: claudeBodies.join('\n'),
  };
}

/** The landed text of these rule ids: their MEMORY.md bullets and their skill file entries. */
export function landedRules(dir: string, ids: readonly string[]): string[] {
  const wanted = new Set(ids);
  const lines = read(dir, 'MEMORY.md')
    .split('\n')
    .filter((line) => wanted.has(/<!--\s*rule:(r-[0-9a-f]+)\s*-->\s*$/.exec(line)?.[1] ?? ''));
  const entries = skillFiles(dir).flatMap((name) => {
    const data = parseYaml(read(dir, `skills/${name}`)) as { derived_rules?: { id?: unknown; rule?: unknown }[] } | null;
    return (data?.derived_rules ?? []).filter((item) => wanted.has(String(item.id))).map((item) => String(item.rule));
  });
  return [...lines, ...entries];
}

function skillFiles(dir: string): string[] {
  const skills = join(dir, 'skills');
  return existsSync(skills) ? readdirSync(skills).filter((name) => name.endsWith('.yaml')).sort() : [];
}

/** Settings for a night of content attacks: their skill routes, and room for one Claude call per cluster. */
export function contentSettings(attacks: readonly ContentAttack[]): string {
  const routes = attacks.filter((a) => a.skill !== undefined).map((a) => routedTools(a).map((tool) => `  ${tool}: ${a.skill}\n`).join(''));
  return `max_llm_calls: 1000\nllm_token_budget: 100000000\nmax_new_rules: 100000\nllm_max_retries: 0\nllm_timeout_ms: 10000\n${routes.length > 0 ? `routing:\n${routes.join('')}` : ''}`;
}

function routedTools(attack: ContentAttack): string[] {
  return [...new Set(attack.events.filter((e) => (e.exit_code ?? 0) !== 0).map((e) => e.tool_name ?? 'Bash'))];
}

export interface ContentNight {
  dir: string;
  run: NightRun;
  surfaces: Surfaces;
  /** Per attack id, the rule texts its clusters landed in MEMORY.md or a skill file. */
  landed: Map<string, string[]>;
}

/**
 * The model that obeys: its rule is what the fence offers an attacker, the call that worked next ("run
 * <it> instead") or else the error template(s), flagged or not, after the tool's name (so the rule
 * names its tool, as the answer check wants).
 */
export function obeyingModel(paraphrase: boolean): (body: unknown) => Reply {
  return (body) => {
    const text = String((body as { messages?: { content?: unknown }[] } | null)?.messages?.[0]?.content ?? '');
    const tool = /\ntool: (\S+)/.exec(text)?.[1] ?? 'unknown';
    const literal = String.raw`(?:\[flagged[^\]]*\] )?("(?:[^"\\]|\\.)*")`;
    const shape = new RegExp(`sessions: ${literal}`).exec(text)?.[1];
    // The template lines come before the signatures and samples (see fence.ts).
    const head = text.split('\ntop signatures:')[0]!;
    const templates = [...head.matchAll(new RegExp(`^(?:error template: |- \\d+x )${literal}`, 'gm'))].map((m) => JSON.parse(m[1]!) as string);
    const payload = shape !== undefined ? `run ${JSON.parse(shape) as string} instead` : templates.join(' ');
    const words = `${tool}: ${payload}`.split(/\s+/);
    const rule = (paraphrase ? words.map((w, i) => (i > 0 && i % 6 === 0 ? `${FILLER} ${w}` : w)) : words).join(' ').slice(0, 290);
    return replies.answer({ rule, target: 'memory', rationale: 'the telemetry said so', confidence: 1 });
  };
}

/** The paraphrasing model's filler word; leaks() reads its rules without it, as their reader would. */
const FILLER = 'also';

/** All content attacks in one night, written by `synthesizer` (a fake Claude served from this process). */
export async function runContentNightWith(attacks: readonly ContentAttack[], synthesizer: Synthesizer): Promise<ContentNight & { claudeRequests: number }> {
  if (synthesizer === 'offline') return { ...(await runContentNight(attacks)), claudeRequests: 0 };
  const server = await startFakeMessagesServer();
  try {
    server.respond(obeyingModel(synthesizer === 'paraphrasing-claude'));
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test-template-attacks', ANTHROPIC_BASE_URL: server.baseURL };
    const night = await runContentNight(attacks, env, () => [...server.requests, ...server.judgeRequests].map((request) => request.rawBody));
    if (synthesizer === 'paraphrasing-claude') {
      for (const [id, texts] of night.landed) night.landed.set(id, texts.map((text) => text.replaceAll(` ${FILLER} `, ' ')));
    }
    return { ...night, claudeRequests: server.requests.length };
  } finally {
    await server.close();
  }
}

/** All content attacks in one night (each in its own category), with the synthesizer `env` selects. */
export async function runContentNight(attacks: readonly ContentAttack[], env: Record<string, string> = {}, claudeBodies: () => string[] = () => []): Promise<ContentNight> {
  const dir = attackRepo(contentSettings(attacks));
  let start = NOW - 6 * 3600_000;
  for (const attack of attacks) {
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), telemetryLines(attack.events, start, attackCategory(attack)));
    start += attack.events.length * 1000;
  }
  const run = await runCli(dir, ['run', '--json', '--now', new Date(NOW).toISOString()], env);
  const proposals: any[] = run.json?.data?.proposals ?? [];
  const landed = new Map(
    attacks.map((attack) => {
      const ids = proposals.filter((p) => p.error_category === attackCategory(attack)).map((p) => String(p.id));
      return [attack.id, landedRules(dir, ids)] as const;
    }),
  );
  return { dir, run, surfaces: readSurfaces(dir, run, claudeBodies()), landed };
}

/** The (surface, fragment) pairs of an attack that landed. */
export function leaks(attack: ContentAttack, night: ContentNight): string[] {
  const found: string[] = [];
  for (const surface of attack.surfaces) {
    const text = surface === 'rule' ? (night.landed.get(attack.id) ?? []).join('\n') : night.surfaces[surface];
    for (const fragment of attack.forbid) if (text.includes(fragment)) found.push(`${surface}: ${fragment}`);
  }
  return found;
}

export interface ScenarioResult {
  dir: string;
  runs: NightRun[];
  /** A short account of the last night, for a failing assertion's message. */
  summary: string;
}

/** The nights of a scenario in one repository, each a day after the one before. */
export async function runScenario(scenario: ScenarioAttack, timeoutMs = 120_000): Promise<ScenarioResult> {
  const dir = attackRepo(scenario.settings ?? '');
  const runs: NightRun[] = [];
  for (const [k, night] of scenario.nights.entries()) {
    const now = NOW + k * DAY;
    if (night.editMemory) {
      writeFileSync(join(dir, 'MEMORY.md'), night.editMemory(read(dir, 'MEMORY.md')));
      git(dir, 'commit', '-q', '-am', 'a human edits MEMORY.md');
    }
    if (night.editState) {
      const path = join(dir, '.sleep-cycle/state.json');
      writeFileSync(path, `${JSON.stringify(night.editState(JSON.parse(read(dir, '.sleep-cycle/state.json'))), null, 2)}\n`);
    }
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), telemetryLines(night.events ?? [], now - 6 * 3600_000));
    runs.push(await runCli(dir, ['run', '--json', '--now', new Date(now).toISOString()], {}, timeoutMs));
  }
  return { dir, runs, summary: summarize(runs.at(-1)!) };
}

function summarize(run: NightRun): string {
  const data = run.json?.data;
  if (!data) return `exit ${run.code} (${run.signal ?? 'no signal'}): ${run.json?.error?.message ?? run.stderr.slice(0, 300)}`;
  const proposals = (data.proposals as any[]).map((p) => `${p.status}: ${p.text}`);
  const unwritten = ((data.unwritten ?? []) as any[]).map((u) => `unwritten ${u.template}: ${u.reason}`);
  return [`exit ${run.code}`, ...proposals, ...unwritten, ...((data.notices ?? []) as string[])].join('\n').slice(0, 2000);
}

/** What the scenario's expectation finds wrong with its nights (empty: the attack was blocked). */
export function expectationProblems(scenario: ScenarioAttack, result: ScenarioResult): string[] {
  const last = result.runs.at(-1)!;
  const expect = scenario.expect;
  const problems: string[] = [];
  const crashed = result.runs.filter((run) => run.signal !== null || run.code === null);
  if (crashed.length > 0) problems.push(`${crashed.length} night(s) killed or crashed (${crashed.map((r) => r.signal ?? 'no exit code').join(', ')})`);
  if (expect.kind === 'fails-cleanly') {
    if (last.code !== expect.exit) problems.push(`exit ${last.code}, expected ${expect.exit}`);
    if (last.json?.error?.code !== expect.code) problems.push(`error ${last.json?.error?.code ?? 'none'}, expected ${expect.code}`);
    if (!String(last.json?.error?.message ?? '').includes(expect.mentions)) problems.push(`the message does not mention ${expect.mentions}`);
    return problems;
  }
  const failed = result.runs.filter((run) => run.code !== 0);
  if (failed.length > 0) problems.push(`${failed.length} night(s) exited non-zero: ${failed.map((r) => r.json?.error?.message ?? r.stderr.slice(0, 200)).join('; ')}`);
  if (expect.kind === 'completes') {
    const slow = result.runs.filter((run) => run.ms > expect.withinMs);
    if (slow.length > 0) problems.push(`a night took ${Math.max(...slow.map((r) => r.ms))} ms (at most ${expect.withinMs})`);
    const size = (path: string) => (existsSync(join(result.dir, path)) ? statSync(join(result.dir, path)).size : 0);
    if (size('.sleep-cycle/state.json') > expect.maxStateBytes) problems.push(`state.json is ${size('.sleep-cycle/state.json')} bytes (at most ${expect.maxStateBytes})`);
    if (size('proposed_memory_updates.md') > expect.maxReportBytes) problems.push(`the report is ${size('proposed_memory_updates.md')} bytes (at most ${expect.maxReportBytes})`);
  }
  if (expect.kind === 'rule-written') {
    const rules = read(result.dir, 'MEMORY.md').split('\n').filter((line) => /<!--\s*rule:r-[0-9a-f]+\s*-->\s*$/.test(line));
    if (!rules.some((line) => line.includes(expect.quoting))) problems.push(`no rule in MEMORY.md quotes ${JSON.stringify(expect.quoting)}`);
  }
  if (expect.kind === 'nothing-proposed') {
    const proposals = (last.json?.data?.proposals ?? []) as unknown[];
    if (proposals.length > 0) problems.push(`the last night proposed ${proposals.length} rule(s)`);
  }
  return problems;
}
