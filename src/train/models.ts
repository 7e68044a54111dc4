/**
 * Model construction, one registry of model kinds: each kind's size presets, how a spec (kind + size + overrides)
 * and the data's dimensions resolve to the model's full config (what a checkpoint's model.json stores), and how
 * a config builds the model. Training (buildModel) and loading a checkpoint (src/train/load.ts) both go through
 * it, so a new model kind is one entry here.
 *
 * Two families: captioners (transformer, lstm: CaptionModel, trained with any objective, validated by
 * captioning) and the matching model (CC12M §3.3's VLM model with its own image and text encoders: trained
 * with the vlm objective alone, on batches of distinct images, never captioning).
 */
import { DEFAULT_LSTM, LSTM_SIZES, LstmCaptioner, LstmConfig } from '../models/lstm';
import { DEFAULT_MATCHING, MATCHING_SIZES, MatchingModel, type MatchingConfig } from '../models/matching';
import type { CaptionModel } from '../models/types';
import { DEFAULT_TRANSFORMER, TRANSFORMER_SIZES, TransformerCaptioner, TransformerConfig } from '../models/transformer';

export interface ModelSpec {
  kind: ModelKind;
  /** Size preset: transformer tiny/small/cc3m-paper/cc12m-paper; lstm tiny/small/paper; matching tiny/small/cc12m-paper. */
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

/** Any model the trainer trains: a captioner, or the matching model. */
export type TrainableModel = CaptionModel | MatchingModel;

interface ModelKindEntry<C, M extends TrainableModel> {
  sizes: Record<string, object>;
  /** The full config of a spec's size and overrides with the data's dimensions. */
  resolve(size: object, overrides: Record<string, number | boolean> | undefined, dims: ModelDims): C;
  build(config: C): M;
}

const kind = <C, M extends TrainableModel>(entry: ModelKindEntry<C, M>): ModelKindEntry<unknown, M> => entry as ModelKindEntry<unknown, M>;

export const MODEL_KINDS = {
  transformer: kind<TransformerConfig, CaptionModel>({
    sizes: TRANSFORMER_SIZES,
    resolve: (size, overrides, dims) => ({ ...DEFAULT_TRANSFORMER, ...size, ...(overrides as Partial<TransformerConfig>), ...dims }),
    build: (config) => new TransformerCaptioner(config),
  }),
  lstm: kind<LstmConfig, CaptionModel>({
    sizes: LSTM_SIZES,
    // the LSTM has no MOC head
    resolve: (size, overrides, { mocClasses: _unused, ...dims }) => ({ ...DEFAULT_LSTM, ...size, ...(overrides as Partial<LstmConfig>), ...dims }),
    build: (config) => new LstmCaptioner(config),
  }),
  matching: kind<MatchingConfig, MatchingModel>({
    sizes: MATCHING_SIZES,
    // visual inputs only (no MOC head); its own text encoder reads the run's vocabulary
    resolve: (size, overrides, { mocClasses: _unused, ...dims }) => ({ ...DEFAULT_MATCHING, ...size, ...(overrides as Partial<MatchingConfig>), ...dims }),
    build: (config) => new MatchingModel(config),
  }),
};

export type ModelKind = keyof typeof MODEL_KINDS;

/** Whether a model captions (has a decoder); the matching model does not. */
export function isCaptioner(model: TrainableModel): model is CaptionModel {
  return !(model instanceof MatchingModel);
}

function entryOf(kindName: unknown): ModelKindEntry<unknown, TrainableModel> {
  if (typeof kindName !== 'string' || !Object.hasOwn(MODEL_KINDS, kindName)) throw new Error(`model: unknown kind "${String(kindName)}"`);
  return MODEL_KINDS[kindName as ModelKind];
}

/** A fresh model of any kind. */
export function buildModel(spec: ModelSpec, dims: ModelDims): TrainableModel {
  const entry = entryOf(spec.kind);
  const size = Object.hasOwn(entry.sizes, spec.size) ? entry.sizes[spec.size] : undefined;
  if (!size) throw new Error(`model: unknown ${spec.kind} size "${spec.size}" (choose ${Object.keys(entry.sizes).join(', ')})`);
  return entry.build(entry.resolve(size, spec.overrides, dims));
}

/** A fresh captioner (data-parallel replicas build theirs with it). */
export function createModel(spec: ModelSpec, dims: ModelDims): CaptionModel {
  return captionerOf(buildModel(spec, dims), spec);
}

/** The model of a checkpoint's stored config (its spec's kind and the resolved config), with fresh weights. */
export function modelFromConfig(spec: ModelSpec, resolved: unknown): TrainableModel {
  return entryOf(spec.kind).build(resolved);
}

function captionerOf(model: TrainableModel, spec: ModelSpec): CaptionModel {
  if (isCaptioner(model)) return model;
  model.dispose();
  throw new Error(`model: a ${spec.kind} model does not caption`);
}
