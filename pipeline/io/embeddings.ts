import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SleepCycleError } from '../model/errors.js';

/**
 * The sentence-embedding adapter: @huggingface/transformers feature extraction (mean pooling, then
 * normalised), loaded with a dynamic import only when `similarity: embeddings` asks for it — it pulls in
 * onnxruntime, far too heavy for the hook or an ordinary run. Models are read from a local folder; the
 * Hub is asked only when a setting allows it. A model that cannot be loaded is an E_CONFIG that says
 * where it was looked for, never a crash.
 */
export interface EmbedderOptions {
  model: string;
  /** Absolute folder of local models: `<modelPath>/<owner>/<name>/`. */
  modelPath: string;
  allowRemote: boolean;
}

export interface Embedder {
  readonly model: string;
  embed(texts: readonly string[]): Promise<number[][]>;
}

type Extractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ tolist(): unknown }>;

export async function openEmbedder(options: EmbedderOptions): Promise<Embedder> {
  const local = join(options.modelPath, options.model);
  if (!options.allowRemote && !existsSync(local)) throw missingModel(options, 'the folder does not exist');
  let extractor: Extractor;
  try {
    const transformers = await import('@huggingface/transformers');
    const { env } = transformers;
    env.allowLocalModels = true;
    env.localModelPath = `${options.modelPath.replace(/\/+$/, '')}/`;
    env.allowRemoteModels = options.allowRemote;
    // A download lands next to the local models, so the next night finds it without the network.
    env.cacheDir = options.modelPath;
    extractor = (await transformers.pipeline('feature-extraction', options.model, { dtype: 'fp32' })) as unknown as Extractor;
  } catch (error) {
    throw missingModel(options, firstLine(error));
  }
  return {
    model: options.model,
    async embed(texts) {
      if (texts.length === 0) return [];
      try {
        const output = await extractor([...texts], { pooling: 'mean', normalize: true });
        return output.tolist() as number[][];
      } catch (error) {
        // A model that loads but cannot run (wrong inputs, a broken graph) is as unusable as a missing one.
        throw missingModel(options, `it loaded but failed to embed: ${firstLine(error)}`);
      }
    },
  };
}

function missingModel(options: EmbedderOptions, found: string): SleepCycleError {
  const remote = options.allowRemote
    ? 'Check the model id and the network.'
    : 'Put the model there (config.json, tokenizer.json and onnx/model.onnx), set embedding_allow_remote: true to download it once, or set similarity: lexical.';
  return new SleepCycleError(
    'E_CONFIG',
    `similarity: embeddings needs the model "${options.model}" under ${options.modelPath}, but it could not be used (${found}). ${remote}`,
    { key: 'embedding_model', model: options.model, path: options.modelPath },
  );
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}
