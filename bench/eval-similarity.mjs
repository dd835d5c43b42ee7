// `npm run eval`, near-duplicate rules (issue 15, item 5): precision and recall of both similarity
// methods on eval/rule-pairs/pairs.jsonl at the thresholds the settings ship with, plus the threshold
// that would maximise F1 on this set (calibration). The embeddings row needs the model on disk (no
// network here): it is skipped, with the reason, when the model folder is absent.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function evaluateSimilarity(repo, env = process.env) {
  const file = join(repo, 'eval/rule-pairs/pairs.jsonl');
  if (!existsSync(file)) return { skipped: `${file} is absent` };
  const pairs = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const load = (path) => import(pathToFileURL(join(repo, 'dist/pipeline', path)).href);
  const [{ lexicalMethod, embeddingMethod }, { subjectScores }, { SETTINGS }, { openEmbedder }] = await Promise.all(
    ['memory/similarity.js', 'memory/near-duplicates.js', 'settings/schema.js', 'io/embeddings.js'].map(load),
  );
  // Each pair scored the way the deduplicate stage scores a draft against a rule (subjectScores).
  const score = async (method) => Promise.all(pairs.map(async (p) => (await subjectScores(method, [p.a], [p.b]))[0][0]));
  const lexicalThreshold = SETTINGS.similarity_threshold_lexical.default;
  const rows = [row('lexical', pairs, await score(lexicalMethod(lexicalThreshold)), lexicalThreshold)];
  const model = env.SLEEP_CYCLE_EMBEDDING_MODEL ?? SETTINGS.embedding_model.default;
  const modelPath = resolve(repo, env.SLEEP_CYCLE_EMBEDDING_MODEL_PATH ?? SETTINGS.embedding_model_path.default);
  if (!existsSync(join(modelPath, model))) {
    rows.push({ method: 'embeddings', model, skipped: `no local model at ${join(modelPath, model)} (no network here; put the model there or set SLEEP_CYCLE_EMBEDDING_MODEL_PATH)` });
  } else {
    const embedder = await openEmbedder({ model, modelPath, allowRemote: false });
    const threshold = SETTINGS.similarity_threshold_embeddings.default;
    // One cache for the whole set: each text is embedded once.
    const method = embeddingMethod(embedder, threshold, {}, new Date(0), 1_000_000);
    rows.push({ ...row('embeddings', pairs, await score(method), threshold), model });
  }
  return { pairs: pairs.length, positives: pairs.filter((p) => p.label === 1).length, rows };
}

function row(method, pairs, scores, threshold) {
  const at = (t) => confusion(pairs, scores, t);
  const best = [...new Set(scores.map((s) => Math.round(s * 100) / 100))].sort().map((t) => ({ threshold: t, ...at(t) })).sort((x, y) => y.f1 - x.f1 || x.threshold - y.threshold)[0];
  const byKind = {};
  pairs.forEach((p, i) => {
    const k = (byKind[p.kind] ??= { label: p.label, pairs: 0, said_same: 0 });
    k.pairs += 1;
    if (scores[i] >= threshold) k.said_same += 1;
  });
  return { method, threshold, ...at(threshold), best_f1_threshold: best?.threshold ?? null, best_f1: best?.f1 ?? null, by_kind: byKind };
}

function confusion(pairs, scores, threshold) {
  let tp = 0, fp = 0, fn = 0;
  pairs.forEach((p, i) => {
    const same = scores[i] >= threshold;
    if (same && p.label === 1) tp++;
    else if (same) fp++;
    else if (p.label === 1) fn++;
  });
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision: round(precision), recall: round(recall), f1: round(f1), tp, fp, fn };
}

const round = (x) => Math.round(x * 1000) / 1000;

export function renderSimilarity(result) {
  if (!result || result.skipped) return `\n## Near-duplicate rules\n\nskipped: ${result?.skipped ?? 'not run'}\n`;
  const out = ['', `## Near-duplicate rules (eval/rule-pairs: ${result.pairs} pairs, ${result.positives} say the same)`, '', '| method | threshold | precision | recall | F1 | best-F1 threshold on this set |', '|---|---|---|---|---|---|'];
  for (const r of result.rows) {
    if (r.skipped) out.push(`| ${r.method} | – | – | – | – | skipped: ${r.skipped} |`);
    else out.push(`| ${r.method}${r.model ? ` (${r.model})` : ''} | ${r.threshold} | ${r.precision} | ${r.recall} | ${r.f1} | ${r.best_f1_threshold} (F1 ${r.best_f1}) |`);
  }
  for (const r of result.rows.filter((x) => !x.skipped)) {
    out.push('', `${r.method}, per kind of pair (said the same / pairs):`);
    for (const [kind, k] of Object.entries(r.by_kind)) out.push(`- ${kind} (${k.label ? 'same' : 'different'}): ${k.said_same}/${k.pairs}`);
  }
  return `${out.join('\n')}\n`;
}
