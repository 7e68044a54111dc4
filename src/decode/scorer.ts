/**
 * How the searches score next tokens for their rows: either through `CaptionModel.decode` on the
 * whole prefix (every row holds its image's encoder output; reordering rows within an image is free),
 * or through a StepDecoder — the model's incremental decoding, or the caller's (each row holds its
 * own state; rows follow their parents).
 */
import type * as TF from '@tensorflow/tfjs';
import { loadTf } from '../tf/backend';
import { CaptionModel, Encoded, hasIncremental } from '../models/types';
import { BOS_ID } from '../text/tokens';
import { canCompact, cloneEncoded, DecodeOptions, disposeEncoded, encodeOwned, nextLogProbs, prefixTensor, selectRows, tidyEncoded } from './common';
import { incrementalDecoder, StepDecoder, StepState } from './incremental';
import type { EncoderInput } from '../models/types';

export interface RowScorer {
  /** Whether rows can be selected (kept, dropped, repeated, reordered); if not, rows stay as encoded and `tile` repeats them. */
  readonly canSelect: boolean;
  /**
   * Log-probabilities [N, V] of the next token of each row (the mask added); `prefixes[r]` are the
   * tokens row r has so far (t of them, BOS not included). Call inside tf.tidy; the scorer keeps
   * what it needs for the next step.
   */
  logProbs(prefixes: readonly (readonly number[])[], t: number, mask: TF.Tensor1D): TF.Tensor2D;
  /**
   * Next step's rows, `width` per image: row i continues old row `rows[i]`. `images`: the old
   * positions of the images kept, in order, when images left or the width changed; null when the
   * images and the width are as before (the full-prefix scorer only moves rows then).
   */
  select(rows: readonly number[], images: readonly number[] | null, width: number): void;
  /** Repeats every row `times` times (only when !canSelect). */
  tile(times: number): void;
  dispose(): void;
}

export class PrefixScorer implements RowScorer {
  readonly canSelect: boolean;
  constructor(
    private readonly model: CaptionModel,
    private encoded: Encoded,
  ) {
    this.canSelect = canCompact(encoded, encoded.memory.shape[0]);
  }

  logProbs(prefixes: readonly (readonly number[])[], t: number, mask: TF.Tensor1D): TF.Tensor2D {
    return nextLogProbs(this.model, this.encoded, prefixTensor(prefixes, t), mask);
  }

  select(rows: readonly number[], images: readonly number[] | null): void {
    if (images) this.encoded = selectRows(this.encoded, rows);
  }

  tile(times: number): void {
    const tiled = tidyEncoded(() => cloneEncoded(this.model.tileEncoded(this.encoded, times)));
    disposeEncoded(this.encoded);
    this.encoded = tiled;
  }

  dispose(): void {
    disposeEncoded(this.encoded);
  }
}

export class StepScorer implements RowScorer {
  readonly canSelect = true;
  private state: StepState;
  private width = 1;

  /** Takes ownership of `encoded` (disposed here once the state is made). */
  constructor(
    private readonly stepper: StepDecoder,
    encoded: Encoded,
  ) {
    const tf = loadTf();
    this.state = tf.tidy(() => {
      const s = this.stepper.start(encoded);
      return { tensors: s.tensors.map((x) => tf.clone(x)), position: s.position, perImage: s.perImage ?? 0 } as unknown as TF.TensorContainer;
    }) as unknown as StepState;
    const rows = encoded.memory.shape[0];
    if (!this.state.tensors.every((x) => x.shape.length > 0 && x.shape[0] === rows)) {
      // width 1: per-image and per-row tensors both have one row per image
      this.dispose();
      disposeEncoded(encoded);
      throw new Error('step decoder: every state tensor must have the rows first');
    }
    disposeEncoded(encoded);
  }

  logProbs(prefixes: readonly (readonly number[])[], t: number, mask: TF.Tensor1D): TF.Tensor2D {
    const tf = loadTf();
    if (this.state.position !== t) throw new Error(`step decoder at position ${this.state.position}, asked for step ${t}`);
    const last = Int32Array.from(prefixes, (p) => (t === 0 ? BOS_ID : p[t - 1]));
    const { logits, state } = this.stepper.step(this.state, tf.tensor1d(last, 'int32'), this.width);
    const next = new Set(state.tensors);
    for (const x of this.state.tensors) if (!next.has(x)) x.dispose();
    for (const x of state.tensors) tf.keep(x);
    this.state = state;
    return tf.add(tf.logSoftmax(logits), mask) as TF.Tensor2D;
  }

  select(rows: readonly number[], images: readonly number[] | null, width: number): void {
    const tf = loadTf();
    const old = this.state;
    const split = old.perImage ?? 0;
    const identity = (index: readonly number[], n: number) => index.length === n && index.every((r, i) => r === i);
    const moveRows = !identity(rows, old.tensors[split]?.shape[0] ?? -1);
    const moveImages = images !== null && !identity(images, old.tensors[0]?.shape[0] ?? -1);
    this.width = width;
    if (!moveRows && !moveImages) return;
    const gather = (xs: TF.Tensor[], index: readonly number[]) =>
      tf.tidy(() => {
        const i = tf.tensor1d(Int32Array.from(index), 'int32');
        return xs.map((x) => tf.gather(x, i, 0));
      });
    const shared = moveImages ? gather(old.tensors.slice(0, split), images!) : old.tensors.slice(0, split);
    const own = !moveRows
      ? old.tensors.slice(split)
      : images === null && width > 1
        ? reorderWithinImages(old.tensors.slice(split), rows, width)
        : gather(old.tensors.slice(split), rows);
    if (moveImages) old.tensors.slice(0, split).forEach((x) => x.dispose());
    if (moveRows) old.tensors.slice(split).forEach((x) => x.dispose());
    this.state = { ...old, tensors: [...shared, ...own] };
  }

  tile(): void {
    throw new Error('StepScorer selects rows; tile is not needed');
  }

  dispose(): void {
    for (const x of this.state.tensors) x.dispose();
    this.state.tensors = [];
  }
}

/**
 * The step decoder the searches use for a model: the option's (false: none), else the model's own
 * incremental decoding when it declares one, else none (full-prefix decoding, by design).
 */
export function stepDecoderFor(model: CaptionModel, options: Pick<DecodeOptions, 'stepDecoder'>): StepDecoder | undefined {
  if (options.stepDecoder === false) return undefined;
  if (options.stepDecoder) return options.stepDecoder;
  return hasIncremental(model) ? incrementalDecoder(model) : undefined;
}

/** Models whose incremental decoding was checked against their `decode`. */
const checked = new WeakSet<CaptionModel>();

/**
 * Checks that `stepper` scores like `model.decode`: three tokens of row 0 fed both ways, logits
 * compared (within 1e-3 of the logits' scale: the two paths group the same arithmetic differently).
 * A disagreement is an error (the model's incremental decoding is broken), never a silent switch
 * to another decoding path.
 */
export function checkStepDecoder(model: CaptionModel, stepper: StepDecoder, encoded: Encoded): void {
  const tf = loadTf();
  const worst = tf.tidy(() => {
    const one: Encoded = { memory: encoded.memory.slice(0, 1), mask: encoded.mask.slice(0, 1) };
    if (encoded.state) one.state = encoded.state.map((x) => (x.shape[0] === encoded.memory.shape[0] ? x.slice(0, 1) : x));
    const tokens = [BOS_ID, Math.min(5, model.vocabSize - 1), Math.min(6, model.vocabSize - 1)];
    const full = model.decode(one, tf.tensor2d([tokens], [1, tokens.length], 'int32'), false);
    let state = stepper.start(one);
    for (let t = 0; t < tokens.length; t++) {
      const out = stepper.step(state, tf.tensor1d([tokens[t]], 'int32'), 1);
      state = out.state;
      const want = full.slice([0, t, 0], [1, 1, -1]).reshape([-1]);
      const scale = 1 + (tf.max(tf.abs(want)).dataSync()[0] ?? 0);
      const diff = tf.max(tf.abs(tf.sub(out.logits.reshape([-1]), want))).dataSync()[0];
      if (!(diff <= 1e-3 * scale)) return { t, diff, scale };
    }
    return undefined;
  });
  if (worst)
    throw new Error(
      `the ${model.kind} model's incremental decoding disagrees with its decode(): logits differ by ${worst.diff} (scale ${worst.scale}) at position ${worst.t}`,
    );
}

/**
 * Encodes the batch and wraps it in the scorer the options and the model call for. The model's own
 * incremental decoding is checked against its `decode` the first time (checkStepDecoder: an error
 * if they disagree).
 */
export function makeScorer(model: CaptionModel, input: EncoderInput, options: Pick<DecodeOptions, 'stepDecoder'>): RowScorer {
  const stepper = stepDecoderFor(model, options);
  const encoded = encodeOwned(model, input);
  if (stepper && !options.stepDecoder && !checked.has(model)) {
    try {
      checkStepDecoder(model, stepper, encoded);
    } catch (e) {
      disposeEncoded(encoded);
      throw e;
    }
    checked.add(model);
  }
  return stepper ? new StepScorer(stepper, encoded) : new PrefixScorer(model, encoded);
}

/**
 * Row reordering that stays within images (beam search's usual step: each hypothesis takes the
 * state of a parent of the same image), as one batched matMul with per-image one-hot [width, width]
 * matrices: exact copies, and on tfjs-wasm far cheaper than gather, whose per-element loop moves
 * ~30 M floats/s.
 */
export function reorderWithinImages(xs: readonly TF.Tensor[], rows: readonly number[], width: number): TF.Tensor[] {
  const tf = loadTf();
  const n = rows.length;
  const images = n / width;
  const onehot = new Float32Array(images * width * width);
  for (let i = 0; i < n; i++) {
    const image = Math.floor(i / width);
    const parent = rows[i] - image * width;
    if (parent < 0 || parent >= width) throw new Error(`row ${i} continues row ${rows[i]} of another image`);
    onehot[i * width + parent] = 1;
  }
  return tf.tidy(() => {
    const p = tf.tensor3d(onehot, [images, width, width]);
    return xs.map((x) => {
      if (x.dtype !== 'float32') return tf.gather(x, tf.tensor1d(Int32Array.from(rows), 'int32'), 0);
      const rest = x.size / n;
      return tf.matMul(p, x.reshape([images, width, rest])).reshape(x.shape);
    });
  });
}
