/**
 * Incremental decoding for cckit's TransformerCaptioner (src/models/transformer.ts), from its
 * parameters by name: the cross-attention keys and values of the visual memory are projected once
 * per image and kept once per image (an image's beams attend to them as `width` queries, so they
 * are never repeated or moved for the beams), each layer's self-attention keys and values are
 * cached per hypothesis, and only the newest position is computed (its logits alone). Same numbers as `decode`'s last position
 * (tested). It mirrors the model's decoder block by block (pre-LayerNorm, ReLU feed-forward, tied
 * or separate output projection); if the model's parameter names change, `transformerStepDecoder`
 * returns undefined and the searches fall back to `decode`.
 */
import type * as TF from '@tensorflow/tfjs';
import { loadTf } from '../tf/backend';
import type { CaptionModel, Encoded } from '../models/types';
import { TransformerCaptioner } from '../models/transformer';
import type { StepDecoder, StepState } from './incremental';

const NEG_INF = -1e9;

export function transformerStepDecoder(model: CaptionModel): StepDecoder | undefined {
  if (!(model instanceof TransformerCaptioner)) return undefined;
  const { dModel: d, heads, decoderLayers: L, tieEmbeddings, maxPositions, vocabSize } = model.config;
  const params = model.variables();
  const needed = ['word_emb', 'dec_pos', 'dec_ln_g', 'dec_ln_b', ...(tieEmbeddings ? [] : ['out_w', 'out_b'])];
  for (let l = 0; l < L; l++) {
    for (const n of ['ln1', 'ln2', 'ln3']) needed.push(`dec${l}_${n}_g`, `dec${l}_${n}_b`);
    for (const n of ['self_qkv', 'self_o', 'cross_q', 'cross_kv', 'cross_o', 'ff1', 'ff2']) needed.push(`dec${l}_${n}_w`, `dec${l}_${n}_b`);
  }
  if (!needed.every((n) => params.has(n))) return undefined;
  const tf = loadTf();
  const p = (name: string): TF.Tensor => params.get(name)!;
  const dh = d / heads;
  const linear = (name: string, x: TF.Tensor2D): TF.Tensor2D => tf.add(tf.matMul(x, p(`${name}_w`) as TF.Tensor2D), p(`${name}_b`)) as TF.Tensor2D;
  const norm = (name: string, x: TF.Tensor2D): TF.Tensor2D => {
    const { mean, variance } = tf.moments(x, -1, true);
    return x.sub(mean).mul(tf.rsqrt(variance.add(1e-5))).mul(p(`${name}_g`)).add(p(`${name}_b`)) as TF.Tensor2D;
  };
  /** [N·len, d] → [N, heads, len, dh] */
  const split = (x: TF.Tensor2D, n: number, len: number): TF.Tensor4D => x.reshape([n, len, heads, dh]).transpose([0, 2, 1, 3]);
  /** One query per row against keys/values [N, heads, len, dh] → [N, d]. */
  const attend = (q: TF.Tensor2D, k: TF.Tensor4D, v: TF.Tensor4D): TF.Tensor2D => {
    const n = q.shape[0];
    const qh = q.reshape([n, heads, 1, dh]).mul(1 / Math.sqrt(dh));
    return tf.matMul(tf.softmax(tf.matMul(qh, k, false, true)), v).reshape([n, d]);
  };
  /** `width` queries per image (rows image-major) against the image's memory keys/values [A, heads, S, dh]. */
  const attendMemory = (q: TF.Tensor2D, k: TF.Tensor4D, v: TF.Tensor4D, bias: TF.Tensor, width: number): TF.Tensor2D => {
    const n = q.shape[0];
    const a = n / width;
    const qh = q.reshape([a, width, heads, dh]).transpose([0, 2, 1, 3]).mul(1 / Math.sqrt(dh));
    const probs = tf.softmax(tf.matMul(qh, k, false, true).add(bias)); // [A, heads, width, S]
    return tf.matMul(probs, v).transpose([0, 2, 1, 3]).reshape([n, d]);
  };

  return {
    start(encoded: Encoded): StepState {
      return tf.tidy(() => {
        const [n, S] = encoded.memory.shape;
        const memory = encoded.memory.reshape([n * S, d]) as TF.Tensor2D;
        const tensors: TF.Tensor[] = [];
        for (let l = 0; l < L; l++) {
          const [k, v] = tf.split(linear(`dec${l}_cross_kv`, memory), 2, 1) as [TF.Tensor2D, TF.Tensor2D];
          tensors.push(split(k, n, S), split(v, n, S));
        }
        tensors.push(tf.sub(1, encoded.mask.toFloat()).mul(NEG_INF).reshape([n, 1, 1, S]));
        return { tensors, position: 0, perImage: 2 * L + 1 } as unknown as TF.TensorContainer;
      }) as unknown as StepState;
    },

    step(state: StepState, tokens: TF.Tensor1D, width: number): { logits: TF.Tensor2D; state: StepState } {
      const t = state.position;
      if (t >= maxPositions) throw new Error(`transformer: prefix of ${t + 1} tokens exceeds maxPositions ${maxPositions}`);
      const fixed = state.tensors.slice(0, 2 * L + 1);
      const caches = state.tensors.slice(2 * L + 1);
      const crossBias = fixed[2 * L];
      const n = tokens.shape[0];
      const out = tf.tidy(() => {
        let x = tf.gather(p('word_emb'), tokens.toInt()).mul(Math.sqrt(d)).add(p('dec_pos').slice([t, 0], [1, d])) as TF.Tensor2D;
        const nextCaches: TF.Tensor[] = [];
        for (let l = 0; l < L; l++) {
          const name = `dec${l}`;
          const [q, k, v] = tf.split(linear(`${name}_self_qkv`, norm(`${name}_ln1`, x)), 3, 1) as [TF.Tensor2D, TF.Tensor2D, TF.Tensor2D];
          const kAll = (t === 0 ? split(k, n, 1) : tf.concat([caches[2 * l], split(k, n, 1)], 2)) as TF.Tensor4D;
          const vAll = (t === 0 ? split(v, n, 1) : tf.concat([caches[2 * l + 1], split(v, n, 1)], 2)) as TF.Tensor4D;
          nextCaches.push(kAll, vAll);
          x = x.add(linear(`${name}_self_o`, attend(q, kAll, vAll)));
          const cq = linear(`${name}_cross_q`, norm(`${name}_ln2`, x));
          x = x.add(linear(`${name}_cross_o`, attendMemory(cq, fixed[2 * l] as TF.Tensor4D, fixed[2 * l + 1] as TF.Tensor4D, crossBias, width)));
          const h = tf.relu(linear(`${name}_ff1`, norm(`${name}_ln3`, x)));
          x = x.add(linear(`${name}_ff2`, h as TF.Tensor2D));
        }
        const h = norm('dec_ln', x);
        const logits = tieEmbeddings ? tf.matMul(h, p('word_emb') as TF.Tensor2D, false, true) : linear('out', h);
        return { logits: logits.reshape([n, vocabSize]), caches: nextCaches } as unknown as TF.TensorContainer;
      }) as unknown as { logits: TF.Tensor2D; caches: TF.Tensor[] };
      return { logits: out.logits, state: { tensors: [...fixed, ...out.caches], position: t + 1, perImage: 2 * L + 1 } };
    },
  };
}
