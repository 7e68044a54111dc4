/**
 * A stand-in captioner for the decoder's tests and benchmark: fixed random bigram and trigram
 * tables plus an image-dependent bias, turned into logits with tfjs ops. Deterministic for a seed,
 * cheap, and a faithful CaptionModel (encode → decode for every prefix position, tileEncoded).
 *
 * logits(b, t, ·) = bigram[x_t] + trigram[x_{t-1}, x_t] + bias_b + eos(t)
 *   bias_b = Σ_n visual[b, n] · W (masked), eos(t) = eosSlope · t + eosOffset on the EOS column only,
 * so captions end after a length that depends on the image and the words.
 */
import type * as TF from '@tensorflow/tfjs';
import { loadTf } from '../tf/backend';
import { CaptionModel, Encoded, EncoderInput } from '../models/types';
import { BOS_ID, EOS_ID } from '../text/tokens';

export interface NgramModelOptions {
  vocabSize: number;
  /** Width of the visual vectors (default 8). */
  visualDim?: number;
  seed?: number;
  /** Scale of the random tables (default 2: fairly peaked next-token distributions). */
  scale?: number;
  /** EOS logit = eosSlope · position + eosOffset (defaults 0.6 and -3). */
  eosSlope?: number;
  eosOffset?: number;
  /** Extra per-position work, to mimic a heavier decoder in benchmarks: matMuls of this width (0 = none). */
  hiddenWidth?: number;
}

/** Deterministic values in [-1, 1) (an LCG). */
export function lcgValues(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

export class NgramCaptionModel implements CaptionModel {
  readonly kind = 'transformer' as const;
  readonly vocabSize: number;
  readonly visualDim: number;
  private readonly bigram: TF.Tensor2D;
  private readonly trigram: TF.Tensor2D;
  private readonly project: TF.Tensor2D;
  private readonly hidden?: { down: TF.Tensor2D; up: TF.Tensor2D };
  private readonly eosSlope: number;
  private readonly eosOffset: number;

  constructor(options: NgramModelOptions) {
    const tf = loadTf();
    const V = (this.vocabSize = options.vocabSize);
    const Dv = (this.visualDim = options.visualDim ?? 8);
    const seed = options.seed ?? 1;
    const scale = options.scale ?? 2;
    this.eosSlope = options.eosSlope ?? 0.6;
    this.eosOffset = options.eosOffset ?? -3;
    const table = (n: number, s: number, k: number) => lcgValues(n, s).map((x) => x * k);
    this.bigram = tf.tensor2d(table(V * V, seed, scale), [V, V]);
    this.trigram = tf.tensor2d(table(V * V * V, seed + 1, scale), [V * V, V]);
    this.project = tf.tensor2d(table(Dv * V, seed + 2, scale / 2), [Dv, V]);
    const H = options.hiddenWidth ?? 0;
    if (H > 0) this.hidden = { down: tf.tensor2d(table(V * H, seed + 3, 0.01), [V, H]), up: tf.tensor2d(table(H * V, seed + 4, 0.01), [H, V]) };
  }

  /** Random visual inputs for `batch` images with `positions` vectors each. */
  randomInput(batch: number, seed: number, positions = 1): EncoderInput {
    const tf = loadTf();
    return {
      visual: tf.tensor3d(lcgValues(batch * positions * this.visualDim, seed), [batch, positions, this.visualDim]),
      visualMask: tf.ones([batch, positions]) as TF.Tensor2D,
    };
  }

  encode(input: EncoderInput): Encoded {
    const tf = loadTf();
    return tf.tidy(() => {
      const [B, N, Dv] = input.visual.shape;
      const masked = tf.mul(input.visual, input.visualMask.reshape([B, N, 1]));
      const summed = tf.sum(masked, 1) as TF.Tensor2D; // [B, Dv]
      void Dv;
      const bias = tf.matMul(summed, this.project).reshape([B, 1, this.vocabSize]) as TF.Tensor3D;
      return { memory: bias, mask: tf.ones([B, 1]) as TF.Tensor2D } as unknown as TF.TensorContainer;
    }) as unknown as Encoded;
  }

  decode(encoded: Encoded, tokens: TF.Tensor2D): TF.Tensor3D {
    const tf = loadTf();
    const V = this.vocabSize;
    return tf.tidy(() => {
      const [B, T] = tokens.shape;
      if (encoded.memory.shape[0] !== B) throw new Error(`decode: ${B} token rows for ${encoded.memory.shape[0]} encoder rows`);
      const x = tokens.toInt();
      const prev = T === 1 ? tf.fill([B, 1], BOS_ID, 'int32') : tf.concat([tf.fill([B, 1], BOS_ID, 'int32'), x.slice([0, 0], [B, T - 1])], 1);
      const flat = x.reshape([B * T]);
      const pair = tf.add(tf.mul(prev.reshape([B * T]), tf.scalar(V, 'int32')), flat);
      let logits = tf.add(tf.gather(this.bigram, flat), tf.gather(this.trigram, pair)); // [B*T, V]
      if (this.hidden) logits = tf.add(logits, tf.matMul(tf.relu(tf.matMul(logits, this.hidden.down)), this.hidden.up));
      const eosColumn = new Float32Array(T * V);
      for (let t = 0; t < T; t++) eosColumn[t * V + EOS_ID] = this.eosSlope * t + this.eosOffset;
      return tf.add(tf.add(logits.reshape([B, T, V]), encoded.memory), tf.tensor3d(eosColumn, [1, T, V])) as TF.Tensor3D;
    });
  }

  tileEncoded(encoded: Encoded, times: number): Encoded {
    const tf = loadTf();
    return tf.tidy(() => {
      const B = encoded.memory.shape[0];
      const index = tf.tensor1d(Int32Array.from({ length: B * times }, (_, i) => Math.floor(i / times)), 'int32');
      const out: Encoded = { memory: tf.gather(encoded.memory, index), mask: tf.gather(encoded.mask, index) };
      if (encoded.state) out.state = encoded.state.map((s) => (s.shape[0] === B ? tf.gather(s, index) : s.clone()));
      return out as unknown as TF.TensorContainer;
    }) as unknown as Encoded;
  }

  variables(): Map<string, TF.Variable> {
    return new Map();
  }

  dispose(): void {
    for (const t of [this.bigram, this.trigram, this.project, this.hidden?.down, this.hidden?.up]) t?.dispose();
  }
}
