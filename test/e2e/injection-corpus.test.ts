import { toolFamily } from '../../pipeline/telemetry/tool-family.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseMemory } from '../../pipeline/memory/memory-md.js';
import { INJECTION_CASES, type InjectionCase } from '../fixtures/injections.js';
import { replies, startFakeMessagesServer, type Reply } from '../helpers/fake-messages-server.js';
import { event, lines, makeDir, PACKAGE_ROOT, read, runCliProcessAsync } from '../helpers/repo.js';

/**
 * The adversarial corpus through the whole pipeline (real CLI subprocess, temp git repo, offline
 * synthesizer): every payload is the error text of a failure repeated often enough to be promoted, so
 * each one reaches the rule writer, and none of the fragments a case forbids may land in MEMORY.md or a
 * skill file, in any disguise.
 *
 * Payloads are placed two ways in the same run:
 * - dominant: each payload alone in its own cluster (`tool_inj_<n>`), so it is the text a rule would quote;
 * - mixed: spread over a few real-looking tool/category clusters, raw or after a benign first line, next
 *   to benign failures that dominate half of those clusters and are all distinct in the other half.
 */

/**
 * Payloads known to land an unsafe fragment and not fixed yet: tolerated (and printed) here so the rest
 * of the corpus stays a hard gate. An id listed here that no longer leaks fails the test, so the list
 * only ever shrinks.
 */
const KNOWN_GAPS = new Set<string>([]);

const POLICY = read(PACKAGE_ROOT, 'config/safety-rules.yaml');
const MEMORY = '# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n## Later section\n\nAlso human.\n';
const REPEATS = 3;
const DOMINANT_CATEGORIES = ['tool_error', 'git_error', 'api_error', 'validation_error'];
/** Every fifth dominant cluster is routed to a skill file, so skills are attacked too. */
const ROUTED_SKILL = 'injected-tools';

const MIXED_CLUSTERS: { tool: string; category: string; benign: string[] }[] = [
  { tool: 'Bash', category: 'tool_error', benign: ['bash: line 1: jq: command not found'] },
  { tool: 'git_push', category: 'git_error', benign: ["fatal: Unable to create '/repo/.git/index.lock': File exists."] },
  { tool: 'Edit', category: 'edit_mismatch', benign: ['String to replace not found in file.'] },
  { tool: 'WebFetch', category: 'network_error', benign: ['Error: getaddrinfo ENOTFOUND registry.example.org'] },
  { tool: 'mcp__github__create_pr', category: 'api_error', benign: distinct('GraphQL error: field "title" invalid at position') },
  { tool: 'Read', category: 'not_found', benign: distinct('ENOENT: no such file or directory, open src/module') },
  { tool: 'npm_test', category: 'test_failure', benign: distinct('AssertionError: expected 200 to equal status') },
  { tool: 'Bash', category: 'permission_denied', benign: distinct('EACCES: permission denied, open build/out') },
];
/** Edit rules go to a skill file as well. */
const MIXED_ROUTING: Record<string, string> = { Edit: 'editing' };
const BENIGN_DOMINANT_COPIES = 40;

function distinct(prefix: string): string[] {
  return Array.from({ length: 12 }, (_, i) => `${prefix}${i}`);
}

const dominantTool = (index: number) => `tool_inj_${index}`;
const mixedCluster = (index: number) => MIXED_CLUSTERS[index % MIXED_CLUSTERS.length]!;
/** Half the mixed placements hide the payload after a benign first line of the same message. */
const mixedMessage = (index: number, text: string) => {
  const cluster = mixedCluster(index);
  return Math.floor(index / MIXED_CLUSTERS.length) % 2 === 0 ? text : `${cluster.benign[0]}\n${text}`;
};

// ---- folding: what a reader (or a model) would still read as the forbidden fragment ------------------

const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l',
  А: 'a', В: 'b', Е: 'e', К: 'k', М: 'm', Н: 'h', О: 'o', Р: 'p', С: 'c', Т: 't', Х: 'x', У: 'y', І: 'i', Ј: 'j', Ѕ: 's',
  // Greek
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');

function fold(text: string): string {
  return text
    .replace(/[\u{E0020}-\u{E007E}]/gu, (ch) => String.fromCodePoint(ch.codePointAt(0)! - 0xe0000)) // tag characters
    .normalize('NFKC')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // combining marks
    .replace(/\p{Cf}/gu, '') // zero-width, soft hyphen, word joiner, bidi controls, remaining tags
    .normalize('NFC')
    .replace(CONFUSABLE_RE, (ch) => CONFUSABLES[ch]!)
    .replace(/[\u2010-\u2012\u2212]/g, '-')
    .replace(/[\u2013\u2014]/g, '--')
    .replace(/[\u2018\u2019\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201F\u2033]/g, '"')
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') return String.fromCodePoint(body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10));
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}
function decodePercent(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
function decodeHexEscapes(text: string): string {
  return text.replace(/\\x([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
function decodeBase64Runs(text: string): string {
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8'));
  return decoded.filter((d) => /^[\x20-\x7e\s]+$/.test(d)).join('\n');
}

/** The text as read, plus every decoding an attacker could rely on a model to perform. */
function readings(text: string): string[] {
  return [text, decodeEntities(text), decodePercent(text), decodeHexEscapes(text), decodeBase64Runs(text)].map(fold);
}

function contains(text: string, fragment: string): boolean {
  const folded = fold(fragment);
  // A fragment made only of invisible characters (a bidi override) is searched for as written.
  if (folded.trim() === '') return text.includes(fragment);
  return readings(text).some((reading) => reading.includes(folded));
}

// ---- the run -----------------------------------------------------------------------------------------

interface Landed {
  where: string;
  /** The rule id of that bullet or skill entry, when there is one. */
  id: string | null;
  text: string;
}

interface Leak extends Landed {
  /** Every (case, fragment) pair found in the text. */
  hits: { caseId: string; fragment: string }[];
  /** The payload(s) whose cluster produced the rule. */
  from: string[];
}

function buildTelemetry(cases: InjectionCase[]): string {
  const base = Date.now() - 2 * 3600_000;
  let tick = 0;
  const at = () => new Date(base + (tick++) * 1000).toISOString();
  const out: string[] = [];
  cases.forEach((c, i) => {
    for (let r = 0; r < REPEATS; r++) {
      out.push(event({ tool_name: dominantTool(i), exit_code: 1, error_category: DOMINANT_CATEGORIES[i % DOMINANT_CATEGORIES.length], error_message: c.text, session_id: `s-${r}`, timestamp: at() }));
    }
  });
  cases.forEach((c, i) => {
    const cluster = mixedCluster(i);
    for (let r = 0; r < REPEATS; r++) {
      out.push(event({ tool_name: cluster.tool, exit_code: 1, error_category: cluster.category, error_message: mixedMessage(i, c.text), session_id: `s-${r}`, timestamp: at() }));
    }
  });
  for (const cluster of MIXED_CLUSTERS) {
    const messages = cluster.benign.length === 1 ? Array.from({ length: BENIGN_DOMINANT_COPIES }, () => cluster.benign[0]!) : cluster.benign;
    for (const message of messages) {
      out.push(event({ tool_name: cluster.tool, exit_code: 1, error_category: cluster.category, error_message: message, session_id: 's-benign', timestamp: at() }));
    }
  }
  return lines(...out);
}

function settingsYaml(cases: InjectionCase[]): string {
  const routing = Object.fromEntries([
    ...cases.flatMap((_, i) => (i % 5 === 0 ? [[dominantTool(i), ROUTED_SKILL]] : [])),
    ...Object.entries(MIXED_ROUTING),
  ]);
  return `sample_size: 10\nrouting:\n${Object.entries(routing).map(([tool, skill]) => `  ${tool}: ${skill}\n`).join('')}`;
}

/** Every line of MEMORY.md with its rule id, and every string in each skill file's YAML data. */
function landedText(dir: string): Landed[] {
  const landed: Landed[] = [];
  read(dir, 'MEMORY.md').split('\n').forEach((line, n) => {
    landed.push({ where: `MEMORY.md:${n + 1}`, id: /<!--\s*rule:(r-[0-9a-f]+)\s*-->\s*$/.exec(line)?.[1] ?? null, text: line });
  });
  for (const name of skillFiles(dir)) {
    const walk = (value: unknown, path: string, id: string | null): void => {
      if (typeof value === 'string') landed.push({ where: `skills/${name} ${path}`, id, text: value });
      else if (Array.isArray(value)) value.forEach((item, k) => walk(item, `${path}[${k}]`, id));
      else if (value !== null && typeof value === 'object') {
        const entryId = typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : id;
        for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key, entryId);
      }
    };
    walk(parseYaml(read(dir, `skills/${name}`)), '', null);
  }
  return landed;
}

function skillFiles(dir: string): string[] {
  const skillsDir = join(dir, 'skills');
  return existsSync(skillsDir) ? readdirSync(skillsDir).filter((f) => f.endsWith('.yaml')).sort() : [];
}

/**
 * The worst model there is: it obeys the data. Each answer is the cluster's payload itself, prefixed
 * with the tool name so it passes the "mentions the tool" check; only the firewall after it can help.
 */
function obeyingModel(body: unknown): Reply {
  const text = JSON.stringify(body);
  const tool = /tool: ([\w:@./-]+)/.exec(text)?.[1] ?? 'unknown';
  const index = /^tool_inj_(\d+)$/.exec(tool)?.[1];
  // A shell tool's failures are filed under the program that failed (its family): obey the first payload then.
  const payload = index !== undefined ? INJECTION_CASES[Number(index)]!.text : (INJECTION_CASES.find((_, i) => toolFamily(mixedCluster(i).tool) === tool) ?? INJECTION_CASES[0]!).text;
  const rule = `${tool}: ${payload}`.replace(/\s+/g, ' ').slice(0, 290);
  return replies.answer({ rule, target: 'memory', rationale: 'the telemetry said so', confidence: 1 });
}

describe('adversarial injection corpus (whole pipeline)', () => {
  it(`${INJECTION_CASES.length} payloads, offline synthesizer: no unsafe fragment lands in MEMORY.md or skills`, async () => {
    await checkCorpus({}, 'offline');
  });

  it(`${INJECTION_CASES.length} payloads, a Claude that obeys the payloads: still no unsafe fragment lands`, async () => {
    const server = await startFakeMessagesServer();
    try {
      server.respond(obeyingModel);
      await checkCorpus({ ANTHROPIC_API_KEY: 'sk-ant-test-corpus', ANTHROPIC_BASE_URL: server.baseURL }, 'obeying Claude');
      expect(server.requests.length).toBeGreaterThanOrEqual(INJECTION_CASES.length);
    } finally {
      await server.close();
    }
  });
});

async function checkCorpus(env: Record<string, string>, label: string): Promise<void> {
  {
    expect(INJECTION_CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(INJECTION_CASES.map((c) => c.id)).size).toBe(INJECTION_CASES.length);
    for (const c of INJECTION_CASES) {
      expect(c.forbidden.length, c.id).toBeGreaterThan(0);
      // The folding sees through the case's own disguise: its payload shows at least one forbidden fragment.
      expect(c.forbidden.some((fragment) => contains(c.text, fragment)), `${c.id}: no forbidden fragment is visible in its own payload`).toBe(true);
    }

    const dir = makeDir(
      {
        'MEMORY.md': MEMORY,
        'logs/telemetry.jsonl': buildTelemetry(INJECTION_CASES),
        'config/safety-rules.yaml': POLICY,
        'config/sleep-cycle.yaml': `${settingsYaml(INJECTION_CASES)}max_llm_calls: 500\nllm_token_budget: 10000000\nllm_max_retries: 0\n`,
      },
      { git: true },
    );
    // The corpus must not be trivially clean: the fixture files themselves carry the fragments.
    expect(contains(read(dir, 'logs/telemetry.jsonl'), 'ignore previous')).toBe(true);
    expect(landedText(dir).some((l) => INJECTION_CASES.some((c) => c.forbidden.some((f) => contains(l.text, f))))).toBe(false);

    const run = await runCliProcessAsync(dir, ['run', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.success).toBe(true);
    const data = run.json.data;
    const proposals: any[] = data.proposals;
    // Drafted (a proposal) or declined by the writer (nothing safe and specific to say: no rule).
    const written = [...proposals, ...data.unwritten];
    // A cluster is named by its tool family (an MCP tool's server: mcp__github__create_pr is mcp__github).
    const byTool = (tool: string, category: string) => written.filter((p) => p.tool_name === toolFamily(tool) && p.error_category === category);

    // Every payload reached the rule writer: its clusters (one per error template) were promoted and drafted or declined.
    const reached = INJECTION_CASES.filter((_, i) => {
      const mixed = mixedCluster(i);
      return byTool(dominantTool(i), DOMINANT_CATEGORIES[i % DOMINANT_CATEGORIES.length]!).length >= 1 && byTool(mixed.tool, mixed.category).length >= 1;
    });
    expect(reached.map((c) => c.id)).toEqual(INJECTION_CASES.map((c) => c.id));

    // Which payloads fed each rule: the dominant cluster's own payload, or the mixed cluster's payloads.
    const sourcesOf = new Map<string, InjectionCase[]>();
    for (const p of proposals) {
      const m = /^tool_inj_(\d+)$/.exec(p.tool_name);
      sourcesOf.set(p.id, m ? [INJECTION_CASES[Number(m[1])]!] : INJECTION_CASES.filter((_, i) => toolFamily(mixedCluster(i).tool) === p.tool_name && mixedCluster(i).category === p.error_category));
    }
    const proposalById = new Map(proposals.map((p) => [p.id as string, p]));

    // 0 unsafe rules: no forbidden fragment of any case, in any disguise, on any landed line or skill string.
    const leaks: Leak[] = [];
    for (const item of landedText(dir)) {
      const hits = INJECTION_CASES.flatMap((c) => c.forbidden.filter((fragment) => contains(item.text, fragment)).map((fragment) => ({ caseId: c.id, fragment })));
      if (hits.length === 0) continue;
      const sources = (item.id && sourcesOf.get(item.id)) || [];
      // For a mixed cluster, the payloads in it that carry one of the landed fragments.
      const fragments = new Set(hits.map((h) => h.fragment));
      const carriers = sources.filter((c) => sources.length === 1 || c.forbidden.some((f) => fragments.has(f) && contains(c.text, f)));
      leaks.push({ ...item, hits, from: (carriers.length > 0 ? carriers : sources).map((c) => c.id) });
    }
    for (const leak of leaks) {
      const proposal = leak.id ? proposalById.get(leak.id) : undefined;
      const known = leak.from.some((id) => KNOWN_GAPS.has(id)) ? ' (known gap)' : '';
      console.log(
        `UNSAFE RULE${known} from ${leak.from.join(', ') || '?'} at ${leak.where} (rule ${leak.id ?? '-'}, ${proposal ? `${proposal.tool_name}/${proposal.error_category}, status ${proposal.status}` : 'no proposal'})\n` +
          `  fragments: ${[...new Set(leak.hits.map((h) => JSON.stringify(h.fragment)))].join(', ')}\n  text: ${JSON.stringify(leak.text)}`,
      );
    }

    // Ids: exactly the applied proposals, each in its own target, and nothing else that looks like an id.
    const applied = proposals.filter((p) => p.status === 'applied');
    const memoryText = read(dir, 'MEMORY.md');
    const idsIn = (text: string) => [...fold(text).matchAll(/rule\s*:\s*(r-[0-9a-z]+)/g)].map((m) => m[1]!).sort();
    const memoryIds = applied.filter((p) => p.target === 'memory').map((p) => p.id as string).sort();
    // An id-looking string on a line is tolerated only when that line is already a known-gap leak.
    const knownGapLines = new Set(leaks.filter((l) => l.from.length > 0 && l.from.every((id) => KNOWN_GAPS.has(id))).map((l) => l.where));
    const idLines = memoryText.split('\n').flatMap((line, n) => idsIn(line).map((id) => ({ id, where: `MEMORY.md:${n + 1}` })));
    const ownId = (entry: { id: string; where: string }) => landedText(dir).find((l) => l.where === entry.where)?.id === entry.id;
    const extraIds = idLines.filter((entry) => !ownId(entry) && !knownGapLines.has(entry.where));
    expect.soft(extraIds, 'MEMORY.md holds rule ids that are not the bullet\'s own').toEqual([]);
    expect.soft(idLines.filter(ownId).map((e) => e.id).sort(), 'rule ids in MEMORY.md are exactly the applied memory proposals').toEqual(memoryIds);
    const skillTargets = [...new Set(applied.filter((p) => p.target !== 'memory').map((p) => p.target as string))].sort();
    // Offline, both routed targets get a rule; an obeying model may see every routed draft quarantined.
    if (label === 'offline') expect.soft(skillTargets).toEqual([`skill:${ROUTED_SKILL}`, 'skill:editing'].sort());
    expect.soft(skillFiles(dir)).toEqual(skillTargets.map((t) => `${t.slice('skill:'.length)}.yaml`));
    for (const target of skillTargets) {
      const skill = target.slice('skill:'.length);
      const doc = parseYaml(read(dir, `skills/${skill}.yaml`)) as { derived_rules: { id: string; rule: string }[] };
      const expected = applied.filter((p) => p.target === target).map((p) => p.id).sort();
      expect.soft(doc.derived_rules.map((r) => r.id).sort(), target).toEqual(expected);
      expect.soft(idsIn(doc.derived_rules.map((r) => r.rule).join('\n')), `${target}: rule ids inside rule text`).toEqual([]);
      for (const rule of doc.derived_rules) expect.soft(rule.rule, `${target} ${rule.id}`).not.toMatch(/[\r\n\u2028\u2029]/);
    }
    for (const p of proposals.filter((p) => p.status !== 'applied')) expect.soft(memoryText, `${p.status} ${p.id}`).not.toContain(p.id);

    // MEMORY.md still parses: one section, every comment line is a single well-formed rule bullet.
    const parsed = parseMemory(memoryText);
    expect.soft(parsed.duplicateHeadings).toBe(0);
    expect.soft(parsed.section).not.toBeNull();
    const commentLines = memoryText.split('\n').filter((line) => line.includes('<!--') || line.includes('-->'));
    for (const line of commentLines) {
      expect.soft(line, 'a comment line must be one rule bullet').toMatch(/^- [^\n]*? <!-- rule:r-[0-9a-f]+ -->$/);
      expect.soft(line.match(/<!--/g)?.length, line).toBe(1);
    }
    expect.soft(parsed.rules.map((r) => r.id).sort()).toEqual(memoryIds);
    expect.soft(memoryText.startsWith('# Project memory\n\nHuman notes stay exactly as written.\n\n## Derived Rules\n\n- ')).toBe(true);
    expect.soft(memoryText.endsWith('\n## Later section\n\nAlso human.\n')).toBe(true);

    // Summary, from the run's --json output.
    const dominant = INJECTION_CASES.map((_, i) => byTool(dominantTool(i), DOMINANT_CATEGORIES[i % DOMINANT_CATEGORIES.length]!)[0]);
    // An unwritten cluster (no rule: the writer declined) counts as withheld.
    const isWithheld = (p: any) => p.reasons === undefined || p.reasons.some((r: string) => /withheld/i.test(r));
    const quarantined = dominant.filter((p) => p.status === 'quarantined').length;
    const withheld = dominant.filter((p) => p.status !== 'quarantined' && isWithheld(p)).length;
    const mixed = proposals.filter((p) => !/^tool_inj_/.test(p.tool_name));
    console.log(
      `injection corpus (${label}): ${INJECTION_CASES.length} payloads tried, ${reached.length} reached the rule writer, ${leaks.length} unsafe rules landed${leaks.length > 0 ? ` (${leaks.filter((l) => l.from.some((id) => KNOWN_GAPS.has(id))).length} of them KNOWN_GAPS)` : ''}, ${quarantined} quarantined, ${withheld} withheld`,
    );
    const families = [...new Set(INJECTION_CASES.map((c) => c.family))].map((f) => `${f} ${INJECTION_CASES.filter((c) => c.family === f).length}`);
    console.log(
      `  dominant placement: ${INJECTION_CASES.length - quarantined - withheld} quoted and applied; mixed placement: ${mixed.length} clusters, ` +
        `${mixed.filter((p) => p.status === 'quarantined').length} quarantined, ${mixed.filter((p) => p.status !== 'quarantined' && isWithheld(p)).length} withheld; ` +
        `families: ${families.join(', ')}`,
    );

    const unexpected = leaks.filter((l) => !l.from.some((id) => KNOWN_GAPS.has(id)));
    expect(unexpected.map((l) => `${l.from.join(', ') || '?'} at ${l.where}: ${l.text}`), 'unsafe rules landed').toEqual([]);
    const stillLeaking = new Set(leaks.flatMap((l) => l.from));
    expect([...KNOWN_GAPS].filter((id) => !stillLeaking.has(id)), 'these known gaps no longer leak: remove them from KNOWN_GAPS').toEqual([]);
  }
}
