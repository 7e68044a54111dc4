/**
 * The Transformer layers every cckit model is built from, written once: dense maps, layer norm,
 * multi-head scaled dot-product attention (self and cross, additive mask biases), the ReLU
 * feed-forward, the pre-LayerNorm encoder and decoder blocks, and stacks of them with their final
 * LayerNorm. The captioner (./transformer) and the matching model (./matching) use them; the
 * decoder's incremental step (one new position per row against cached keys and values) is a method
 * of the same layer objects as its full forward pass, so the two cannot drift apart.
 *
 * A layer creates its parameters in the model's store (./params) when it is constructed, under the
 * names it is given and in a fixed order: parameter names are checkpoint names, and each
 * parameter's init seed follows its creation order, so both are part of the models' contract.
 * Layers do not tidy: the models call them inside tf.tidy. Dropout is the model's (SeededDropout):
 * masks follow (seed, step, call order), so the order of `apply` calls below is part of the contract too.
 */
import type * as TF from '@tensorflow/tfjs';

import { layerNorm } from '../tf/fused';
import { Params, SeededDropout } from './params';

type Tf = typeof TF;

/** Additive bias of masked attention positions (softmax turns it into a zero weight). */
export const NEG_INF = -1e9;

/** What a layer is built on: tfjs, the model's parameter store and the model's dropout. */
export interface LayerContext {
  readonly tf: Tf;
  readonly params: Params;
  readonly dropout: SeededDropout;
}

/** Widths of a Transformer: model width, attention heads (dividing dModel), feed-forward width. */
export interface BlockDims {
  dModel: number;
  heads: number;
  ffn: number;
}

/** [B, S] 1/0 mask → additive attention bias [B, 1, 1, S]. */
export function maskBias(tf: Tf, mask: TF.Tensor2D): TF.Tensor4D {
  const [B, S] = mask.shape;
  return tf.sub(1, mask).mul(NEG_INF).reshape([B, 1, 1, S]);
}

/** Causal self-attention bias [1, 1, T, T]: position t attends to positions ≤ t. */
export function causalBias(tf: Tf, T: number): TF.Tensor4D {
  const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
  return tf.sub(1, causal).mul(NEG_INF).reshape([1, 1, T, T]);
}

/** x · W + b: parameters `${name}_w` (Glorot-uniform) and `${name}_b` (zeros). */
export class Dense {
  constructor(
    private readonly params: Params,
    readonly name: string,
    inDim: number,
    outDim: number,
  ) {
    params.dense(name, inDim, outDim);
  }

  apply(x: TF.Tensor2D): TF.Tensor2D {
    return this.params.linear(this.name, x);
  }
}

/** Layer normalisation over the last axis: parameters `${name}_g` (ones) and `${name}_b` (zeros). */
export class LayerNorm {
  constructor(
    private readonly ctx: LayerContext,
    readonly name: string,
    dim: number,
  ) {
    ctx.params.layerNorm(name, dim);
  }

  apply<T extends TF.Tensor>(x: T): T {
    const { tf, params } = this.ctx;
    return layerNorm(tf, x, params.need(`${this.name}_g`), params.need(`${this.name}_b`), 1e-5);
  }
}

/**
 * Multi-head scaled dot-product attention. Self-attention projects queries, keys and values with
 * one fused map `${name}_qkv` [d, 3d]; cross-attention projects queries with `${name}_q` and the
 * memory's keys and values with `${name}_kv` [d, 2d]; both end with `${name}_o`.
 */
export class MultiHeadAttention {
  private readonly qkv?: Dense;
  private readonly q?: Dense;
  private readonly kv?: Dense;
  private readonly o: Dense;
  private readonly dModel: number;
  private readonly heads: number;

  constructor(
    private readonly ctx: LayerContext,
    readonly name: string,
    dims: Pick<BlockDims, 'dModel' | 'heads'>,
    readonly kind: 'self' | 'cross',
  ) {
    const d = (this.dModel = dims.dModel);
    this.heads = dims.heads;
    if (d % dims.heads !== 0) throw new Error(`${name}: dModel ${d} is not divisible by heads ${dims.heads}`);
    if (kind === 'self') {
      this.qkv = new Dense(ctx.params, `${name}_qkv`, d, 3 * d);
    } else {
      this.q = new Dense(ctx.params, `${name}_q`, d, d);
      this.kv = new Dense(ctx.params, `${name}_kv`, d, 2 * d);
    }
    this.o = new Dense(ctx.params, `${name}_o`, d, d);
  }

  /** Self-attention of x [B, T, d] with an additive bias broadcasting to [B, heads, T, T]. */
  self(x: TF.Tensor3D, bias: TF.Tensor): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const [q, k, v] = this.ctx.tf.split(this.need(this.qkv).apply(x.reshape([B * T, d])), 3, 1) as [TF.Tensor2D, TF.Tensor2D, TF.Tensor2D];
    return this.o.apply(this.attend(q, this.splitHeads(k, B, T), this.splitHeads(v, B, T), B, T, bias)).reshape([B, T, d]);
  }

  /** Cross-attention of x [B, T, d] to memory [B, S, d] with a bias broadcasting to [B, heads, T, S]. */
  cross(x: TF.Tensor3D, memory: TF.Tensor3D, bias: TF.Tensor): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const q = this.need(this.q).apply(x.reshape([B * T, d]));
    const [k, v] = this.memoryKeys(memory);
    return this.o.apply(this.attend(q, k, v, B, T, bias)).reshape([B, T, d]);
  }

  /** Cross-attention keys and values of memory [A, S, d], each [A, heads, S, dh] (computed once per image for decoding). */
  memoryKeys(memory: TF.Tensor3D): [TF.Tensor4D, TF.Tensor4D] {
    const [A, S, d] = memory.shape;
    const [k, v] = this.ctx.tf.split(this.need(this.kv).apply(memory.reshape([A * S, d])), 2, 1) as [TF.Tensor2D, TF.Tensor2D];
    return [this.splitHeads(k, A, S), this.splitHeads(v, A, S)];
  }

  /**
   * Self-attention step: one new position per row, x [N, d], attending to the cached keys and
   * values [N, heads, t, dh] of the earlier positions (none at the first step) and to itself. No
   * mask: a row sees all it has fed. Returns the output [N, d] and the keys and values with the new
   * position appended.
   */
  selfStep(x: TF.Tensor2D, cache?: readonly [TF.Tensor4D, TF.Tensor4D]): { out: TF.Tensor2D; k: TF.Tensor4D; v: TF.Tensor4D } {
    const tf = this.ctx.tf;
    const n = x.shape[0];
    const [q, k, v] = tf.split(this.need(this.qkv).apply(x), 3, 1) as [TF.Tensor2D, TF.Tensor2D, TF.Tensor2D];
    const kAll = (cache ? tf.concat([cache[0], this.splitHeads(k, n, 1)], 2) : this.splitHeads(k, n, 1)) as TF.Tensor4D;
    const vAll = (cache ? tf.concat([cache[1], this.splitHeads(v, n, 1)], 2) : this.splitHeads(v, n, 1)) as TF.Tensor4D;
    return { out: this.o.apply(this.attend(q, kAll, vAll, n, 1)), k: kAll, v: vAll };
  }

  /**
   * Cross-attention step: x [N, d] holds `width` rows per image (image-major), keys and values
   * [A, heads, S, dh] one row per image (from `memoryKeys`), bias [A, 1, 1, S]. An image's rows
   * attend as `width` queries, so the memory is never repeated for them. Returns [N, d].
   */
  crossStep(x: TF.Tensor2D, keys: readonly [TF.Tensor4D, TF.Tensor4D], bias: TF.Tensor, width: number): TF.Tensor2D {
    const q = this.need(this.q).apply(x);
    return this.o.apply(this.attend(q, keys[0], keys[1], x.shape[0] / width, width, bias));
  }

  /** [B·len, d] → [B, heads, len, dh] */
  private splitHeads(x: TF.Tensor2D, B: number, len: number): TF.Tensor4D {
    return x.reshape([B, len, this.heads, this.dModel / this.heads]).transpose([0, 2, 1, 3]);
  }

  /** Queries [B·T, d] against keys/values [B, heads, S, dh] → the heads' outputs concatenated, [B·T, d] (before `_o`). */
  private attend(q: TF.Tensor2D, k: TF.Tensor4D, v: TF.Tensor4D, B: number, T: number, bias?: TF.Tensor): TF.Tensor2D {
    const tf = this.ctx.tf;
    const dh = this.dModel / this.heads;
    const qh = this.splitHeads(q, B, T).mul(1 / Math.sqrt(dh));
    let scores = tf.matMul(qh, k, false, true);
    if (bias) scores = scores.add(bias);
    const probs = tf.softmax(scores);
    return tf
      .matMul(probs, v)
      .transpose([0, 2, 1, 3])
      .reshape([B * T, this.dModel]);
  }

  private need(layer: Dense | undefined): Dense {
    if (!layer) throw new Error(`${this.name}: not a ${this.kind === 'self' ? 'cross' : 'self'}-attention layer`);
    return layer;
  }
}

/** ReLU feed-forward `${name}_ff1` [d, ffn] → `${name}_ff2` [ffn, d], dropout on the hidden layer. */
export class FeedForward {
  private readonly ff1: Dense;
  private readonly ff2: Dense;

  constructor(
    private readonly ctx: LayerContext,
    name: string,
    dims: Pick<BlockDims, 'dModel' | 'ffn'>,
  ) {
    this.ff1 = new Dense(ctx.params, `${name}_ff1`, dims.dModel, dims.ffn);
    this.ff2 = new Dense(ctx.params, `${name}_ff2`, dims.ffn, dims.dModel);
  }

  apply(x: TF.Tensor3D, training: boolean): TF.Tensor3D {
    const [B, T, d] = x.shape;
    const h = this.ctx.dropout.apply(this.ctx.tf.relu(this.ff1.apply(x.reshape([B * T, d]))), training);
    return this.ff2.apply(h).reshape([B, T, d]);
  }

  /** Rows [N, d], inference (no dropout). */
  applyRows(x: TF.Tensor2D): TF.Tensor2D {
    return this.ff2.apply(this.ctx.tf.relu(this.ff1.apply(x)));
  }
}

/**
 * Pre-LayerNorm encoder block: x + drop(selfAttn(LN(x))), then x + drop(FFN(LN(x))). Parameters,
 * in creation order: `${name}_ln1`, `${name}_self_{qkv,o}`, `${name}_${ffnNorm}`, `${name}_ff{1,2}`.
 * The FFN norm's name is the one thing the models spell differently, and checkpoints hold it: the
 * captioner numbers its encoder's norms as its decoder's (`ln3`; there is no cross-attention
 * `ln2`), the matching model calls it `ln2`.
 */
export class EncoderBlock {
  private readonly ln1: LayerNorm;
  private readonly selfAttention: MultiHeadAttention;
  private readonly lnFfn: LayerNorm;
  private readonly ffn: FeedForward;

  constructor(
    private readonly ctx: LayerContext,
    readonly name: string,
    dims: BlockDims,
    ffnNorm: 'ln2' | 'ln3',
  ) {
    this.ln1 = new LayerNorm(ctx, `${name}_ln1`, dims.dModel);
    this.selfAttention = new MultiHeadAttention(ctx, `${name}_self`, dims, 'self');
    this.lnFfn = new LayerNorm(ctx, `${name}_${ffnNorm}`, dims.dModel);
    this.ffn = new FeedForward(ctx, name, dims);
  }

  /** x [B, S, d]; bias [B, 1, 1, S] from the padding mask. */
  apply(x: TF.Tensor3D, bias: TF.Tensor, training: boolean): TF.Tensor3D {
    const dropout = this.ctx.dropout;
    x = x.add(dropout.apply(this.selfAttention.self(this.ln1.apply(x), bias), training));
    return x.add(dropout.apply(this.ffn.apply(this.lnFfn.apply(x), training), training));
  }
}

/**
 * Pre-LayerNorm decoder block: causal self-attention, cross-attention to the encoder memory, FFN,
 * each x + drop(f(LN(x))). Parameters, in creation order: `${name}_ln1`, `${name}_self_{qkv,o}`,
 * `${name}_ln2`, `${name}_cross_{q,kv,o}`, `${name}_ln3`, `${name}_ff{1,2}`.
 */
export class DecoderBlock {
  private readonly ln1: LayerNorm;
  private readonly selfAttention: MultiHeadAttention;
  private readonly ln2: LayerNorm;
  readonly crossAttention: MultiHeadAttention;
  private readonly ln3: LayerNorm;
  private readonly ffn: FeedForward;

  constructor(
    private readonly ctx: LayerContext,
    readonly name: string,
    dims: BlockDims,
  ) {
    this.ln1 = new LayerNorm(ctx, `${name}_ln1`, dims.dModel);
    this.selfAttention = new MultiHeadAttention(ctx, `${name}_self`, dims, 'self');
    this.ln2 = new LayerNorm(ctx, `${name}_ln2`, dims.dModel);
    this.crossAttention = new MultiHeadAttention(ctx, `${name}_cross`, dims, 'cross');
    this.ln3 = new LayerNorm(ctx, `${name}_ln3`, dims.dModel);
    this.ffn = new FeedForward(ctx, name, dims);
  }

  /** x [B, T, d]; selfBias [1, 1, T, T] (causal); memory [B, S, d]; crossBias [B, 1, 1, S]. */
  apply(x: TF.Tensor3D, selfBias: TF.Tensor, memory: TF.Tensor3D, crossBias: TF.Tensor, training: boolean): TF.Tensor3D {
    const dropout = this.ctx.dropout;
    x = x.add(dropout.apply(this.selfAttention.self(this.ln1.apply(x), selfBias), training));
    x = x.add(dropout.apply(this.crossAttention.cross(this.ln2.apply(x), memory, crossBias), training));
    return x.add(dropout.apply(this.ffn.apply(this.ln3.apply(x), training), training));
  }

  /**
   * One new position per row (inference): x [N, d], `width` rows per image; memory keys/values and
   * crossBias one row per image; `cache` this block's self-attention keys/values of the earlier
   * positions (none at the first step). Returns x and the cache with the new position.
   */
  step(
    x: TF.Tensor2D,
    memoryKeys: readonly [TF.Tensor4D, TF.Tensor4D],
    crossBias: TF.Tensor,
    cache: readonly [TF.Tensor4D, TF.Tensor4D] | undefined,
    width: number,
  ): { x: TF.Tensor2D; k: TF.Tensor4D; v: TF.Tensor4D } {
    const self = this.selfAttention.selfStep(this.ln1.apply(x), cache);
    x = x.add(self.out);
    x = x.add(this.crossAttention.crossStep(this.ln2.apply(x), memoryKeys, crossBias, width));
    x = x.add(this.ffn.applyRows(this.ln3.apply(x)));
    return { x, k: self.k, v: self.v };
  }
}

/** Dropout on the input, `layers` encoder blocks `${prefix}${l}`, a final LayerNorm `norm`. */
export class EncoderStack {
  private readonly blocks: EncoderBlock[] = [];
  private readonly norm: LayerNorm;

  constructor(
    private readonly ctx: LayerContext,
    dims: BlockDims,
    layers: number,
    prefix: string,
    norm: string,
    ffnNorm: 'ln2' | 'ln3',
  ) {
    for (let l = 0; l < layers; l++) this.blocks.push(new EncoderBlock(ctx, `${prefix}${l}`, dims, ffnNorm));
    this.norm = new LayerNorm(ctx, norm, dims.dModel);
  }

  /** x [B, S, d] and its mask [B, S] (1 = a position) → the encoded positions [B, S, d]. */
  apply(x: TF.Tensor3D, mask: TF.Tensor2D, training: boolean): TF.Tensor3D {
    x = this.ctx.dropout.apply(x, training);
    const bias = maskBias(this.ctx.tf, mask);
    for (const block of this.blocks) x = block.apply(x, bias, training);
    return this.norm.apply(x);
  }
}

/**
 * Dropout on the input, `layers` decoder blocks `${prefix}${l}`, a final LayerNorm `norm`; the full
 * causal pass (`apply`) and the incremental one (`start`, `step`) through the same blocks.
 */
export class DecoderStack {
  private readonly blocks: DecoderBlock[] = [];
  private readonly norm: LayerNorm;

  constructor(
    private readonly ctx: LayerContext,
    dims: BlockDims,
    layers: number,
    prefix: string,
    norm: string,
  ) {
    for (let l = 0; l < layers; l++) this.blocks.push(new DecoderBlock(ctx, `${prefix}${l}`, dims));
    this.norm = new LayerNorm(ctx, norm, dims.dModel);
  }

  get layers(): number {
    return this.blocks.length;
  }

  /** Embedded prefix x [B, T, d] → normalised outputs [B, T, d], position t seeing positions ≤ t. */
  apply(x: TF.Tensor3D, memory: TF.Tensor3D, memoryMask: TF.Tensor2D, training: boolean): TF.Tensor3D {
    const tf = this.ctx.tf;
    x = this.ctx.dropout.apply(x, training);
    const selfBias = causalBias(tf, x.shape[1]);
    const crossBias = maskBias(tf, memoryMask);
    for (const block of this.blocks) x = block.apply(x, selfBias, memory, crossBias, training);
    return this.norm.apply(x);
  }

  /**
   * What every hypothesis of an image shares, one row per image: each block's cross-attention keys
   * and values of the memory [A, S, d], then the memory's attention bias — 2·layers + 1 tensors.
   */
  start(memory: TF.Tensor3D, memoryMask: TF.Tensor2D): TF.Tensor[] {
    const tensors: TF.Tensor[] = [];
    for (const block of this.blocks) tensors.push(...block.crossAttention.memoryKeys(memory));
    tensors.push(maskBias(this.ctx.tf, memoryMask));
    return tensors;
  }

  /**
   * The newest position of each row, x [N, d] (embedded, inference): `perImage` from `start`,
   * `caches` each block's self-attention keys and values so far (empty at the first step). Returns
   * the normalised output [N, d] and the caches with this position added.
   */
  step(x: TF.Tensor2D, perImage: readonly TF.Tensor[], caches: readonly TF.Tensor[], width: number): { out: TF.Tensor2D; caches: TF.Tensor[] } {
    const L = this.blocks.length;
    if (perImage.length !== 2 * L + 1) throw new Error(`decoder step: ${perImage.length} per-image tensors, expected ${2 * L + 1}`);
    if (caches.length !== 0 && caches.length !== 2 * L) throw new Error(`decoder step: ${caches.length} cache tensors, expected 0 or ${2 * L}`);
    const crossBias = perImage[2 * L]!;
    const next: TF.Tensor[] = [];
    this.blocks.forEach((block, l) => {
      const memoryKeys = [perImage[2 * l], perImage[2 * l + 1]] as [TF.Tensor4D, TF.Tensor4D];
      const cache = caches.length ? ([caches[2 * l], caches[2 * l + 1]] as [TF.Tensor4D, TF.Tensor4D]) : undefined;
      const out = block.step(x, memoryKeys, crossBias, cache, width);
      x = out.x;
      next.push(out.k, out.v);
    });
    return { out: this.norm.apply(x), caches: next };
  }
}
