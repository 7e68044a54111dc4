/**
 * The Transformer encoder–decoder captioner (CC3M §4.1 "T2T"; CC12M app. E.2).
 *
 * Encoder input: visual vectors (projected to the model width, plus a projection of region
 * geometry when given), tag tokens and optional text tokens (masked captions for MLM), each with a
 * learned segment embedding; tokens also get learned positions. Pre-LayerNorm blocks (stable
 * without a long warm-up on small data), ReLU feed-forward, dropout on every residual branch.
 * Decoder: causal self-attention, cross-attention to the encoder memory, word logits — tied to the
 * input word embeddings when `tieEmbeddings` (CC3M). Optional heads: masked object classification
 * (MOC) over encoder outputs at region positions.
 *
 * Incremental decoding (`startIncremental`, `step`): the cross-attention keys and values of the
 * visual memory are projected once per image and kept once per image (an image's beams attend to
 * them as `width` queries, so they are never repeated or moved for the beams), each layer's
 * self-attention keys and values are cached per hypothesis, and only the newest position is
 * computed (its logits alone) — through the same decoder blocks as `decode` (./layers).
 *
 * The blocks are ./layers' (shared with the matching model). Plain tf.Variables by stable names,
 * so checkpoints are a name → tensor map.
 */
import type * as TF from '@tensorflow/tfjs';

import { DecoderStack, EncoderStack, LayerContext } from './layers';
import { ParameterizedModel } from './params';
import { CaptionModel, Encoded, EncoderInput, StepOutput, StepState } from './types';
import { encoderSequence } from './visual-input';

export interface TransformerConfig {
  vocabSize: number;
  encoderLayers: number;
  decoderLayers: number;
  dModel: number;
  heads: number;
  ffn: number;
  dropout: number;
  /** Width of the visual vectors given to the encoder. */
  visualDim: number;
  /** Numbers per visual position besides the vector (regions: 5), 0 for none. */
  geometryDim: number;
  /** Longest token sequence (decoder prefix, encoder tags + text) the position tables cover. */
  maxPositions: number;
  /** Output projection = input word embeddings transposed (CC3M). */
  tieEmbeddings: boolean;
  /** Classes of the masked-object-classification head; 0 = no head. */
  mocClasses: number;
  seed: number;
}

/** Model sizes. Paper sizes for reference and real hardware; tiny/small train on this CPU. */
export const TRANSFORMER_SIZES = {
  /** CC12M app. E.2: 6 layers, hidden 1024, 8 heads, FFN 4096. */
  'cc12m-paper': { encoderLayers: 6, decoderLayers: 6, dModel: 1024, heads: 8, ffn: 4096, dropout: 0.1 },
  /** CC3M §4.1 (T2T base-like): 6 layers, 512, 8 heads, FFN 2048. */
  'cc3m-paper': { encoderLayers: 6, decoderLayers: 6, dModel: 512, heads: 8, ffn: 2048, dropout: 0.1 },
  small: { encoderLayers: 2, decoderLayers: 2, dModel: 256, heads: 4, ffn: 1024, dropout: 0.1 },
  tiny: { encoderLayers: 1, decoderLayers: 2, dModel: 128, heads: 4, ffn: 256, dropout: 0.1 },
} as const;
export type TransformerSize = keyof typeof TRANSFORMER_SIZES;

/** The shapes one captioning step's products run on: B captions of T tokens, S encoder positions, V words. */
export interface CaptionStepShape {
  batch: number;
  tokens: number;
  positions: number;
  vocab: number;
  visualDim: number;
  geometryDim: number;
}

/**
 * Matrix-product FLOPs of one training step of the transformer captioner's IC path (forward 2·m·k·n per product,
 * backward twice that): input projections, encoder self-attention and FFN over S positions, decoder self- and
 * cross-attention and FFN over T tokens, the vocabulary projection. Element-wise work (softmax, layer norm, Adam)
 * is not counted, nor other objectives' heads.
 */
export function captionerStepFlops(size: Pick<TransformerConfig, 'encoderLayers' | 'decoderLayers' | 'dModel' | 'ffn'>, shape: CaptionStepShape): number {
  const { batch: B, tokens: T, positions: S, vocab: V } = shape;
  const d = size.dModel;
  const f = size.ffn;
  const mm = (m: number, k: number, n: number): number => 2 * m * k * n;
  const input = mm(B * S, shape.visualDim, d) + mm(B * S, shape.geometryDim, d);
  // self-attention over L positions: QKV, scores, probabilities · V, output
  const selfAttention = (L: number): number => mm(B * L, d, 3 * d) + 2 * mm(B * L, d, L) + mm(B * L, d, d);
  const crossAttention = mm(B * T, d, d) + mm(B * S, d, 2 * d) + 2 * mm(B * T, d, S) + mm(B * T, d, d);
  const ffn = (L: number): number => mm(B * L, d, f) + mm(B * L, f, d);
  const forward =
    input + size.encoderLayers * (selfAttention(S) + ffn(S)) + size.decoderLayers * (selfAttention(T) + crossAttention + ffn(T)) + mm(B * T, d, V);
  return 3 * forward;
}

export const DEFAULT_TRANSFORMER: Omit<TransformerConfig, 'vocabSize' | 'visualDim'> = {
  ...TRANSFORMER_SIZES.tiny,
  geometryDim: 0,
  maxPositions: 64,
  tieEmbeddings: false,
  mocClasses: 0,
  seed: 1,
};

const SEGMENT_VISUAL = 0;
const SEGMENT_TAGS = 1;
const SEGMENT_TEXT = 2;

export class TransformerCaptioner extends ParameterizedModel implements CaptionModel {
  readonly kind = 'transformer' as const;
  readonly config: TransformerConfig;
  private readonly encoder: EncoderStack;
  private readonly decoder: DecoderStack;

  constructor(config: TransformerConfig) {
    super('transformer', config.seed, { tag: 0x0d70, rate: config.dropout });
    if (config.dModel % config.heads !== 0) throw new Error(`transformer: dModel ${config.dModel} is not divisible by heads ${config.heads}`);
    this.config = config;
    const d = config.dModel;
    this.params.dense('visual_proj', config.visualDim, d);
    if (config.geometryDim > 0) this.params.dense('geometry_proj', config.geometryDim, d);
    this.params.weight('word_emb', [config.vocabSize, d], Math.sqrt(1 / d));
    this.params.weight('enc_pos', [config.maxPositions, d], 0.02);
    this.params.weight('dec_pos', [config.maxPositions, d], 0.02);
    this.params.weight('segment_emb', [3, d], 0.02);
    const ctx: LayerContext = { tf: this.tf, params: this.params, dropout: this.dropout };
    this.encoder = new EncoderStack(ctx, config, config.encoderLayers, 'enc', 'enc_ln', 'ln3');
    this.decoder = new DecoderStack(ctx, config, config.decoderLayers, 'dec', 'dec_ln');
    if (!config.tieEmbeddings) this.params.dense('out', d, config.vocabSize);
    if (config.mocClasses > 0) this.params.dense('moc', d, config.mocClasses);
  }

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  get memoryWidth(): number {
    return this.config.dModel;
  }

  // ------------------------------------------------------------------ encoder

  encode(input: EncoderInput, training = false): Encoded {
    const tf = this.tf;
    return tf.tidy(() => {
      const d = this.config.dModel;
      const { x, mask } = encoderSequence(tf, this.params, input, {
        width: d,
        visualProjection: 'visual_proj',
        geometryProjection: this.config.geometryDim > 0 ? 'geometry_proj' : undefined,
        markVisual: (visual) => visual.add(this.params.need('segment_emb').slice([SEGMENT_VISUAL, 0], [1, d])),
        embedTokens: (tokens, segment, offset) => {
          const L = tokens.shape[1];
          if (offset + L > this.config.maxPositions)
            throw new Error(`transformer: ${offset + L} encoder tokens exceed maxPositions ${this.config.maxPositions}`);
          return this.params
            .embed('word_emb', tokens)
            .add(this.params.need('enc_pos').slice([offset, 0], [L, d]))
            .add(this.params.need('segment_emb').slice([segment === 'tags' ? SEGMENT_TAGS : SEGMENT_TEXT, 0], [1, d]));
        },
      });
      return { memory: this.encoder.apply(x, mask, training), mask };
    });
  }

  /** MOC logits [B, N, classes] from encoder memory (use at masked region positions). */
  mocLogits(encoded: Encoded): TF.Tensor3D {
    if (this.config.mocClasses <= 0) throw new Error('transformer: built without a MOC head (mocClasses = 0)');
    return this.tf.tidy(() => {
      const [B, S, d] = encoded.memory.shape;
      return this.params.linear('moc', encoded.memory.reshape([B * S, d])).reshape([B, S, this.config.mocClasses]);
    });
  }

  // ------------------------------------------------------------------ decoder

  decode(encoded: Encoded, tokens: TF.Tensor2D, training = false): TF.Tensor3D {
    const tf = this.tf;
    return tf.tidy(() => {
      const [B, T] = tokens.shape;
      const d = this.config.dModel;
      if (T > this.config.maxPositions) throw new Error(`transformer: prefix of ${T} tokens exceeds maxPositions ${this.config.maxPositions}`);
      const x = this.params.embed('word_emb', tokens).add(this.params.need('dec_pos').slice([0, 0], [T, d])) as TF.Tensor3D;
      const h: TF.Tensor2D = this.decoder.apply(x, encoded.memory, encoded.mask, training).reshape([B * T, d]);
      return this.logits(h).reshape([B, T, this.config.vocabSize]);
    });
  }

  /** A decoding state for the encoded rows: each layer's memory keys and values and the memory bias, one row per image. */
  startIncremental(encoded: Encoded): StepState {
    const tf = this.tf;
    return tf.tidy(() => {
      const tensors = this.decoder.start(encoded.memory, encoded.mask.toFloat());
      return { tensors, position: 0, perImage: tensors.length } as unknown as TF.TensorContainer;
    }) as unknown as StepState;
  }

  /** Feeds one token per row at `state.position` through the decoder blocks; the logits of that position alone. */
  step(state: StepState, tokens: TF.Tensor1D, width: number): StepOutput {
    const tf = this.tf;
    const t = state.position;
    const d = this.config.dModel;
    if (t >= this.config.maxPositions) throw new Error(`transformer: prefix of ${t + 1} tokens exceeds maxPositions ${this.config.maxPositions}`);
    const perImage = 2 * this.decoder.layers + 1;
    if (state.perImage !== perImage)
      throw new Error(`transformer: not a state of this model's startIncremental (${state.perImage} per-image tensors, expected ${perImage})`);
    const fixed = state.tensors.slice(0, perImage);
    const caches = state.tensors.slice(perImage);
    const n = tokens.shape[0];
    const out = tf.tidy(() => {
      const x = tf
        .gather(this.params.need('word_emb'), tokens.toInt())
        .mul(Math.sqrt(d))
        .add(this.params.need('dec_pos').slice([t, 0], [1, d])) as TF.Tensor2D;
      const next = this.decoder.step(x, fixed, caches, width);
      return { logits: this.logits(next.out).reshape([n, this.config.vocabSize]), caches: next.caches } as unknown as TF.TensorContainer;
    }) as unknown as { logits: TF.Tensor2D; caches: TF.Tensor[] };
    return { logits: out.logits, state: { tensors: [...fixed, ...out.caches], position: t + 1, perImage } };
  }

  tileEncoded(encoded: Encoded, times: number): Encoded {
    return this.tf.tidy(() => {
      const [memory, mask] = this.repeatRows<TF.Tensor>([encoded.memory, encoded.mask], times);
      return { memory: memory as TF.Tensor3D, mask: mask as TF.Tensor2D };
    });
  }

  // ------------------------------------------------------------------ primitives

  /** Decoder outputs [N, d] → word logits [N, V] (tied to the word embeddings or a separate projection). */
  private logits(h: TF.Tensor2D): TF.Tensor2D {
    return this.config.tieEmbeddings ? this.tf.matMul(h, this.params.need('word_emb'), false, true) : this.params.linear('out', h);
  }
}
