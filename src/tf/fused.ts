/**
 * Ops cckit's models and losses use that run as one native kernel each (forward and gradient) when
 * the native kernels are active (./native-kernels), instead of the dozen small tfjs kernels their
 * composition costs. Elsewhere (wasm alone, cpu, tfjs-node) the reference composition runs: exactly
 * the expressions the models used before the fusion, so those backends compute what they did.
 * test/tf-native.test.ts holds each fused op against its reference (values and gradients).
 */
import type * as TF from '@tensorflow/tfjs';

import { FUSED_DROPOUT, FUSED_LAYER_NORM, FUSED_LAYER_NORM_GRAD, FUSED_SOFTMAX_CE, FUSED_SOFTMAX_CE_GRAD, nativeKernelsActive } from './native-kernels';

type Tf = typeof TF;

function fusedHere(tf: Tf): boolean {
  return nativeKernelsActive() && tf.getBackend() === 'wasm';
}

/** Layer normalisation over the last axis, (x − μ)/√(σ² + ε)·γ + β: the composition of tfjs ops. */
export function layerNormReference<T extends TF.Tensor>(tf: Tf, x: T, gamma: TF.Tensor, beta: TF.Tensor, epsilon: number): T {
  const { mean, variance } = tf.moments(x, -1, true);
  return x
    .sub(mean)
    .mul(tf.rsqrt(variance.add(epsilon)))
    .mul(gamma)
    .add(beta) as T;
}

/** Layer normalisation over the last axis; one kernel forward and one backward where native. */
export function layerNorm<T extends TF.Tensor>(tf: Tf, x: T, gamma: TF.Tensor, beta: TF.Tensor, epsilon: number, fused = fusedHere(tf)): T {
  if (!fused || x.dtype !== 'float32') return layerNormReference(tf, x, gamma, beta, epsilon);
  const op = tf.customGrad(((xIn: TF.Tensor, g: TF.Tensor, b: TF.Tensor, save: TF.GradSaveFunc) => {
    const [y, mean, rstd] = tf.engine().runKernel(FUSED_LAYER_NORM, { x: xIn, gamma: g, beta: b }, { epsilon }) as TF.Tensor[];
    save([xIn, g, mean!, rstd!]);
    return {
      value: y!,
      gradFunc: (dy: TF.Tensor, saved: TF.Tensor[]) => {
        const [sx, sg, smean, srstd] = saved;
        return tf.engine().runKernel(FUSED_LAYER_NORM_GRAD, { x: sx!, gamma: sg!, mean: smean!, rstd: srstd!, dy }, {}) as TF.Tensor[];
      },
    };
  }) as unknown as Parameters<Tf['customGrad']>[0]);
  return op(x, gamma, beta) as T;
}

/**
 * Per-row cross-entropy of `logits` [N, C] against int32 `labels` [N], with label smoothing s:
 * (1 − s)·(−log p[label]) + s·(−mean log p). The composition of tfjs ops.
 */
export function softmaxCrossEntropyReference(tf: Tf, logits: TF.Tensor2D, labels: TF.Tensor1D, smoothing: number): TF.Tensor1D {
  const logp = tf.logSoftmax(logits);
  const oneHot = tf.oneHot(labels, logits.shape[1]);
  let nll = tf.neg(tf.sum(tf.mul(oneHot, logp), -1));
  if (smoothing > 0) nll = nll.mul(1 - smoothing).add(tf.neg(tf.mean(logp, -1)).mul(smoothing));
  return nll as TF.Tensor1D;
}

/** Per-row softmax cross-entropy (see the reference); one kernel forward and one backward where native. */
export function softmaxCrossEntropy(tf: Tf, logits: TF.Tensor2D, labels: TF.Tensor1D, smoothing: number, fused = fusedHere(tf)): TF.Tensor1D {
  if (!fused || logits.dtype !== 'float32') return softmaxCrossEntropyReference(tf, logits, labels, smoothing);
  const int = labels.dtype === 'int32' ? labels : labels.toInt();
  const op = tf.customGrad(((x: TF.Tensor, save: TF.GradSaveFunc) => {
    const [loss, lse] = tf.engine().runKernel(FUSED_SOFTMAX_CE, { logits: x, labels: int }, { smoothing }) as TF.Tensor[];
    save([x, lse!]);
    return {
      value: loss!,
      gradFunc: (dy: TF.Tensor, saved: TF.Tensor[]) => [
        tf.engine().runKernel(FUSED_SOFTMAX_CE_GRAD, { logits: saved[0]!, labels: int, lse: saved[1]!, dy }, { smoothing }) as TF.Tensor,
      ],
    };
  }) as unknown as Parameters<Tf['customGrad']>[0]);
  return op(logits) as TF.Tensor1D;
}

/**
 * Inverted dropout with a mask drawn from `seed`: tfjs's `dropout` (its seeded uniform draw runs
 * in JS), or, where native, one kernel drawing the mask from a counter-based generator (another
 * mask for the same seed, equally deterministic) and a multiply for the gradient.
 */
export function seededDropout<T extends TF.Tensor>(tf: Tf, x: T, rate: number, seed: number, fused = fusedHere(tf)): T {
  if (!fused || x.dtype !== 'float32') return tf.dropout(x, rate, undefined, seed) as T;
  const op = tf.customGrad(((xIn: TF.Tensor, save: TF.GradSaveFunc) => {
    const [y, mask] = tf.engine().runKernel(FUSED_DROPOUT, { x: xIn }, { rate, seed }) as TF.Tensor[];
    save([mask!]);
    return { value: y!, gradFunc: (dy: TF.Tensor, saved: TF.Tensor[]) => [tf.mul(dy, saved[0]!)] };
  }) as unknown as Parameters<Tf['customGrad']>[0]);
  return op(x) as T;
}
