/** Model construction from a config: kind + size preset + overrides. */
import { DEFAULT_LSTM, LSTM_SIZES, LstmCaptioner, LstmConfig, LstmSize } from '../models/lstm';
import type { CaptionModel } from '../models/types';
import { DEFAULT_TRANSFORMER, TRANSFORMER_SIZES, TransformerCaptioner, TransformerConfig, TransformerSize } from '../models/transformer';

export interface ModelSpec {
  kind: 'transformer' | 'lstm';
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

export function createModel(spec: ModelSpec, dims: ModelDims): CaptionModel {
  if (spec.kind === 'transformer') {
    const size = TRANSFORMER_SIZES[spec.size as TransformerSize];
    if (!size) throw new Error(`model: unknown transformer size "${spec.size}" (choose ${Object.keys(TRANSFORMER_SIZES).join(', ')})`);
    const config: TransformerConfig = { ...DEFAULT_TRANSFORMER, ...size, ...(spec.overrides as Partial<TransformerConfig>), ...dims };
    return new TransformerCaptioner(config);
  }
  if (spec.kind === 'lstm') {
    const size = LSTM_SIZES[spec.size as LstmSize];
    if (!size) throw new Error(`model: unknown lstm size "${spec.size}" (choose ${Object.keys(LSTM_SIZES).join(', ')})`);
    const { mocClasses: _unused, ...rest } = dims;
    return new LstmCaptioner({ ...DEFAULT_LSTM, ...size, ...(spec.overrides as Partial<LstmConfig>), ...rest });
  }
  throw new Error(`model: unknown kind "${String((spec as { kind: unknown }).kind)}"`);
}
