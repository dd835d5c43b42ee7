import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../pipeline/memory/memory-md.js';
import type { State } from '../../pipeline/memory/state.js';
import { cli, sc } from '../helpers/in-process.js';
import { event, git, lines, makeDir } from '../helpers/repo.js';
import { writeTinyModel } from '../helpers/tiny-embedder.js';

const HUMAN = '# Project memory\n\nHuman notes.\n\n## Derived Rules\n';

/** `count` failures of one Read error on one night, in two sessions. */
function reads(day: string, message: string, count = 3): string[] {
  return Array.from({ length: count }, (_, i) =>
    event({ timestamp: `${day}T10:0${i}:00.000Z`, tool_name: 'Read', exit_code: 1, error_category: 'not_found', error_message: message, session_id: `s-${day}-${i % 2}` }),
  );
}

const state = (dir: string) => JSON.parse(readFileSync(join(dir, '.sleep-cycle/state.json'), 'utf8')) as State;
const memory = (dir: string) => readFileSync(join(dir, 'MEMORY.md'), 'utf8');

describe('lean memory (issue 15, item 5)', () => {
  it('a near duplicate corroborates the rule in memory instead of adding a bullet, and its cluster stays covered', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')) }, { git: true });
    const first = await cli(dir, ['run'], '2026-11-19T23:00:00Z');
    expect(first.code).toBe(0);
    const [rule] = first.json.data.proposals;
    expect(rule).toMatchObject({ status: 'applied' });

    // Another error of the same tool whose rule says the same thing: one bullet, counts grow.
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-20', "ENOENT: no such file or directory, open '/repo/src/app.ts'", 4)));
    const second = await cli(dir, ['run'], '2026-11-20T23:00:00Z');
    expect(second.code).toBe(0);
    const [dup] = second.json.data.proposals;
    expect(dup.status).toBe('duplicate');
    expect(dup.duplicate_of).toMatchObject({ kind: 'rule', rule_id: rule.id, method: 'lexical' });
    expect(dup.reasons.join('\n')).toMatch(new RegExp(`near duplicate of ${rule.id} \\(lexical similarity [01]\\.\\d\\d\\): corroborates it`));
    expect(parseMemory(memory(dir)).rules.map((r) => r.id)).toEqual([rule.id]);
    const ledger = state(dir).rules[rule.id]!;
    expect(ledger.provenance.count).toBe(3 + 4);
    expect(ledger.near_duplicates).toEqual([dup.cluster_id]);
    expect(ledger.hits).toBe(4);
    expect(ledger.last_reinforced).toBe('2026-11-20T10:03:00.000Z');
    expect(ledger.provenance.evidence.some((e) => e.message.includes('ENOENT'))).toBe(true);
    expect(readFileSync(join(dir, 'proposed_memory_updates.md'), 'utf8')).toContain(`not written: near duplicate of ${rule.id}`);
    const explain = await sc(dir, ['explain', rule.id], { now: '2026-11-20T23:30:00Z' });
    expect(explain.stdout).toContain(`seen 7 times`);
    expect(explain.stdout).toContain(`corroborated by 1 other cluster whose rule would have said the same: ${dup.cluster_id}`);

    // The corroborating cluster recurs: covered by the rule, not drafted again.
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-21', "ENOENT: no such file or directory, open '/repo/src/b.ts'", 3)));
    const third = await cli(dir, ['run'], '2026-11-21T23:00:00Z');
    expect(third.json.data.proposals).toEqual([]);
    expect(third.json.data.clusters.find((c: { id: string }) => c.id === dup.cluster_id)).toMatchObject({ outcome: 'covered' });
    expect(state(dir).rules[rule.id]!.hits).toBe(4 + 3);
  });

  it('two clusters whose drafts say the same on one night become one bullet that covers both', async () => {
    const night = [...reads('2026-11-19', 'File does not exist.'), ...reads('2026-11-19', "ENOENT: no such file or directory, open '/repo/x.ts'", 4)];
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': lines(...night) }, { git: true });
    const run = await cli(dir, ['run'], '2026-11-19T23:00:00Z');
    const proposals: { id: string; cluster_id: string; status: string; reasons: string[] }[] = run.json.data.proposals;
    const applied = proposals.filter((p) => p.status === 'applied');
    const joined = proposals.filter((p) => p.status === 'duplicate');
    expect(applied).toHaveLength(1);
    expect(joined).toHaveLength(1);
    expect(joined[0]!.reasons.join('\n')).toContain(`near duplicate of tonight's ${applied[0]!.id}`);
    expect(parseMemory(memory(dir)).rules.map((r) => r.id)).toEqual([applied[0]!.id]);
    const rule = state(dir).rules[applied[0]!.id]!;
    expect(rule.near_duplicates).toEqual([joined[0]!.cluster_id]);
    expect(rule.provenance.count).toBe(7);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-20', "ENOENT: no such file or directory, open '/repo/y.ts'", 3)));
    const next = await cli(dir, ['run'], '2026-11-20T23:00:00Z');
    expect(next.json.data.proposals).toEqual([]);
    expect(state(dir).rules[applied[0]!.id]!.hits).toBe(3);
  });

  it('a near duplicate of an archived rule restores it instead of writing its twin', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')) }, { git: true });
    const [rule] = (await cli(dir, ['run'], '2026-11-19T23:00:00Z')).json.data.proposals;
    await cli(dir, ['decay'], '2027-06-01T00:00:00Z');
    expect(state(dir).rules[rule.id]!.state).toBe('archived');
    expect(parseMemory(memory(dir)).rules).toEqual([]);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2027-06-02', "ENOENT: no such file or directory, open '/repo/c.ts'", 3)));
    const run = await cli(dir, ['run'], '2027-06-02T23:00:00Z');
    expect(run.json.data.proposals).toEqual([expect.objectContaining({ status: 'duplicate' })]);
    expect(state(dir).rules[rule.id]!.state).toBe('active');
    expect(parseMemory(memory(dir)).rules.map((r) => r.id)).toEqual([rule.id]);
  });

  it('a human line that already says it covers the cluster ("already said in MEMORY.md line N") until the line changes', async () => {
    const said = 'Before reading a file, confirm the path exists (list or search the directory) instead of guessing file names.';
    const dir = makeDir({ 'MEMORY.md': `# Project memory\n\n## Gotchas\n\n- ${said}\n\n## Derived Rules\n`, 'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')) }, { git: true });
    const first = await cli(dir, ['run'], '2026-11-19T23:00:00Z');
    const [proposal] = first.json.data.proposals;
    expect(proposal.status).toBe('duplicate');
    expect(proposal.reasons.join('\n')).toMatch(/already said in MEMORY\.md line 5 \(lexical similarity 0\.\d\d\)/);
    expect(proposal.duplicate_of).toMatchObject({ kind: 'human', rule_id: null, file: 'MEMORY.md', line: 5, method: 'lexical' });
    expect(parseMemory(memory(dir)).rules).toEqual([]);
    expect(readFileSync(join(dir, 'proposed_memory_updates.md'), 'utf8')).toContain('already said in MEMORY.md line 5');
    expect(state(dir).said_by_human?.[proposal.cluster_id]).toMatchObject({ file: 'MEMORY.md', line: 5 });

    // Lines above it move: still covered, at its new line.
    writeFileSync(join(dir, 'MEMORY.md'), `# Project memory\n\nA new note.\n\n## Gotchas\n\n- ${said}\n\n## Derived Rules\n`);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-20', 'File does not exist.')));
    const second = await cli(dir, ['run'], '2026-11-20T23:00:00Z');
    expect(second.json.data.proposals).toEqual([]);
    expect(second.json.data.clusters[0]).toMatchObject({ outcome: 'covered' });
    expect(state(dir).said_by_human?.[proposal.cluster_id]).toMatchObject({ line: 7 });

    // The human removes the line: the cluster is proposed again, and this time written.
    writeFileSync(join(dir, 'MEMORY.md'), '# Project memory\n\n## Derived Rules\n');
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-21', 'File does not exist.')));
    const third = await cli(dir, ['run'], '2026-11-21T23:00:00Z');
    expect(third.json.data.proposals).toEqual([expect.objectContaining({ status: 'applied', cluster_id: proposal.cluster_id })]);
    expect(state(dir).said_by_human?.[proposal.cluster_id]).toBeUndefined();
  });

  it('CLAUDE.md counts as human text too', async () => {
    const dir = makeDir({
      'MEMORY.md': HUMAN,
      'CLAUDE.md': '# Claude\n\n@MEMORY.md\n\nConfirm a path exists (list or search the directory) before reading it; never guess file names.\n',
      'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')),
    });
    const run = await cli(dir, ['run', '--dry-run'], '2026-11-19T23:00:00Z');
    expect(run.json.data.proposals[0].reasons.join('\n')).toMatch(/already said in CLAUDE\.md line 5/);
  });

  it('similarity: embeddings uses the local model (here a tiny one the test builds) and caches vectors in state', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')) }, { git: true });
    const words = 'read fails with file does not exist times in sessions confirm the path exists list or search directory before using it instead of guessing names enoent no such open'.split(' ');
    const tiny = writeTinyModel(join(dir, 'models'), words, [['exist', 'exists', 'enoent']]);
    const env = { SLEEP_CYCLE_SIMILARITY: 'embeddings', SLEEP_CYCLE_EMBEDDING_MODEL_PATH: 'models', SLEEP_CYCLE_EMBEDDING_MODEL: tiny.model, SLEEP_CYCLE_SIMILARITY_THRESHOLD_EMBEDDINGS: '0.9' };
    const first = await cli(dir, ['run'], '2026-11-19T23:00:00Z', env);
    expect(first.code).toBe(0);
    const [rule] = first.json.data.proposals;
    // The draft, its advice (offline rules are compared by their advice) and the one human line were embedded.
    expect(Object.keys(state(dir).embeddings ?? {})).toHaveLength(3);
    appendFileSync(join(dir, 'logs/telemetry.jsonl'), lines(...reads('2026-11-20', "ENOENT: no such file or directory, open '/repo/a.ts'", 3)));
    const second = await cli(dir, ['run'], '2026-11-20T23:00:00Z', env);
    expect(second.json.data.proposals[0].reasons.join('\n')).toMatch(new RegExp(`near duplicate of ${rule.id} \\(embeddings similarity 0\\.9\\d|1\\.00\\)`));
    expect(Object.values(state(dir).embeddings ?? {}).every((e) => e.model === tiny.model)).toBe(true);
    expect(git(dir, 'status', '--porcelain', '--', 'MEMORY.md', '.sleep-cycle').trim()).toBe('');
  });

  it('a missing model is E_CONFIG (exit 2) naming where it was looked for; nothing is written', async () => {
    const dir = makeDir({ 'MEMORY.md': HUMAN, 'logs/telemetry.jsonl': lines(...reads('2026-11-19', 'File does not exist.')) }, { git: true });
    const run = await cli(dir, ['run'], '2026-11-19T23:00:00Z', { SLEEP_CYCLE_SIMILARITY: 'embeddings' });
    expect(run.code).toBe(2);
    expect(run.json.error.code).toBe('E_CONFIG');
    expect(run.json.error.message).toContain('Xenova/all-MiniLM-L6-v2');
    expect(run.json.error.message).toContain(join(dir, '.sleep-cycle/models'));
    expect(memory(dir)).toBe(HUMAN);
  });
});
