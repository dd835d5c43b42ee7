import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * A tiny sentence-embedding model the tests build themselves, in the layout transformers.js loads from
 * a local folder (`<root>/<owner>/<name>/{config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model.onnx}`): a BERT-style WordPiece tokenizer over a small vocabulary and an ONNX graph that is
 * one Gather (token id → embedding row) named `last_hidden_state`. transformers.js does the mean pooling
 * and normalisation, so the code under test runs its real path. Words listed in one `synonyms` group share
 * one embedding row: sentences that differ only by synonyms embed identically; unrelated words get
 * orthogonal rows.
 */
const require = createRequire(import.meta.url);
const protobuf = require('protobufjs') as typeof import('protobufjs');

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/** The few ONNX messages the graph needs, with their field numbers from onnx.proto. */
const ONNX = protobuf.Root.fromJSON({
  nested: {
    ModelProto: { fields: { ir_version: { type: 'int64', id: 1 }, producer_name: { type: 'string', id: 2 }, graph: { type: 'GraphProto', id: 7 }, opset_import: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 } } },
    OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
    GraphProto: {
      fields: {
        node: { rule: 'repeated', type: 'NodeProto', id: 1 }, name: { type: 'string', id: 2 }, initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
        input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 }, output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
      },
    },
    NodeProto: { fields: { input: { rule: 'repeated', type: 'string', id: 1 }, output: { rule: 'repeated', type: 'string', id: 2 }, name: { type: 'string', id: 3 }, op_type: { type: 'string', id: 4 } } },
    TensorProto: { fields: { dims: { rule: 'repeated', type: 'int64', id: 1 }, data_type: { type: 'int32', id: 2 }, float_data: { rule: 'repeated', type: 'float', id: 4 }, name: { type: 'string', id: 8 } } },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
    TypeProto: { fields: { tensor_type: { type: 'TensorTypeProto', id: 1 } } },
    TensorTypeProto: { fields: { elem_type: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } },
    TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } } },
    Dimension: { fields: { dim_value: { type: 'int64', id: 1 }, dim_param: { type: 'string', id: 2 } } },
  },
});

const FLOAT = 1;
const INT64 = 7;

function valueInfo(name: string, elemType: number, dims: (number | string)[]) {
  return { name, type: { tensor_type: { elem_type: elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) } } } };
}

/** The ONNX bytes of `last_hidden_state = Gather(embeddings, input_ids)`. */
export function gatherModel(embeddings: number[][]): Uint8Array {
  const dim = embeddings[0]!.length;
  const Model = ONNX.lookupType('ModelProto');
  const message = Model.fromObject({
    ir_version: 8,
    producer_name: 'sleep-cycle-tests',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny',
      node: [{ input: ['embeddings', 'input_ids'], output: ['last_hidden_state'], name: 'gather', op_type: 'Gather' }],
      initializer: [{ name: 'embeddings', dims: [embeddings.length, dim], data_type: FLOAT, float_data: embeddings.flat() }],
      input: [valueInfo('input_ids', INT64, ['batch', 'sequence'])],
      output: [valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', dim])],
    },
  });
  return Model.encode(message).finish();
}

export interface TinyModel {
  /** The folder to set as embedding_model_path. */
  root: string;
  /** The model id to set as embedding_model. */
  model: string;
}

/**
 * Writes the model under `root`. Every group of `synonyms` (and every other word of `words`) gets its
 * own one-hot row, so two sentences' cosine is the overlap of their word groups.
 */
export function writeTinyModel(root: string, words: string[], synonyms: string[][] = [], model = 'tests/tiny-embedder'): TinyModel {
  const groups: string[][] = [...synonyms, ...words.filter((w) => !synonyms.flat().includes(w)).map((w) => [w])];
  const vocab: Record<string, number> = {};
  SPECIAL.forEach((token, i) => (vocab[token] = i));
  const rows: number[][] = SPECIAL.map(() => []);
  const dim = groups.length + 1;
  const oneHot = (i: number) => Array.from({ length: dim }, (_, j) => (j === i ? 1 : 0));
  // Special tokens and unknown words all point at the last axis, shared by every sentence: it only adds a
  // constant, as [CLS]/[SEP] do in a real model.
  for (let i = 0; i < SPECIAL.length; i++) rows[i] = oneHot(dim - 1).map((v) => v * 0.1);
  groups.forEach((group, g) => {
    for (const word of group) {
      vocab[word] = rows.length;
      rows.push(oneHot(g));
    }
  });
  const dir = join(root, model);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), gatherModel(rows));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: dim, architectures: ['BertModel'] }));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 128, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]' }));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  return { root, model };
}

function tokenizerJson(vocab: Record<string, number>) {
  const special = (token: string) => ({ id: vocab[token], content: token, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}
