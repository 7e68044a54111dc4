/**
 * Optimisers with state we own (so checkpoints hold it exactly and resumed runs continue the same
 * curve) and learning-rate schedules in steps or epochs (the CC12M paper states some schedules in
 * steps, some in epochs; the CC3M paper uses Adagrad at 0.01).
 */
import type * as TF from '@tensorflow/tfjs';

import { loadTf } from '../tf/backend';
import { nativeAdagradUpdate, nativeAdamUpdate } from '../tf/native-kernels';

export type ScheduleUnit = 'steps' | 'epochs';

export interface ScheduleConfig {
  /** Peak learning rate. */
  lr: number;
  /** Linear warm-up length from 0 to `lr` (0 = none). */
  warmup?: number;
  warmupUnit?: ScheduleUnit;
  /** After warm-up: constant, linear to 0 at the end, cosine to 0, inverse square root, or exponential. */
  decay?: 'none' | 'linear' | 'cosine' | 'rsqrt' | 'exponential';
  decayUnit?: ScheduleUnit;
  /** exponential: lr × rate^(t / every), t and every in `decayUnit`. */
  decayRate?: number;
  decayEvery?: number;
}

export interface AdamConfig extends ScheduleConfig {
  name: 'adam';
  beta1?: number;
  beta2?: number;
  epsilon?: number;
}

export interface AdagradConfig extends ScheduleConfig {
  name: 'adagrad';
  /** Starting accumulator value (TensorFlow's default 0.1). */
  initialAccumulator?: number;
  epsilon?: number;
}

export type OptimizerConfig = AdamConfig | AdagradConfig;

/** Learning rate at `step` (0-based) of a run of `totalSteps`, with `stepsPerEpoch` to convert units. */
export function learningRateAt(config: ScheduleConfig, step: number, stepsPerEpoch: number, totalSteps: number): number {
  const inSteps = (value: number, unit: ScheduleUnit | undefined): number => (unit === 'epochs' ? value * stepsPerEpoch : value);
  const warmup = inSteps(config.warmup ?? 0, config.warmupUnit);
  const t = step + 1;
  if (warmup > 0 && t <= warmup) return (config.lr * t) / warmup;
  const after = t - warmup;
  const span = Math.max(1, totalSteps - warmup);
  switch (config.decay ?? 'none') {
    case 'none':
      return config.lr;
    case 'linear':
      return config.lr * Math.max(0, 1 - after / span);
    case 'cosine':
      return config.lr * 0.5 * (1 + Math.cos(Math.PI * Math.min(1, after / span)));
    case 'rsqrt':
      return config.lr * Math.sqrt(Math.max(1, warmup) / Math.max(t, warmup, 1));
    case 'exponential': {
      const every = inSteps(config.decayEvery ?? 1, config.decayUnit);
      return config.lr * Math.pow(config.decayRate ?? 0.5, after / Math.max(1, every));
    }
    default:
      throw new Error(`optimizer: unknown decay ${String(config.decay)}`);
  }
}

/** Scales gradients so their global L2 norm is at most `clipNorm`; returns the norm before clipping. */
export function clipByGlobalNorm(grads: Map<string, TF.Tensor>, clipNorm: number): number {
  const tf = loadTf();
  const norm = tf.tidy(() => {
    let sum: TF.Scalar = tf.scalar(0);
    for (const g of grads.values()) sum = sum.add(g.square().sum());
    return sum.sqrt();
  });
  const value = norm.dataSync()[0]!;
  norm.dispose();
  if (clipNorm > 0 && value > clipNorm) {
    const scale = clipNorm / value;
    for (const [name, g] of grads) {
      grads.set(
        name,
        tf.tidy(() => g.mul(scale)),
      );
      g.dispose();
    }
  }
  return value;
}

/** An optimiser over named variables, its slots saved and restored by name. */
export class Optimizer {
  readonly config: OptimizerConfig;
  private readonly slots = new Map<string, TF.Variable>();
  /** Updates applied so far (Adam's bias correction uses it). */
  iterations = 0;

  constructor(
    config: OptimizerConfig,
    private readonly variables: Map<string, TF.Variable>,
  ) {
    this.config = config;
    if (config.name !== 'adam' && config.name !== 'adagrad') throw new Error(`optimizer: unknown name ${String((config as { name: unknown }).name)}`);
  }

  /** Applies one update with learning rate `lr`; disposes `grads`. */
  apply(grads: Map<string, TF.Tensor>, lr: number): void {
    const tf = loadTf();
    this.iterations++;
    const t = this.iterations;
    for (const [name, g] of grads) {
      const v = this.variables.get(name);
      if (!v) throw new Error(`optimizer: gradient for unknown variable ${name}`);
      if (this.config.name === 'adam') {
        const b1 = this.config.beta1 ?? 0.9;
        const b2 = this.config.beta2 ?? 0.999;
        const eps = this.config.epsilon ?? 1e-8;
        const m = this.slot(`${name}/m`, v, 0);
        const s = this.slot(`${name}/v`, v, 0);
        const stepSize = (lr * Math.sqrt(1 - Math.pow(b2, t))) / (1 - Math.pow(b1, t));
        // in place on the wasm heap when the native kernels are active; the same formula below otherwise
        if (nativeAdamUpdate(v, m, s, g, b1, b2, stepSize, eps)) {
          g.dispose();
          continue;
        }
        tf.tidy(() => {
          const m1 = m.mul(b1).add(g.mul(1 - b1));
          const s1 = s.mul(b2).add(g.square().mul(1 - b2));
          m.assign(m1);
          s.assign(s1);
          v.assign(v.sub(m1.mul(stepSize).div(s1.sqrt().add(eps))));
        });
      } else {
        const eps = this.config.epsilon ?? 1e-7;
        const acc = this.slot(`${name}/accumulator`, v, this.config.initialAccumulator ?? 0.1);
        if (nativeAdagradUpdate(v, acc, g, lr, eps)) {
          g.dispose();
          continue;
        }
        tf.tidy(() => {
          const a1 = acc.add(g.square());
          acc.assign(a1);
          v.assign(v.sub(g.mul(lr).div(a1.sqrt().add(eps))));
        });
      }
      g.dispose();
    }
  }

  /** Slot tensors by name (for checkpoints). */
  state(): Map<string, TF.Tensor> {
    return new Map(this.slots);
  }

  /** Restores slots saved by `state()`; `iterations` is restored by the caller. */
  loadState(state: Map<string, TF.Tensor>): void {
    const tf = loadTf();
    for (const [name, value] of state) {
      const existing = this.slots.get(name);
      if (existing) existing.assign(value);
      else this.slots.set(name, tf.variable(value.clone(), false));
    }
  }

  dispose(): void {
    for (const s of this.slots.values()) s.dispose();
    this.slots.clear();
  }

  private slot(name: string, like: TF.Variable, init: number): TF.Variable {
    let s = this.slots.get(name);
    if (!s) {
      const tf = loadTf();
      const initial = tf.fill(like.shape, init);
      s = tf.variable(initial, false);
      initial.dispose();
      this.slots.set(name, s);
    }
    return s;
  }
}
