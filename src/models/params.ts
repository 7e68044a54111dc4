/**
 * What every model here shares: named tf.Variables with seeded Glorot-uniform init (a variable's
 * seed is the model seed mixed with its creation order, so the same config gives the same weights),
 * dense and layer-norm parameters (the layers built on them are in ./layers), and dropout whose
 * masks follow (seed, step, call order) so resumed runs repeat them.
 */
import type * as TF from '@tensorflow/tfjs';

import { loadTf } from '../tf/backend';
import { seededDropout } from '../tf/fused';
import { mixSeed } from '../util/random';

type Tf = typeof TF;

export class Params extends Map<string, TF.Variable> {
  constructor(
    private readonly tf: Tf,
    private readonly seed: number,
    /** Model name for error messages. */
    private readonly owner: string,
  ) {
    super();
  }

  need(name: string): TF.Variable {
    const v = this.get(name);
    if (!v) throw new Error(`${this.owner}: no parameter ${name}`);
    return v;
  }

  /** Uniform init with standard deviation `scale`. */
  weight(name: string, shape: number[], scale: number): void {
    const seed = mixSeed(this.seed, this.size + 1);
    const limit = scale * Math.sqrt(3);
    this.set(name, this.tf.variable(this.tf.randomUniform(shape, -limit, limit, 'float32', seed), true));
  }

  /** `${name}_w` (Glorot-uniform) and `${name}_b` (zeros). */
  dense(name: string, inDim: number, outDim: number): void {
    this.weight(`${name}_w`, [inDim, outDim], Math.sqrt(2 / (inDim + outDim)));
    this.set(`${name}_b`, this.tf.variable(this.tf.zeros([outDim]), true));
  }

  /** `${name}_g` (ones) and `${name}_b` (zeros). */
  layerNorm(name: string, dim: number): void {
    this.set(`${name}_g`, this.tf.variable(this.tf.ones([dim]), true));
    this.set(`${name}_b`, this.tf.variable(this.tf.zeros([dim]), true));
  }

  /** x · W + b of a `dense` layer. */
  linear(name: string, x: TF.Tensor2D): TF.Tensor2D {
    return this.tf.add(this.tf.matMul(x, this.need(`${name}_w`)), this.need(`${name}_b`));
  }

  /** Rows of the embedding table `name` [V, w] for token ids [B, L], scaled by √w: [B, L, w]. */
  embed(name: string, tokens: TF.Tensor2D): TF.Tensor3D {
    const [B, L] = tokens.shape;
    const table = this.need(name);
    const width = table.shape[1]!;
    return this.tf
      .gather(table, tokens.reshape([B * L]).toInt())
      .mul(Math.sqrt(width))
      .reshape([B, L, width]);
  }

  disposeAll(): void {
    for (const v of this.values()) v.dispose();
    this.clear();
  }
}

/** Dropout with masks drawn from (model seed, stream tag, step, call order). */
export class SeededDropout {
  private stepSeed = 0;
  private calls = 0;

  constructor(
    private readonly tf: Tf,
    private readonly seed: number,
    private readonly tag: number,
    readonly rate: number,
  ) {}

  setStep(step: number): void {
    this.stepSeed = mixSeed(this.seed, this.tag, step);
    this.calls = 0;
  }

  apply<T extends TF.Tensor>(x: T, training: boolean): T {
    if (!training || this.rate <= 0) return x;
    this.calls++;
    return seededDropout(this.tf, x, this.rate, mixSeed(this.stepSeed, this.calls));
  }
}

/**
 * The bookkeeping every model class shares: its named parameters, its seeded dropout, and the three methods
 * the trainer calls on any model. Subclasses create their parameters in their constructors, in a fixed order
 * (a parameter's initial values depend on its place in that order).
 */
export abstract class ParameterizedModel {
  protected readonly tf: Tf;
  protected readonly params: Params;
  /** Masks follow (seed, step, call order); the trainer sets the step, so resumed runs repeat them. */
  protected readonly dropout: SeededDropout;

  constructor(owner: string, seed: number, dropout: { tag: number; rate: number }) {
    this.tf = loadTf();
    this.params = new Params(this.tf, seed, owner);
    this.dropout = new SeededDropout(this.tf, seed, dropout.tag, dropout.rate);
  }

  /** Trainable variables by stable name (a model's own: not those of an encoder it borrows). */
  variables(): Map<string, TF.Variable> {
    return this.params;
  }

  /** Each tensor's rows repeated `times` times in place (row b → rows b·times … b·times + times − 1): what tileEncoded gathers. Call inside tf.tidy. */
  protected repeatRows<T extends TF.Tensor>(tensors: readonly T[], times: number): T[] {
    const rows = tensors[0]!.shape[0]!;
    const index = this.tf.tensor1d(
      Array.from({ length: rows * times }, (_, i) => Math.floor(i / times)),
      'int32',
    );
    return tensors.map((t) => this.tf.gather(t, index));
  }

  /** Makes dropout masks a function of (seed, step, call order): deterministic and resumable. */
  setDropoutStep(step: number): void {
    this.dropout.setStep(step);
  }

  dispose(): void {
    this.params.disposeAll();
  }
}
