/**
 * The vision-and-language matching (VLM) model of CC12M §3.3: "the encoder without the decoder plus
 * a text encoder", mean pooling per modality, a learned transform per side into a joint space, and
 * a contrastive softmax over the batch.
 *
 * Image side: an encoder over the visual inputs — by default a small pre-LayerNorm Transformer
 * encoder of its own (visual vectors projected to the model width, plus region geometry when
 * given; with `tagInputs`, the image's tags too, as the CC12M encoder takes them (§3.3): embedded
 * with the text side's word embeddings plus a learned tag-segment vector, after the visual
 * positions, so the visual positions attend to them), or, for IC+VLM multitask, any external `imageEncoder` (e.g. the captioner's `encode`) so
 * both tasks train one encoder. Its outputs at the visual positions (the first N memory positions,
 * the layout every cckit encoder uses) are mean-pooled over `visualMask`.
 * Text side: a small Transformer encoder over caption tokens with its own word and position
 * embeddings, mean-pooled over non-PAD tokens. Each side: linear map to `embedDim`, L2-normalised.
 *
 * Loss: symmetric InfoNCE — cross-entropy of image→text and of text→image over the batch
 * similarity matrix (the matched pair is the diagonal), averaged.
 * Temperature: the paper does not give one. We learn it, as CLIP does: a scalar log-scale
 * `logit_scale` = log(1/τ) initialised at τ = 0.07 and clamped to 1/τ ∈ [1, 100]. Why learnable:
 * the best τ depends on batch size and on how separable the data are, and our batches are far
 * smaller than the paper's, so a fixed value tuned elsewhere would not transfer; the clamp keeps
 * an early run from collapsing the scale or blowing it up. `learnTemperature: false` keeps τ fixed.
 * Duplicate captions in a batch count as negatives (as in CLIP); the data loader should avoid them.
 *
 * Both encoders are stacks of ./layers' pre-LayerNorm encoder blocks, the captioner's (ReLU FFN,
 * dropout on residual branches, Glorot init, plain variables by stable names, seeded init); this
 * model's blocks name their FFN norm `ln2` (the captioner's `ln3`), as its checkpoints do.
 * With an external image encoder, its variables belong to its owner: `variables()` lists only this
 * model's own (text encoder, both transforms, temperature), and the trainer optimises both maps.
 */
import type * as TF from '@tensorflow/tfjs';

import { EncoderStack, LayerContext } from './layers';
import { ParameterizedModel } from './params';
import { PAD_ID } from '../text/tokens';
import { Encoded, EncoderInput } from './types';
import { encoderSequence } from './visual-input';

export interface MatchingConfig {
  vocabSize: number;
  /** Width of the visual vectors given to the default image encoder. */
  visualDim: number;
  /** Numbers per visual position besides the vector (regions: 5), 0 for none. */
  geometryDim: number;
  /** Width of both encoders of this model. */
  dModel: number;
  heads: number;
  ffn: number;
  /** Layers of the default image encoder (unused with an external image encoder). */
  imageLayers: number;
  textLayers: number;
  dropout: number;
  /** Width of the joint embedding space. */
  embedDim: number;
  /** Longest caption the text position table covers. */
  maxPositions: number;
  /** Initial temperature τ (similarities are divided by it). */
  temperature: number;
  /** Learn log(1/τ) (clamped to 1/τ ∈ [1, 100]); false keeps τ fixed. */
  learnTemperature: boolean;
  /** The default image encoder also reads the image's tags (CC12M §3.3); false: visual inputs only. */
  tagInputs: boolean;
  seed: number;
}

/** Encodes a batch of visual inputs; its `memory` holds the N visual positions first. */
export type ImageEncoderFn = (input: EncoderInput, training: boolean) => Encoded;

export interface MatchingOptions {
  /** Shared image encoder (IC+VLM multitask); default: this model's own Transformer encoder. */
  imageEncoder?: ImageEncoderFn;
  /** Width of the external encoder's memory; required with `imageEncoder`. */
  imageDim?: number;
}

/**
 * Sizes. The paper reuses the captioner's encoder (app. E.2: 6 layers, 1024, 8 heads, FFN 4096);
 * it states neither the text encoder's size nor the joint width, so the paper preset assumes the
 * text side mirrors the image side and a joint space of the model width.
 */
export const MATCHING_SIZES = {
  'cc12m-paper': { imageLayers: 6, textLayers: 6, dModel: 1024, heads: 8, ffn: 4096, embedDim: 1024, dropout: 0.1 },
  small: { imageLayers: 2, textLayers: 2, dModel: 256, heads: 4, ffn: 1024, embedDim: 256, dropout: 0.1 },
  tiny: { imageLayers: 1, textLayers: 1, dModel: 128, heads: 4, ffn: 256, embedDim: 128, dropout: 0.1 },
} as const;
export type MatchingSize = keyof typeof MATCHING_SIZES;

export const DEFAULT_MATCHING: Omit<MatchingConfig, 'vocabSize' | 'visualDim'> = {
  ...MATCHING_SIZES.tiny,
  geometryDim: 0,
  maxPositions: 64,
  temperature: 0.07,
  learnTemperature: true,
  tagInputs: false,
  seed: 1,
};

const MAX_LOGIT_SCALE = Math.log(100);

type Tf = typeof TF;

export class MatchingModel extends ParameterizedModel {
  readonly config: MatchingConfig;
  private readonly imageEncoder: ImageEncoderFn;
  private readonly imageDim: number;
  private readonly textStack: EncoderStack;

  constructor(config: MatchingConfig, options: MatchingOptions = {}) {
    super('matching', config.seed, { tag: 0x71c0, rate: config.dropout });
    if (config.dModel % config.heads !== 0) throw new Error(`matching: dModel ${config.dModel} is not divisible by heads ${config.heads}`);
    if (options.imageEncoder && !(options.imageDim && options.imageDim > 0))
      throw new Error("matching: imageDim (the width of the shared encoder's memory) is required with imageEncoder");
    if (!(config.temperature > 0)) throw new Error(`matching: temperature must be > 0 (got ${config.temperature})`);
    this.config = config;
    const d = config.dModel;
    const ctx: LayerContext = { tf: this.tf, params: this.params, dropout: this.dropout };
    if (options.imageEncoder) {
      this.imageEncoder = options.imageEncoder;
      this.imageDim = options.imageDim!;
    } else {
      this.imageDim = d;
      this.params.dense('img_visual_proj', config.visualDim, d);
      if (config.geometryDim > 0) this.params.dense('img_geometry_proj', config.geometryDim, d);
      const stack = new EncoderStack(ctx, config, config.imageLayers, 'img_enc', 'img_ln', 'ln2');
      this.imageEncoder = (input, training) => this.encodeImage(stack, input, training);
    }
    this.params.weight('txt_word_emb', [config.vocabSize, d], Math.sqrt(1 / d));
    this.params.weight('txt_pos', [config.maxPositions, d], 0.02);
    this.textStack = new EncoderStack(ctx, config, config.textLayers, 'txt_enc', 'txt_ln', 'ln2');
    this.params.dense('img_head', this.imageDim, config.embedDim);
    this.params.dense('txt_head', d, config.embedDim);
    if (config.learnTemperature) this.params.set('logit_scale', this.tf.variable(this.tf.scalar(Math.log(1 / config.temperature)), true));
    // created last, so a model without tags draws the same initial weights as before tags existed
    if (config.tagInputs && !options.imageEncoder) this.params.weight('img_tag_segment', [1, d], 0.02);
  }

  /** The current temperature τ. */
  temperature(): number {
    const v = this.params.get('logit_scale');
    if (!v) return this.config.temperature;
    return this.tf.tidy(() => 1 / Math.exp(this.logitScale().dataSync()[0]!));
  }

  // ------------------------------------------------------------------ embeddings

  /** L2-normalised image embeddings [B, embedDim]. */
  embedImages(input: EncoderInput, training = false): TF.Tensor2D {
    const tf = this.tf;
    return tf.tidy(() => {
      const [B, N] = input.visual.shape;
      const encoded = this.imageEncoder(input, training);
      const [, S, w] = encoded.memory.shape;
      if (w !== this.imageDim) throw new Error(`matching: image encoder width ${w} ≠ imageDim ${this.imageDim}`);
      if (S < N) throw new Error(`matching: image encoder memory has ${S} positions, fewer than the ${N} visual ones`);
      const visual = S === N ? encoded.memory : encoded.memory.slice([0, 0, 0], [B, N, w]);
      const pooled = maskedMean(tf, visual, input.visualMask.toFloat() as TF.Tensor2D);
      return l2normalize(tf, this.params.linear('img_head', pooled));
    });
  }

  /** L2-normalised caption embeddings [B, embedDim] from token ids [B, L] (PAD_ID for padding). */
  embedTexts(tokens: TF.Tensor2D, training = false): TF.Tensor2D {
    const tf = this.tf;
    return tf.tidy(() => {
      const L = tokens.shape[1];
      const d = this.config.dModel;
      if (L > this.config.maxPositions) throw new Error(`matching: caption of ${L} tokens exceeds maxPositions ${this.config.maxPositions}`);
      let x = this.params.embed('txt_word_emb', tokens).add(this.params.need('txt_pos').slice([0, 0], [L, d])) as TF.Tensor3D;
      const mask = tokens.notEqual(PAD_ID).toFloat() as TF.Tensor2D;
      x = this.textStack.apply(x, mask, training);
      const pooled = maskedMean(tf, x, mask);
      return l2normalize(tf, this.params.linear('txt_head', pooled));
    });
  }

  /** Scaled cosine similarities [Bi, Bt] = (img · txtᵀ) / τ. */
  similarity(imgEmb: TF.Tensor2D, txtEmb: TF.Tensor2D): TF.Tensor2D {
    return this.tf.tidy(() => this.tf.matMul(imgEmb, txtEmb, false, true).mul(this.tf.exp(this.logitScale())));
  }

  /** Symmetric InfoNCE over a batch of matched pairs (row b of each is a pair): a scalar. */
  contrastiveLoss(imgEmb: TF.Tensor2D, txtEmb: TF.Tensor2D): TF.Scalar {
    const tf = this.tf;
    if (imgEmb.shape[0] !== txtEmb.shape[0]) throw new Error(`matching: ${imgEmb.shape[0]} images vs ${txtEmb.shape[0]} captions`);
    return tf.tidy(() => {
      const B = imgEmb.shape[0];
      const logits = this.similarity(imgEmb, txtEmb);
      const eye = tf.eye(B);
      // −mean log p(matched) per direction: rows image→text, columns text→image
      const i2t = tf.logSoftmax(logits).mul(eye).sum(1).mean().neg();
      const t2i = tf.logSoftmax(logits.transpose()).mul(eye).sum(1).mean().neg();
      return i2t.add(t2i).div(2) as TF.Scalar;
    });
  }

  // ------------------------------------------------------------------ encoders

  /** The default image encoder: visual (and geometry) projections, then `stack`. */
  private encodeImage(stack: EncoderStack, input: EncoderInput, training: boolean): Encoded {
    const tags = input.tags && input.tags.shape[1] > 0 ? input.tags : undefined;
    if (input.text && input.text.shape[1] > 0)
      throw new Error("matching: the built-in image encoder takes no text; share the captioner's encoder (imageEncoder) for it");
    if (tags && !this.config.tagInputs) throw new Error('matching: the image encoder was built without tag inputs (tagInputs: false) but the batch has tags');
    const { x, mask } = encoderSequence(this.tf, this.params, input, {
      width: this.config.dModel,
      visualProjection: 'img_visual_proj',
      geometryProjection: this.config.geometryDim > 0 ? 'img_geometry_proj' : undefined,
      embedTokens: (tokens) => this.params.embed('txt_word_emb', tokens).add(this.params.need('img_tag_segment')),
    });
    return { memory: stack.apply(x, mask, training), mask };
  }

  // ------------------------------------------------------------------ primitives

  private logitScale(): TF.Scalar {
    const v = this.params.get('logit_scale');
    if (!v) return this.tf.scalar(Math.log(1 / this.config.temperature));
    return this.tf.clipByValue(v, 0, MAX_LOGIT_SCALE) as TF.Scalar;
  }
}

/** Mean of x [B, S, d] over positions where mask [B, S] is 1 (zero for an all-padding row). */
function maskedMean(tf: Tf, x: TF.Tensor3D, mask: TF.Tensor2D): TF.Tensor2D {
  const m = mask.expandDims(2);
  return x
    .mul(m)
    .sum(1)
    .div(tf.maximum(m.sum(1), 1)) as TF.Tensor2D;
}

function l2normalize(tf: Tf, x: TF.Tensor2D): TF.Tensor2D {
  return x.div(tf.sqrt(x.square().sum(1, true).add(1e-12)));
}
