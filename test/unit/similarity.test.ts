import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openEmbedder } from '../../pipeline/io/embeddings.js';
import { findNearDuplicates, subjectScores } from '../../pipeline/memory/near-duplicates.js';
import { ruleParts } from '../../pipeline/memory/rule-parts.js';
import { lexicalSimilarity, ruleWords } from '../../pipeline/memory/similarity-lexical.js';
import { decodeVector, embeddingMethod, encodeVector, lexicalMethod, type EmbeddingCache, type TextEmbedder } from '../../pipeline/memory/similarity.js';
import { tempDir } from '../helpers/temp.js';
import { writeTinyModel } from '../helpers/tiny-embedder.js';

const LOCK = "`git_push` fails with `fatal: Unable to create '<*>': File exists.` (7 times in 7 sessions): check for and clear a stale .git/index.lock (no other git process running) before retrying.";
const REJECTED = '`git_push` fails with `! [rejected] <*> -> <*> (non-fast-forward)` (4 times in 3 sessions): pull and rebase onto the remote branch before pushing again.';

describe('lexical similarity', () => {
  it('ignores counts, template variables, case and stop-words', () => {
    expect(ruleWords('`Read` fails with `File <*> does not exist.` (3 times in 1 session): Confirm the path.')).toEqual(['read', 'file', 'exist', 'confirm', 'path']);
    expect(lexicalSimilarity(LOCK, LOCK.replace('(7 times in 7 sessions)', '(12 times in 9 sessions)'))).toBeCloseTo(1, 10);
  });

  it('keeps identifiers whole, so two tools are two words', () => {
    expect(ruleWords('`tool_12` and `tool_13` write .git/index.lock')).toEqual(['tool_12', 'tool_13', 'write', 'git', 'index.lock']);
  });

  it('tells a paraphrase from a hard negative (same tool, other cause) at the shipped threshold', () => {
    const paraphrase = 'Before `git_push`, make sure no stale .git/index.lock is left over (and no other git process runs), then retry.';
    expect(lexicalSimilarity(LOCK, paraphrase)).toBeGreaterThanOrEqual(0.4);
    expect(lexicalSimilarity(LOCK, REJECTED)).toBeLessThan(0.4);
  });

  it('is symmetric and in [0, 1]', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      const s = lexicalSimilarity(a, b);
      return s >= 0 && s <= 1 + 1e-9 && Math.abs(s - lexicalSimilarity(b, a)) < 1e-9;
    }));
  });
});

describe('rule parts', () => {
  it('finds the tool and the advice of an offline rule, and nothing in free text', () => {
    expect(ruleParts(LOCK)).toEqual({ tool: 'git_push', advice: 'check for and clear a stale .git/index.lock (no other git process running) before retrying' });
    expect(ruleParts('`tool_3` fails with `tool <*> failed to start` (3 times in 2 sessions).')).toEqual({ tool: 'tool_3', advice: null });
    expect(ruleParts('Bash ran slow 4 times (up to 9336 ms against a 1731 ms baseline): run it in the background.')).toEqual({ tool: 'Bash', advice: 'run it in the background' });
    expect(ruleParts('Never commit `.env`.')).toEqual({ tool: null, advice: null });
  });

  it('never calls bare facts about two tools the same, and compares advice across tools', async () => {
    const method = lexicalMethod(0.4);
    const fact = (n: number) => `\`tool_${n}\` fails with \`tool <*> failed to start\` (3 times in 2 sessions).`;
    expect((await subjectScores(method, [fact(1)], [fact(2)]))[0]![0]).toBe(0);
    const read = '`Read` fails with `File does not exist.` (3 times in 1 session): confirm the path exists (list or search the directory) before using it, instead of guessing file names.';
    const python = "`python` fails with `can't open file '<*>'` (2 times in 2 sessions): confirm the path exists (list or search the directory) before using it, instead of guessing file names.";
    expect((await subjectScores(method, [read], [python]))[0]![0]).toBeCloseTo(1, 10);
  });
});

describe('findNearDuplicates', () => {
  const method = lexicalMethod(0.4);
  const human = [{ file: 'MEMORY.md', line: 7, text: 'If git says index.lock exists, check no git process runs and clear the stale .git/index.lock before retrying a push.' }];

  it('corroborates a rule, joins tonight\'s earlier draft, covers by a human line, refuses to repeat a predecessor', async () => {
    const rules = [{ id: 'r-aaaaaa', text: LOCK }];
    const drafts = [
      { id: 'r-000001', cluster_id: 'c-1', text: LOCK.replace('7 times in 7', '3 times in 2') },
      { id: 'r-000002', cluster_id: 'c-2', text: REJECTED },
      { id: 'r-000003', cluster_id: 'c-3', text: REJECTED.replace('4 times in 3', '9 times in 5') },
      { id: 'r-000004', cluster_id: 'c-4', text: LOCK.replace('(7 times', '(8 times'), refines: 'r-aaaaaa' },
    ];
    const found = await findNearDuplicates(drafts, rules, [], method);
    expect(found.get('r-000001')).toMatchObject({ kind: 'rule', rule_id: 'r-aaaaaa' });
    expect(found.has('r-000002')).toBe(false);
    expect(found.get('r-000003')).toMatchObject({ kind: 'draft', rule_id: 'r-000002', score: 1 });
    expect(found.get('r-000004')).toMatchObject({ kind: 'predecessor', rule_id: 'r-aaaaaa' });
    const said = await findNearDuplicates([drafts[0]!], [], human, method);
    expect(said.get('r-000001')).toMatchObject({ kind: 'human', file: 'MEMORY.md', line: 7 });
  });

  it('finds a byte-identical rule whatever the threshold, even one with no words to compare', async () => {
    const strict = lexicalMethod(1.01);
    const found = await findNearDuplicates([{ id: 'r-1', cluster_id: 'c-1', text: '(3 times in 2 sessions).' }], [{ id: 'r-2', text: '(3 times in 2 sessions).' }], [], strict);
    expect(found.get('r-1')).toEqual({ kind: 'rule', rule_id: 'r-2', score: 1 });
  });
});

describe('embeddings', () => {
  it('caches vectors by text hash, embeds only what is new, and stays within its bound', async () => {
    const calls: string[][] = [];
    const embedder: TextEmbedder = { model: 'm', embed: async (texts) => (calls.push([...texts]), texts.map((t) => (t.includes('lock') ? [1, 0] : [0, 1]))) };
    const cache: EmbeddingCache = {};
    const method = embeddingMethod(embedder, 0.8, cache, new Date('2026-01-01T00:00:00Z'), 3);
    expect(await method.scores(['a lock', 'other'], ['the lock'])).toEqual([[1], [0]]);
    expect(await method.scores(['a lock'], ['the lock', 'new'])).toEqual([[1, 0]]);
    expect(calls).toEqual([['a lock', 'other', 'the lock'], ['new']]);
    expect(Object.keys(cache)).toHaveLength(3);
    expect([...decodeVector(encodeVector(Float32Array.from([0.25, -1])))]).toEqual([0.25, -1]);
  });

  it('loads a tiny ONNX model from a local folder and embeds with mean pooling, normalised', { timeout: 60_000 }, async () => {
    const root = tempDir('tiny-model-');
    const tiny = writeTinyModel(root, ['stale', 'lock', 'git', 'push', 'pull', 'rebase', 'first'], [['clear', 'remove', 'delete']]);
    const embedder = await openEmbedder({ model: tiny.model, modelPath: root, allowRemote: false });
    const [a, b, c] = await embedder.embed(['clear the stale lock', 'remove the stale lock', 'pull and rebase first']);
    const dot = (x: number[], y: number[]) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeCloseTo(1, 5);
    expect(dot(a!, c!)).toBeLessThan(0.2);
    const found = await findNearDuplicates(
      [{ id: 'r-1', cluster_id: 'c-1', text: 'delete the stale lock' }],
      [{ id: 'r-2', text: 'pull and rebase first' }, { id: 'r-3', text: 'clear the stale lock' }],
      [],
      embeddingMethod(embedder, 0.8, {}, new Date(0), 10),
    );
    expect(found.get('r-1')).toMatchObject({ kind: 'rule', rule_id: 'r-3' });
  });

  it('a broken model file is an E_CONFIG too, not a crash', { timeout: 60_000 }, async () => {
    const root = tempDir('broken-model-');
    const tiny = writeTinyModel(root, ['lock']);
    writeFileSync(join(root, tiny.model, 'onnx', 'model.onnx'), 'not an onnx graph');
    await expect(openEmbedder({ model: tiny.model, modelPath: root, allowRemote: false })).rejects.toMatchObject({ code: 'E_CONFIG', message: expect.stringContaining('could not be used') });
  });

  it('a missing model is an E_CONFIG that says where it was looked for, and nothing is downloaded', async () => {
    const root = tempDir('no-model-');
    await expect(openEmbedder({ model: 'Xenova/all-MiniLM-L6-v2', modelPath: join(root, 'models'), allowRemote: false })).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining(`under ${join(root, 'models')}`),
    });
  });
});
