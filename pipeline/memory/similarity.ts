import { textSha } from '../model/rule-id.js';
import { cosine, lexicalVector } from './similarity-lexical.js';

/**
 * One port, two methods, for "does this rule say what that text already says": `lexical` (words, no
 * download; the default) and `embeddings` (a sentence-embedding model behind TextEmbedder, loaded only
 * when the setting asks for it). Scores are in [0, 1] (embeddings: cosine of normalised vectors, clamped)
 * and compared with the method's own threshold, calibrated on eval/rule-pairs.
 */
export type SimilarityMethod = 'lexical' | 'embeddings';

export interface Similarity {
  readonly method: SimilarityMethod;
  readonly threshold: number;
  /** Row i, column j: how close candidates[i] is to references[j]. */
  scores(candidates: readonly string[], references: readonly string[]): Promise<number[][]>;
}

/** A sentence-embedding model: one vector per text (mean-pooled and normalised by the adapter). */
export interface TextEmbedder {
  readonly model: string;
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Vectors kept in state by text hash, so a night embeds only texts it has not seen. */
export interface EmbeddingCacheEntry {
  model: string;
  /** Float32 little-endian, base64: a quarter of the size of JSON numbers. */
  vector: string;
  at: string;
}
export type EmbeddingCache = Record<string, EmbeddingCacheEntry>;

export function lexicalMethod(threshold: number): Similarity {
  return {
    method: 'lexical',
    threshold,
    async scores(candidates, references) {
      // Each text's vector once, not once per pair: a flood night compares hundreds of drafts with each other.
      const vectors = new Map<string, Map<string, number>>();
      const vectorOf = (text: string) => vectors.get(text) ?? vectors.set(text, lexicalVector(text)).get(text)!;
      return candidates.map((c) => references.map((r) => cosine(vectorOf(c), vectorOf(r))));
    },
  };
}

/**
 * The embeddings method over a cache: texts already embedded (same model) are read from it, the rest
 * are embedded in one batch and added. `cache` is the caller's copy and is updated in place; `keep`
 * bounds it (the entries used tonight are kept first, then the newest).
 */
export function embeddingMethod(embedder: TextEmbedder, threshold: number, cache: EmbeddingCache, now: Date, keep: number): Similarity {
  return {
    method: 'embeddings',
    threshold,
    async scores(candidates, references) {
      const texts = [...new Set([...candidates, ...references])];
      const vectors = await vectorsOf(texts, embedder, cache, now.toISOString());
      boundCache(cache, new Set(texts.map(cacheKey)), keep);
      return candidates.map((c) => references.map((r) => clamp(dot(vectors.get(c)!, vectors.get(r)!))));
    },
  };
}

async function vectorsOf(texts: string[], embedder: TextEmbedder, cache: EmbeddingCache, at: string): Promise<Map<string, Float32Array>> {
  const vectors = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (const text of texts) {
    const hit = cache[cacheKey(text)];
    if (hit && hit.model === embedder.model) vectors.set(text, decodeVector(hit.vector));
    else missing.push(text);
  }
  const fresh = missing.length > 0 ? await embedder.embed(missing) : [];
  missing.forEach((text, i) => {
    const vector = Float32Array.from(fresh[i] ?? []);
    vectors.set(text, vector);
    cache[cacheKey(text)] = { model: embedder.model, vector: encodeVector(vector), at };
  });
  return vectors;
}

/** Drops the oldest entries not used tonight until at most `keep` remain. */
function boundCache(cache: EmbeddingCache, used: Set<string>, keep: number): void {
  const order = Object.entries(cache).sort(([ka, a], [kb, b]) => Number(used.has(kb)) - Number(used.has(ka)) || (a.at < b.at ? 1 : a.at > b.at ? -1 : ka < kb ? -1 : 1));
  for (const [key] of order.slice(keep)) delete cache[key];
}

export function cacheKey(text: string): string {
  return textSha(text);
}

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += a[i]! * b[i]!;
  return sum;
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
