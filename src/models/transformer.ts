/**
 * The Transformer encoder–decoder captioner (CC3M §4.1 "T2T"; CC12M app. E.2), in one file.
 *
 * Encoder input: visual vectors (projected to the model width, plus a projection of region
 * geometry when given), tag tokens and optional text tokens (masked captions for MLM), each with a
 * learned segment embedding; tokens also get learned positions. Pre-LayerNorm blocks (stable
 * without a long warm-up on small data), ReLU feed-forward, dropout on every residual branch.
 * Decoder: causal self-attention, cross-attention to the encoder memory, word logits — tied to the
 * input word embeddings when `tieEmbeddings` (CC3M). Optional heads: masked object classification
 * (MOC) over encoder outputs at region positions.
 *
 * Plain tf.Variables by stable names, so checkpoints are a name → tensor map.
 */
import type * as TF from '@tensorflow/tfjs';

import { loadTf } from '../tf/backend';
import { Params, SeededDropout } from './params';
import { PAD_ID } from '../text/tokens';
import { CaptionModel, Encoded, EncoderInput } from './types';

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
const NEG_INF = -1e9;

type Tf = typeof TF;

export class TransformerCaptioner implements CaptionModel {
  readonly kind = 'transformer' as const;
  readonly config: TransformerConfig;
  private readonly tf: Tf;
  private readonly params: Params;
  /** Masks follow (seed, step, call order); the trainer sets the step, so resumed runs repeat them. */
  private readonly dropout: SeededDropout;

  constructor(config: TransformerConfig) {
    if (config.dModel % config.heads !== 0) throw new Error(`transformer: dModel ${config.dModel} is not divisible by heads ${config.heads}`);
    this.config = config;
    this.tf = loadTf();
    this.params = new Params(this.tf, config.seed, 'transformer');
    this.dropout = new SeededDropout(this.tf, config.seed, 0x0d70, config.dropout);
    const d = config.dModel;
    this.params.dense('visual_proj', config.visualDim, d);
    if (config.geometryDim > 0) this.params.dense('geometry_proj', config.geometryDim, d);
    this.params.weight('word_emb', [config.vocabSize, d], Math.sqrt(1 / d));
    this.params.weight('enc_pos', [config.maxPositions, d], 0.02);
    this.params.weight('dec_pos', [config.maxPositions, d], 0.02);
    this.params.weight('segment_emb', [3, d], 0.02);
    for (let l = 0; l < config.encoderLayers; l++) this.block(`enc${l}`, false);
    this.params.layerNorm('enc_ln', d);
    for (let l = 0; l < config.decoderLayers; l++) this.block(`dec${l}`, true);
    this.params.layerNorm('dec_ln', d);
    if (!config.tieEmbeddings) this.params.dense('out', d, config.vocabSize);
    if (config.mocClasses > 0) this.params.dense('moc', d, config.mocClasses);
  }

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  variables(): Map<string, TF.Variable> {
    return this.params;
  }

  /** Makes dropout masks a function of (seed, step, call order) — deterministic and resumable. */
  setDropoutStep(step: number): void {
    this.dropout.setStep(step);
  }

  dispose(): void {
    this.params.disposeAll();
  }

  // ------------------------------------------------------------------ encoder

  encode(input: EncoderInput, training = false): Encoded {
    const tf = this.tf;
    return tf.tidy(() => {
      const [B, N] = input.visual.shape;
      const d = this.config.dModel;
      let vis: TF.Tensor3D = this.params.linear('visual_proj', input.visual.reshape([B * N, input.visual.shape[2]])).reshape([B, N, d]);
      if (input.geometry && this.config.geometryDim > 0) {
        const g = input.geometry;
        vis = vis.add(this.params.linear('geometry_proj', g.reshape([B * N, g.shape[2]])).reshape([B, N, d]));
      }
      vis = vis.add(this.params.need('segment_emb').slice([SEGMENT_VISUAL, 0], [1, d]));
      const parts: TF.Tensor3D[] = [vis];
      const masks: TF.Tensor2D[] = [input.visualMask.toFloat()];
      let offset = 0;
      for (const [tokens, segment] of [
        [input.tags, SEGMENT_TAGS],
        [input.text, SEGMENT_TEXT],
      ] as const) {
        if (!tokens || tokens.shape[1] === 0) continue;
        const L = tokens.shape[1];
        if (offset + L > this.config.maxPositions) throw new Error(`transformer: ${offset + L} encoder tokens exceed maxPositions ${this.config.maxPositions}`);
        const emb = this.embed(tokens)
          .add(this.params.need('enc_pos').slice([offset, 0], [L, d]))
          .add(this.params.need('segment_emb').slice([segment, 0], [1, d]));
        parts.push(emb as TF.Tensor3D);
        masks.push(tokens.notEqual(PAD_ID).toFloat() as TF.Tensor2D);
        offset += L;
      }
      let x = (parts.length > 1 ? tf.concat(parts, 1) : parts[0]!) as TF.Tensor3D;
      const mask = masks.length > 1 ? (tf.concat(masks, 1) as TF.Tensor2D) : masks[0]!;
      x = this.dropout.apply(x, training);
      const bias = maskBias(tf, mask);
      for (let l = 0; l < this.config.encoderLayers; l++) {
        const name = `enc${l}`;
        x = x.add(this.dropout.apply(this.selfAttention(`${name}_self`, this.params.norm(`${name}_ln1`, x), bias), training));
        x = x.add(this.dropout.apply(this.feedForward(name, this.params.norm(`${name}_ln3`, x), training), training));
      }
      return { memory: this.params.norm('enc_ln', x), mask };
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
      let x = this.embed(tokens).add(this.params.need('dec_pos').slice([0, 0], [T, d])) as TF.Tensor3D;
      x = this.dropout.apply(x, training);
      const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
      const selfBias = tf.sub(1, causal).mul(NEG_INF).reshape([1, 1, T, T]);
      const crossBias = maskBias(tf, encoded.mask);
      for (let l = 0; l < this.config.decoderLayers; l++) {
        const name = `dec${l}`;
        x = x.add(this.dropout.apply(this.selfAttention(`${name}_self`, this.params.norm(`${name}_ln1`, x), selfBias), training));
        x = x.add(this.dropout.apply(this.crossAttention(`${name}_cross`, this.params.norm(`${name}_ln2`, x), encoded.memory, crossBias), training));
        x = x.add(this.dropout.apply(this.feedForward(name, this.params.norm(`${name}_ln3`, x), training), training));
      }
      const h: TF.Tensor2D = this.params.norm('dec_ln', x).reshape([B * T, d]);
      const logits = this.config.tieEmbeddings ? tf.matMul(h, this.params.need('word_emb'), false, true) : this.params.linear('out', h);
      return logits.reshape([B, T, this.config.vocabSize]);
    });
  }

  tileEncoded(encoded: Encoded, times: number): Encoded {
    const tf = this.tf;
    return tf.tidy(() => {
      const B = encoded.memory.shape[0];
      const index = tf.tensor1d(
        Array.from({ length: B * times }, (_, i) => Math.floor(i / times)),
        'int32',
      );
      return { memory: tf.gather(encoded.memory, index), mask: tf.gather(encoded.mask, index) };
    });
  }

  // ------------------------------------------------------------------ blocks

  private selfAttention(name: string, x: TF.Tensor3D, bias: TF.Tensor): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const qkv = this.params.linear(`${name}_qkv`, x.reshape([B * T, d]));
    const [q, k, v] = this.tf.split(qkv, 3, 1) as [TF.Tensor2D, TF.Tensor2D, TF.Tensor2D];
    return this.attend(name, q, k, v, B, T, T, bias);
  }

  private crossAttention(name: string, x: TF.Tensor3D, memory: TF.Tensor3D, bias: TF.Tensor): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const S = memory.shape[1];
    const q = this.params.linear(`${name}_q`, x.reshape([B * T, d]));
    const kv = this.params.linear(`${name}_kv`, memory.reshape([B * S, d]));
    const [k, v] = this.tf.split(kv, 2, 1) as [TF.Tensor2D, TF.Tensor2D];
    return this.attend(name, q, k, v, B, T, S, bias);
  }

  /** Multi-head scaled dot-product attention over [B·T, d] queries and [B·S, d] keys/values. */
  private attend(name: string, q: TF.Tensor2D, k: TF.Tensor2D, v: TF.Tensor2D, B: number, T: number, S: number, bias: TF.Tensor): TF.Tensor3D {
    const tf = this.tf;
    const { heads, dModel: d } = this.config;
    const dh = d / heads;
    const split = (t: TF.Tensor2D, len: number): TF.Tensor4D => t.reshape([B, len, heads, dh]).transpose([0, 2, 1, 3]);
    const qh = split(q, T).mul(1 / Math.sqrt(dh));
    const scores = tf.matMul(qh, split(k, S), false, true).add(bias);
    const probs = tf.softmax(scores);
    const out = tf.matMul(probs, split(v, S)).transpose([0, 2, 1, 3]).reshape([B * T, d]);
    return this.params.linear(`${name}_o`, out as TF.Tensor2D).reshape([B, T, d]);
  }

  private feedForward(name: string, x: TF.Tensor3D, training: boolean): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const h = this.dropout.apply(this.tf.relu(this.params.linear(`${name}_ff1`, x.reshape([B * T, d]))), training);
    return this.params.linear(`${name}_ff2`, h).reshape([B, T, d]);
  }

  private block(name: string, decoder: boolean): void {
    const { dModel: d, ffn } = this.config;
    this.params.layerNorm(`${name}_ln1`, d);
    this.params.dense(`${name}_self_qkv`, d, 3 * d);
    this.params.dense(`${name}_self_o`, d, d);
    if (decoder) {
      this.params.layerNorm(`${name}_ln2`, d);
      this.params.dense(`${name}_cross_q`, d, d);
      this.params.dense(`${name}_cross_kv`, d, 2 * d);
      this.params.dense(`${name}_cross_o`, d, d);
    }
    this.params.layerNorm(`${name}_ln3`, d);
    this.params.dense(`${name}_ff1`, d, ffn);
    this.params.dense(`${name}_ff2`, ffn, d);
  }

  // ------------------------------------------------------------------ primitives

  private embed(tokens: TF.Tensor2D): TF.Tensor3D {
    const [B, L] = tokens.shape;
    const flat = this.tf.gather(this.params.need('word_emb'), tokens.reshape([B * L]).toInt());
    return flat.mul(Math.sqrt(this.config.dModel)).reshape([B, L, this.config.dModel]);
  }

}

/** [B, S] 1/0 mask → additive attention bias [B, 1, 1, S]. */
function maskBias(tf: Tf, mask: TF.Tensor2D): TF.Tensor4D {
  const [B, S] = mask.shape;
  return tf.sub(1, mask).mul(NEG_INF).reshape([B, 1, 1, S]);
}
