import { appendFileSync, closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { COLUMNS, FAMILIES, FAMILY_TITLES, COLUMN_TITLES, type Attack, type Forbid, type Night, type AttackLine, type AttackResult, type Column, type ContentAttack, type Family, type Mode, type ScenarioAttack } from '../fixtures/attacks/types.js';
import { markupOutsideCode, secretFindings, surfaceText, unsafeFindings } from './attack-detect.js';
import { attackCategory, hostileModel } from './attack-model.js';
import { changedFileTexts, commitsSince, headOf, makeSandbox, markersFound, repoFiles, sentinel, treeChanges, type Sandbox } from './attack-repo.js';
import { crashFindings, runNight, type NightRun } from './attack-run.js';
import { startFakeMessagesServer, type FakeMessagesServer } from './fake-messages-server.js';
import { removeTempDir } from './temp.js';

/**
 * Runs the attack corpus through the whole pipeline: the built CLI, `run` in a real temp git repository,
 * offline and against the hostile fake model. Content attacks of one family run together in one
 * repository (each in its own error category, so its clusters and rules are its own; its secrets are
 * unique parts), once per mode; a run that crashed, wrote outside or ran code is re-run attack by attack
 * to find whose doing it was. Scenario attacks (hostile repositories, resource abuse) run alone, night
 * after night. Each attack gets the columns it leaked in, with findings.
 */

export const NOW = Date.parse('2026-11-21T03:00:00Z');
const DAY = 86_400_000;
const LLM_SETTINGS = 'max_llm_calls: 1000\nllm_token_budget: 100000000\nmax_new_rules: 100000\nllm_max_retries: 0\nllm_timeout_ms: 10000\n';
/** CPU time a night may take (DoS past it), and wall time before it is killed (a hang). */
const DEFAULT_MAX_MS = 15_000;
const KILL_AFTER_MS = Number(process.env.ATTACKS_KILL_MS ?? 30_000);
const DEFAULT_MAX_BYTES = 5_000_000;
const BATCH = 70;

export interface CorpusOptions {
  concurrency?: number;
  /** Called as each job finishes (progress for the bench script). */
  onJob?: (label: string, ms: number) => void;
}

type Record_ = ((attack: Attack, column: Column, mode: Mode, finding: string) => void) & { reached?: (attack: Attack) => void; answered?: (id: string) => void; refused?: (attack: Attack, what: string) => void };

export async function runCorpus(attacks: readonly Attack[], options: CorpusOptions = {}): Promise<AttackResult[]> {
  const results = new Map(attacks.map((attack) => [attack.id, { id: attack.id, family: attack.family, columns: new Set<Column>(), findings: [] as string[], refusals: [] as string[], reached: false, answered: false }]));
  const record: Record_ = (attack, column, mode, finding) => {
    const result = results.get(attack.id)!;
    result.columns.add(column);
    result.findings.push(`${column} (${mode}): ${finding}`);
  };
  record.reached = (attack) => void (results.get(attack.id)!.reached = true);
  record.refused = (attack, what) => void results.get(attack.id)!.refusals.push(what);
  record.answered = (id) => void (results.get(id) && (results.get(id)!.answered = true));
  const jobs: { label: string; run: () => Promise<void> }[] = [];
  for (const family of FAMILIES) {
    const content = attacks.filter((a): a is ContentAttack => a.kind === 'content' && a.family === family);
    for (const mode of ['offline', 'model'] as const) {
      const batch = content.filter((a) => (a.modes ?? ['offline', 'model']).includes(mode));
      // A repository holds at most BATCH attacks: a night of a few hundred model clusters (each a writer and
      // a judge call) runs past the night's bounds, and the pool spreads the parts over its workers.
      for (let at = 0; at < batch.length; at += BATCH) {
        const part = batch.slice(at, at + BATCH);
        jobs.push({ label: `${family} content (${at + 1}-${at + part.length} of ${batch.length}, ${mode})`, run: () => runContent(part, mode, record, attacks) });
      }
    }
  }
  for (const attack of attacks) {
    if (attack.kind !== 'scenario') continue;
    for (const mode of attack.modes ?? ['offline']) jobs.push({ label: `${attack.id} (${mode})`, run: () => runScenario(attack, mode, record) });
  }
  await pool(jobs, options.concurrency ?? 3, options.onJob);
  return [...results.values()].map((r) => ({ id: r.id, family: r.family, columns: COLUMNS.filter((c) => r.columns.has(c)), findings: r.findings, refusals: r.refusals, reached: r.reached && (attacks.find((a) => a.id === r.id)?.answer === undefined || r.answered) }));
}

async function pool(jobs: { label: string; run: () => Promise<void> }[], width: number, onJob?: (label: string, ms: number) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const started = Date.now();
      await job.run();
      onJob?.(job.label, Date.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
}

// ---- content attacks --------------------------------------------------------------------------------

async function runContent(batch: readonly ContentAttack[], mode: Mode, record: Record_, all: readonly Attack[]): Promise<void> {
  const routes = batch.filter((a) => a.skill !== undefined).flatMap((a) => toolsOf(a).map((tool) => `  ${JSON.stringify(tool)}: ${a.skill}\n`));
  const sandbox = makeSandbox(`${LLM_SETTINGS}${routes.length > 0 ? `routing:\n${routes.join('')}` : ''}`);
  try {
    let start = NOW - 6 * 3600_000;
    for (const attack of batch) {
      appendFileSync(join(sandbox.dir, 'logs/telemetry.jsonl'), telemetry(attack.lines, start, attackCategory(attack)));
      start += attack.lines.length * 1000;
    }
    const night = await withModel(mode, all, record.answered, (env) => observedNight(sandbox, { args: ['run'] }, NOW, env, KILL_AFTER_MS * 4, 60_000));
    const problems = [...crashFindings(night.run, 'ok', 60_000).map((f) => ['crash', f] as const), ...night.outside.map((f) => ['outside', f] as const), ...night.markers.map((f) => ['code', f] as const)];
    if (problems.length > 0 && batch.length > 1) {
      // Whose doing was it? Each attack alone (rare: only when a batch misbehaved).
      for (const attack of batch) await runContent([attack], mode, record, all);
      return;
    }
    for (const [column, finding] of problems) record(batch[0]!, column, mode, finding);
    const surfaces = collectSurfaces(sandbox, night);
    const rules = derivedRules(sandbox);
    const proposals: any[] = night.run.json?.data?.proposals ?? [];
    const clusters: any[] = night.run.json?.data?.clusters ?? [];
    // A tool names an attack's clusters only when no other attack of the batch uses it.
    const toolUse = new Map<string, number>();
    for (const attack of batch) for (const tool of toolsOf(attack)) toolUse.set(tool, (toolUse.get(tool) ?? 0) + 1);
    for (const attack of batch) {
      const tools = new Set(toolsOf(attack).filter((tool) => toolUse.get(tool) === 1));
      const ids = new Set(proposals.filter((p) => p.error_category === attackCategory(attack) || tools.has(String(p.tool_name))).map((p) => String(p.id)));
      if (clusters.some((c) => c.promoted && (c.error_category === attackCategory(attack) || tools.has(String(c.tool_name))))) record.reached?.(attack);
      const own = rules.filter((rule) => ids.has(rule.id)).map((rule) => rule.text);
      for (const finding of unsafeFindings(attack, own, rules.map((rule) => rule.text))) record(attack, 'unsafe', mode, finding);
      for (const finding of secretFindings(attack, surfaces)) record(attack, 'secret', mode, finding);
    }
  } finally {
    removeTempDir(sandbox.root);
  }
}

function toolsOf(attack: ContentAttack): string[] {
  return [...new Set(attack.lines.filter((line) => !('raw' in line) && line.exit_code !== 0 && line.exit_code !== undefined).map((line) => String((line as { tool_name?: unknown }).tool_name ?? 'Bash')))];
}

// ---- scenario attacks -------------------------------------------------------------------------------

async function runScenario(attack: ScenarioAttack, mode: Mode, record: Record_): Promise<void> {
  const sandbox = makeSandbox(`${mode === 'model' ? LLM_SETTINGS : ''}${attack.settings ?? ''}`);
  try {
    try {
      attack.setup?.(sandbox);
    } catch (error) {
      throw new Error(`attack ${attack.id}: its setup failed: ${String(error)}`);
    }
    sandbox.base = headOf(sandbox);
    const before = repoFiles(sandbox);
    const runs: NightRun[] = [];
    const bodies: string[] = [];
    // What the nights themselves appended to the log (a hook's or an importer's events): the harness's own
    // lines are not a surface, these are.
    const logged: string[] = [];
    const maxMs = attack.limits?.ms ?? DEFAULT_MAX_MS;
    await withModel(mode, [attack], record.answered, async (env) => {
      for (const [index, night] of attack.nights.entries()) {
        if (night.lines) appendFileSync(join(sandbox.dir, 'logs/telemetry.jsonl'), telemetry(night.lines, NOW + (night.day ?? index) * DAY - 6 * 3600_000, attackCategory(attack)));
        night.before?.(sandbox);
        const logAt = logSize(sandbox);
        // A night marked heavy (its own CPU bound) is not a hang on a loaded machine: three times that in wall time.
        const wall = attack.limits?.ms !== undefined ? Math.max(KILL_AFTER_MS, 3 * maxMs) : KILL_AFTER_MS;
        const stdin = typeof night.stdin === 'function' ? night.stdin(sandbox) : night.stdin;
        const observed = await observedNight(sandbox, { ...night, stdin }, NOW + (night.day ?? index) * DAY, env, wall, maxMs + 1000);
        night.after?.(sandbox);
        logged.push(logSince(sandbox, logAt));
        runs.push(observed.run);
        const crashes = crashFindings(observed.run, attack.accept ?? 'clean', maxMs, night.json !== false);
        for (const finding of crashes) record(attack, 'crash', mode, `night ${index + 1}: ${finding}`);
        // A clean refusal blocks the attack: listed, so that one refused for the harness's own reason (an option
        // the command does not take) can be told from one the defence refused.
        if (crashes.length === 0 && observed.run.code !== 0) record.refused?.(attack, `${mode} night ${index + 1}: exit ${observed.run.code} ${String(observed.run.json?.error?.code ?? '')} ${String(observed.run.json?.error?.message ?? observed.run.stderr).slice(0, 160)}`);
        for (const finding of observed.outside) record(attack, 'outside', mode, `night ${index + 1}: ${finding}`);
        for (const finding of observed.markers) record(attack, 'code', mode, `night ${index + 1}: ${finding}`);
        bodies.push(...observed.bodies);
        // Alone in its repository, every cluster is the attack's: one promoted brought it to the rule writer
        // (a content attack run solo is then counted as the batch counts it, not blocked by being lost).
        if ((observed.run.json?.data?.clusters ?? []).some((c: { promoted?: unknown }) => c.promoted === true)) record.reached?.(attack);
        if (observed.run.timedOut) break;
      }
    });
    const bytes = attack.limits?.bytes ?? DEFAULT_MAX_BYTES;
    for (const file of changedFileTexts(sandbox, before)) if (file.text.length > bytes) record(attack, 'crash', mode, `DoS: ${file.name} is ${file.text.length} bytes (bound ${bytes})`);
    const rules = derivedRules(sandbox).map((rule) => rule.text);
    if (attack.ruleQuoting !== undefined && !rules.some((rule) => rule.includes(attack.ruleQuoting!))) record(attack, 'crash', mode, `DoS: no rule quotes ${JSON.stringify(attack.ruleQuoting)} after the last night`);
    for (const finding of unsafeFindings(attack, rules, rules)) record(attack, 'unsafe', mode, finding);
    for (const finding of forbidFindings(attack.forbid ?? [], sandbox, before, runs)) record(attack, finding.column, mode, finding.text);
    const surfaces = [...collectSurfaces(sandbox, { run: mergeRuns(runs), bodies, before }), { name: 'logs/telemetry.jsonl (written by the nights)', text: surfaceText(logged.join('')) }];
    for (const finding of secretFindings(attack, surfaces)) record(attack, 'secret', mode, finding);
  } finally {
    removeTempDir(sandbox.root);
  }
}

const LOG = (sandbox: Sandbox) => join(sandbox.dir, 'logs/telemetry.jsonl');

function logSize(sandbox: Sandbox): number {
  try {
    return statSync(LOG(sandbox)).size;
  } catch {
    return 0;
  }
}

/** Most of a log the harness reads back: an attack may leave a huge one. */
const MAX_LOG_READ = 64 << 20;

/**
 * The log's bytes past `at` (the whole log when a night shortened it), at most MAX_LOG_READ of them. Only
 * a regular file is read: an attack may leave the log a link to /dev/zero (read whole, it filled the
 * machine's memory: the worker was killed at 24 GB) or a FIFO (a read would block).
 */
function logSince(sandbox: Sandbox, at: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(LOG(sandbox), constants.O_RDONLY | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile()) return '';
    const start = info.size >= at ? at : 0;
    const length = Math.min(info.size - start, MAX_LOG_READ);
    const bytes = Buffer.alloc(length);
    const read = readSync(fd, bytes, 0, length, start);
    return bytes.subarray(0, read).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Forbidden text where a reader sees it: the file as the nights left it (new or changed), or their stdout. */
function forbidFindings(forbids: readonly Forbid[], sandbox: Sandbox, before: Map<string, string>, runs: readonly NightRun[]): { column: Column; text: string }[] {
  const files = new Map(changedFileTexts(sandbox, before).map((file) => [file.name, file.text]));
  const found: { column: Column; text: string }[] = [];
  for (const forbid of forbids) {
    const text = forbid.in === 'stdout' ? runs.map((run) => run.stdout).join('\n') : files.get(forbid.in);
    if (text === undefined) continue;
    const seen = forbid.view === 'markdown' ? markupOutsideCode(text) : text;
    const hit = forbid.pattern.exec(seen);
    if (hit) found.push({ column: forbid.column, text: `${forbid.in}: ${forbid.what} (${JSON.stringify(hit[0].slice(0, 80))})` });
  }
  return found;
}

function mergeRuns(runs: NightRun[]): NightRun {
  return { code: 0, signal: null, timedOut: false, ms: 0, cpuMs: null, json: null, stdout: runs.map((r) => r.stdout).join('\n'), stderr: runs.map((r) => r.stderr).join('\n') };
}

// ---- one observed night -----------------------------------------------------------------------------

interface ModelEnv extends Record<string, any> {
  bodies: string[];
}

interface ObservedNight {
  run: NightRun;
  outside: string[];
  markers: string[];
  bodies: string[];
  before: Map<string, string>;
}

/** Runs `body` with the env for this mode: offline (no key), or the hostile model on a server of its own. */
async function withModel<T>(mode: Mode, attacks: readonly Attack[], answered: ((id: string) => void) | undefined, body: (env: ModelEnv) => Promise<T>): Promise<T> {
  if (mode === 'offline') return body({ bodies: [] });
  const server: FakeMessagesServer = await startFakeMessagesServer();
  try {
    server.respond(hostileModel(attacks, answered));
    return await body({ bodies: [], ANTHROPIC_API_KEY: 'sk-ant-corpus-fake-key', ANTHROPIC_BASE_URL: server.baseURL, __server: server });
  } finally {
    await server.close();
  }
}

async function observedNight(sandbox: Sandbox, night: Pick<Night, 'args' | 'clock' | 'json'> & { stdin?: string | Buffer }, at: number, env: ModelEnv, killAfterMs: number, killAfterCpuMs: number): Promise<ObservedNight> {
  const before = repoFiles(sandbox);
  const outsideBefore = sentinel(sandbox);
  const markersBefore = new Set(markersFound(sandbox));
  const server = env.__server as FakeMessagesServer | undefined;
  const already = server?.requests.length ?? 0;
  const childEnv: Record<string, string> = { HOME: sandbox.home };
  if (env.ANTHROPIC_API_KEY) Object.assign(childEnv, { ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL });
  // pre-session takes no --now (it is a dry run at the real time): given one, it refused with E_USAGE, which counted
  // as blocked, so attacks on it tested nothing (found by the refusals audit, eleventh session).
  const command = (night.args ?? ['run'])[0];
  const clock = night.clock === 'real' || command === 'pre-session' ? [] : ['--now', new Date(at).toISOString()];
  const args = [...(night.args ?? ['run']), ...(night.json === false ? [] : ['--json']), ...clock];
  const run = await runNight(sandbox.dir, args, childEnv, killAfterMs, killAfterCpuMs, night.stdin);
  // Markers first: the harness's own git calls below override every execution point, but look before them anyway.
  const markers = markersFound(sandbox).filter((name) => !markersBefore.has(name)).map((name) => `code ran: marker ${name}`);
  const outside = treeChanges(outsideBefore, sentinel(sandbox)).map((change) => `outside the repository: ${change}`);
  const bodies = server ? server.requests.slice(already).map((request) => request.rawBody) : [];
  return { run, outside, markers, bodies, before };
}

/** Every place a secret must not reach: files the run wrote, its commits, stdout, stderr, the LLM requests. */
function collectSurfaces(sandbox: Sandbox, night: Pick<ObservedNight, 'run' | 'bodies' | 'before'>): { name: string; text: string }[] {
  return [
    ...changedFileTexts(sandbox, night.before).map((file) => ({ name: file.name, text: surfaceText(file.text) })),
    { name: 'commits', text: surfaceText(commitsSince(sandbox)) },
    { name: 'stdout', text: surfaceText(night.run.stdout) },
    { name: 'stderr', text: surfaceText(night.run.stderr) },
    ...night.bodies.map((body, i) => ({ name: `LLM request ${i + 1}`, text: surfaceText(body) })),
  ];
}

/** Every derived rule (id and text) in MEMORY.md and the skill files. */
function derivedRules(sandbox: Sandbox): { id: string; text: string }[] {
  const rules: { id: string; text: string }[] = [];
  const memory = join(sandbox.dir, 'MEMORY.md');
  const text = safeRead(memory);
  const section = text.split(/^## Derived Rules\s*$/m)[1]?.split(/^## /m)[0] ?? '';
  for (const line of section.split('\n')) if (line.trim() !== '') rules.push(ruleLine(line));
  const skills = join(sandbox.dir, 'skills');
  const names = existsSync(skills) ? safeList(skills).filter((name) => name.endsWith('.yaml')) : [];
  for (const name of names) {
    try {
      const data = parseYaml(safeRead(join(skills, name)), { maxAliasCount: 50 }) as { derived_rules?: { id?: unknown; rule?: unknown }[] } | null;
      for (const item of data?.derived_rules ?? []) rules.push({ id: String(item?.id ?? ''), text: String(item?.rule ?? JSON.stringify(item)) });
    } catch {
      rules.push({ id: '', text: safeRead(join(skills, name)) });
    }
  }
  return rules;
}

/**
 * A bullet of `## Derived Rules`: its text without the id comment the writer itself ends it with (that
 * `<!-- rule:… -->` is ours, so an attack looking for `<!--` must not find it there). Any other comment,
 * a forged id in the middle included, stays in the text.
 */
export function ruleLine(line: string): { id: string; text: string } {
  const own = /^(.*?)\s*<!--\s*rule:(r-[0-9a-f]+)\s*-->\s*$/.exec(line);
  return own ? { id: own[2]!, text: own[1]! } : { id: /rule:(r-[0-9a-f]+)/.exec(line)?.[1] ?? '', text: line };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

// ---- telemetry --------------------------------------------------------------------------------------

let hashes = 0;

/** Lines one second apart from `start`; failures without a category get `category`; raw lines as written. */
export function telemetry(lines: readonly AttackLine[], start: number, category: string): string {
  return lines
    .map((line, i) => {
      if ('raw' in line && typeof line.raw === 'string') return line.raw;
      const fields = line as Record<string, unknown>;
      hashes += 1;
      const failure = fields.exit_code !== undefined && fields.exit_code !== 0;
      const event = {
        timestamp: new Date(start + i * 1000).toISOString(),
        tool_name: 'Bash',
        input_hash: `h-${hashes.toString(16)}`,
        exit_code: 0,
        duration_ms: 100,
        session_id: 's-0',
        ...(failure && !('error_category' in fields) ? { error_category: category } : {}),
        ...fields,
      };
      return `${JSON.stringify(event)}\n`;
    })
    .join('');
}

// ---- the table --------------------------------------------------------------------------------------

export interface FamilyCounts {
  family: Family;
  title: string;
  attacks: number;
  columns: Record<Column, number>;
}

export function countTable(results: readonly AttackResult[]): FamilyCounts[] {
  return FAMILIES.map((family) => {
    const rows = results.filter((r) => r.family === family);
    const columns = Object.fromEntries(COLUMNS.map((c) => [c, rows.filter((r) => r.columns.includes(c)).length])) as Record<Column, number>;
    return { family, title: FAMILY_TITLES[family], attacks: rows.length, columns };
  });
}

/** The issue's table, in markdown. */
export function renderTable(results: readonly AttackResult[]): string {
  const counts = countTable(results);
  const head = `| family | attacks | ${COLUMNS.map((c) => COLUMN_TITLES[c]).join(' | ')} |`;
  const rule = `|---|---:|${COLUMNS.map(() => '---:').join('|')}|`;
  const rows = counts.map((row) => `| ${row.title} | ${row.attacks} | ${COLUMNS.map((c) => row.columns[c]).join(' | ')} |`);
  const total = `| **total** | ${results.length} | ${COLUMNS.map((c) => results.filter((r) => r.columns.includes(c)).length).join(' | ')} |`;
  return [head, rule, ...rows, total].join('\n');
}
