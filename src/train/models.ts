/**
 * Model construction, one registry of model kinds: each kind's size presets, how a spec (kind + size + overrides)
 * and the data's dimensions resolve to the model's full config (what a checkpoint's model.json stores), and how
 * a config builds the model. Training (createModel) and loading a checkpoint (modelFromConfig, src/train/load.ts)
 * both go through it, so a new model kind is one entry here.
 */
import { DEFAULT_LSTM, LSTM_SIZES, LstmCaptioner, LstmConfig } from '../models/lstm';
import type { CaptionModel } from '../models/types';
import { DEFAULT_TRANSFORMER, TRANSFORMER_SIZES, TransformerCaptioner, TransformerConfig } from '../models/transformer';

export interface ModelSpec {
  kind: ModelKind;
  /** Size preset: transformer tiny/small/cc3m-paper/cc12m-paper; lstm tiny/small/paper. */
  size: string;
  /** Field overrides of the preset (dModel, layers, dropout, tieEmbeddings, …). */
  overrides?: Record<string, number | boolean>;
}

export interface ModelDims {
  vocabSize: number;
  visualDim: number;
  geometryDim: number;
  mocClasses: number;
  seed: number;
}

interface ModelKindEntry<C> {
  sizes: Record<string, object>;
  /** The full config of a spec's size and overrides with the data's dimensions. */
  resolve(size: object, overrides: Record<string, number | boolean> | undefined, dims: ModelDims): C;
  build(config: C): CaptionModel;
}

const kind = <C>(entry: ModelKindEntry<C>): ModelKindEntry<unknown> => entry as ModelKindEntry<unknown>;

export const MODEL_KINDS = {
  transformer: kind<TransformerConfig>({
    sizes: TRANSFORMER_SIZES,
    resolve: (size, overrides, dims) => ({ ...DEFAULT_TRANSFORMER, ...size, ...(overrides as Partial<TransformerConfig>), ...dims }),
    build: (config) => new TransformerCaptioner(config),
  }),
  lstm: kind<LstmConfig>({
    sizes: LSTM_SIZES,
    // the LSTM has no MOC head
    resolve: (size, overrides, { mocClasses: _unused, ...dims }) => ({ ...DEFAULT_LSTM, ...size, ...(overrides as Partial<LstmConfig>), ...dims }),
    build: (config) => new LstmCaptioner(config),
  }),
};

export type ModelKind = keyof typeof MODEL_KINDS;

function entryOf(kindName: unknown): ModelKindEntry<unknown> {
  if (typeof kindName !== 'string' || !Object.hasOwn(MODEL_KINDS, kindName)) throw new Error(`model: unknown kind "${String(kindName)}"`);
  return MODEL_KINDS[kindName as ModelKind];
}

export function createModel(spec: ModelSpec, dims: ModelDims): CaptionModel {
  const entry = entryOf(spec.kind);
  const size = Object.hasOwn(entry.sizes, spec.size) ? entry.sizes[spec.size] : undefined;
  if (!size) throw new Error(`model: unknown ${spec.kind} size "${spec.size}" (choose ${Object.keys(entry.sizes).join(', ')})`);
  return entry.build(entry.resolve(size, spec.overrides, dims));
}

/** The model of a checkpoint's stored config (its spec's kind and the resolved config), with fresh weights. */
export function modelFromConfig(spec: ModelSpec, resolved: unknown): CaptionModel {
  return entryOf(spec.kind).build(resolved);
}
