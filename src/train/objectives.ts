/**
 * The training objectives (CC12M §3.3, Tables 11–12) as one registry: each objective is one object holding
 * its extra batch tensors, its loss, the count its loss is a mean over and what it disposes. `train()`
 * (src/train/trainer.ts) builds a batch, sums the weighted losses and disposes the batch through this file
 * only; a new objective is one entry of OBJECTIVES plus its weight in ObjectiveWeights.
 *
 * The registry's order is the order in which objectives draw their masks from the step's random stream and
 * add their losses, so it is part of a run's numbers: append, never reorder.
 */
import type * as TF from '@tensorflow/tfjs';

import { CaptionModel, Encoded, EncoderInput } from '../models/types';
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID } from '../text/tokens';
import { Vocabulary } from '../text/vocab';
import { loadTf } from '../tf/backend';
import { softmaxCrossEntropy } from '../tf/fused';
import type { Example } from './data';
import type { Counts } from './parallel';
import type { VisualProvider } from './visual';

export interface ObjectiveWeights {
  ic?: number;
  mlm?: { weight: number; rate: number };
  moc?: { weight: number; rate: number };
  vlm?: { weight: number };
}

/** What of a run's config the objectives read. */
export interface ObjectiveSettings {
  objectives: ObjectiveWeights;
  /** Caption tokens kept in training (CC3M: 15). */
  maxCaptionLen: number;
  labelSmoothing: number;
}

export interface BatchTensors {
  input: EncoderInput;
  tokensIn: TF.Tensor2D;
  targets: TF.Tensor2D;
  captionTokens: TF.Tensor2D;
  maskedText?: TF.Tensor2D;
  moc?: { visual: TF.Tensor3D; labels: TF.Tensor2D; weights: TF.Tensor2D };
}

/** The contrastive (VLM) part of the matching head the trainer builds (src/train/matching-head.ts). */
export interface ContrastiveHead {
  embedImages(input: EncoderInput, training: boolean): TF.Tensor2D;
  embedTexts(tokens: TF.Tensor2D, training: boolean): TF.Tensor2D;
  contrastiveLoss(img: TF.Tensor2D, txt: TF.Tensor2D): TF.Scalar;
}

/**
 * The models an objective's loss runs: the captioner (absent when the run trains the matching model
 * alone), and the matching head when vlm is on (the matching model itself when it is the run's model).
 */
export interface ObjectiveModels {
  model?: CaptionModel;
  matching?: ContrastiveHead;
}

/** The captioner a captioning objective needs. */
function captioner(models: ObjectiveModels, objective: string): CaptionModel {
  if (!models.model) throw new Error(`${objective} objective: the run's model does not caption (only vlm trains the matching model)`);
  return models.model;
}

/** What an objective adds to a batch: its captions (token ids), the image keys, the visual input built so far. */
interface BatchParts {
  captions: number[][];
  keys: string[];
  rowLength: number;
  visual: VisualProvider;
  random: () => number;
}

interface Objective {
  /** Its weight in the config, or undefined when it is off. */
  weight(objectives: ObjectiveWeights): number | undefined;
  /** Adds the objective's own tensors to the batch (masks drawn from `parts.random`). */
  prepare?(out: BatchTensors, parts: BatchParts, objectives: ObjectiveWeights): void;
  /** Its loss on the batch, or undefined when the batch or the models cannot give it. */
  loss(tf: typeof TF, models: ObjectiveModels, tensors: BatchTensors, settings: ObjectiveSettings): TF.Scalar | undefined;
  /** The count its loss is a mean over (data-parallel shards scale by their share of it). */
  count?(tensors: BatchTensors, tokens: number): number | undefined;
  dispose?(tensors: BatchTensors): void;
}

const padRow = (row: readonly number[], length: number): number[] => [...row, ...new Array<number>(length - row.length).fill(PAD_ID)];

/** The registry, in its fixed order (see the module comment). */
export const OBJECTIVES = {
  /** Image captioning: teacher-forced cross-entropy of the caption given the image. */
  ic: {
    weight: (w) => w.ic || undefined,
    loss(tf, models, t, s) {
      const model = captioner(models, 'ic');
      return captionLoss(tf, model.decode(model.encode(t.input, true), t.tokensIn, true), t.targets, s.labelSmoothing);
    },
    count: (_t, tokens) => tokens,
  },
  /**
   * Masked language modelling: the encoder also sees the caption with a fraction `rate` of its tokens
   * replaced by `<mask>`, and the decoder reconstructs the whole caption (at rate 1 this is IC).
   */
  mlm: {
    weight: (w) => w.mlm?.weight,
    prepare(out, parts, w) {
      const rate = w.mlm!.rate;
      const masked = parts.captions.map((c) => maskTokens(c, rate, parts.random));
      out.maskedText = loadTf().tensor2d(
        masked.map((c) => padRow(c, parts.rowLength)),
        undefined,
        'int32',
      );
    },
    loss(tf, models, t, s) {
      const model = captioner(models, 'mlm');
      const encoded = model.encode({ ...t.input, text: t.maskedText! }, true);
      return captionLoss(tf, model.decode(encoded, t.tokensIn, true), t.targets, s.labelSmoothing);
    },
    count: (_t, tokens) => tokens,
    dispose: (t) => t.maskedText?.dispose(),
  },
  /** Masked object classification: a fraction of region vectors is zeroed and their class predicted (needs region labels). */
  moc: {
    weight: (w) => w.moc?.weight,
    prepare(out, parts, w) {
      const tf = loadTf();
      if (!parts.visual.regionLabels) throw new Error('moc objective: the visual features have no region labels (use regions mode)');
      const labels = parts.visual.regionLabels(parts.keys);
      const [B, N, D] = out.input.visual.shape;
      const rate = w.moc!.rate;
      const maskRows: number[][] = [];
      const labelRows: number[][] = [];
      for (let b = 0; b < B; b++) {
        const m = new Array<number>(N).fill(0);
        const l = new Array<number>(N).fill(0);
        for (let n = 0; n < N; n++) {
          const label = labels[b]?.[n] ?? -1;
          if (label >= 0 && parts.random() < rate) {
            m[n] = 1;
            l[n] = label;
          }
        }
        maskRows.push(m);
        labelRows.push(l);
      }
      const weights = tf.tensor2d(maskRows);
      out.moc = {
        visual: tf.tidy(() => out.input.visual.mul(tf.sub(1, weights).reshape([B, N, 1]).tile([1, 1, D]))) as TF.Tensor3D,
        labels: tf.tensor2d(labelRows, undefined, 'int32'),
        weights,
      };
    },
    loss(tf, models, t) {
      if (!t.moc) return undefined;
      const model = captioner(models, 'moc');
      const encoded = model.encode({ ...t.input, visual: t.moc.visual }, true);
      return mocLoss(tf, model, encoded, t.moc.labels, t.moc.weights);
    },
    count: (t) => (t.moc ? loadTf().tidy(() => t.moc!.weights.sum().dataSync()[0]!) : undefined),
    dispose: (t) => {
      if (t.moc) loadTf().dispose([t.moc.visual, t.moc.labels, t.moc.weights]);
    },
  },
  /** Vision–language matching: contrastive loss between the pooled image encoder and a text encoder (src/models/matching.ts). */
  vlm: {
    weight: (w) => w.vlm?.weight,
    loss(_tf, { matching }, t) {
      if (!matching) return undefined;
      return matching.contrastiveLoss(matching.embedImages(t.input, true), matching.embedTexts(t.captionTokens, true));
    },
  },
} satisfies Record<keyof ObjectiveWeights, Objective>;

const ORDER = Object.keys(OBJECTIVES) as (keyof typeof OBJECTIVES)[];
const objective = (name: keyof typeof OBJECTIVES): Objective => OBJECTIVES[name];

/** Token id rows: BOS + caption (decoder input) and caption + EOS (targets), padded to the batch's longest. */
export function captionRows(captions: readonly number[][]): { tokensIn: number[][]; targets: number[][]; length: number } {
  const length = Math.max(1, ...captions.map((c) => c.length + 1));
  return {
    tokensIn: captions.map((c) => padRow([BOS_ID, ...c], length)),
    targets: captions.map((c) => padRow([...c, EOS_ID], length)),
    length,
  };
}

/** MLM input: each caption token replaced by `<mask>` with probability `rate` (at least one when rate > 0). */
export function maskTokens(caption: readonly number[], rate: number, random: () => number): number[] {
  const out = caption.map((t) => (random() < rate ? MASK_ID : t));
  if (rate > 0 && caption.length > 0 && !out.includes(MASK_ID)) out[Math.floor(random() * caption.length)] = MASK_ID;
  return out;
}

/** A batch's tensors: the visual input, the caption rows, and each enabled objective's own tensors. */
export function batchTensors(batch: Example[], vocab: Vocabulary, visual: VisualProvider, settings: ObjectiveSettings, random: () => number): BatchTensors {
  const tf = loadTf();
  const captions = batch.map((e) => vocab.encode(e.caption, settings.maxCaptionLen));
  const rows = captionRows(captions);
  const keys = batch.map((e) => e.key);
  const input = visual.encoderInput(keys, { wordId: (w) => vocab.idOf(w), training: true, random });
  const out: BatchTensors = {
    input,
    tokensIn: tf.tensor2d(rows.tokensIn, undefined, 'int32'),
    targets: tf.tensor2d(rows.targets, undefined, 'int32'),
    captionTokens: tf.tensor2d(
      captions.map((c) => padRow(c, rows.length)),
      undefined,
      'int32',
    ),
  };
  const parts: BatchParts = { captions, keys, rowLength: rows.length, visual, random };
  for (const name of ORDER) if (objective(name).weight(settings.objectives) !== undefined) objective(name).prepare?.(out, parts, settings.objectives);
  return out;
}

export function disposeTensors(t: BatchTensors): void {
  const tf = loadTf();
  tf.dispose([t.input.visual, t.input.visualMask, t.tokensIn, t.targets, t.captionTokens]);
  if (t.input.geometry) t.input.geometry.dispose();
  if (t.input.tags) t.input.tags.dispose();
  if (t.input.text) t.input.text.dispose();
  for (const name of ORDER) objective(name).dispose?.(t);
}

/**
 * The weighted sum of the enabled objectives on a batch; `parts` receives each objective's loss.
 * `scales` (data-parallel shards) multiplies each objective's mean by the shard's share of the
 * batch's count (objectiveCounts), so the shards' losses and gradients sum to the batch's.
 */
export function objectiveLoss(
  tf: typeof TF,
  models: ObjectiveModels,
  tensors: BatchTensors,
  settings: ObjectiveSettings,
  parts: Record<string, TF.Scalar>,
  scales?: Counts,
): TF.Scalar {
  let total: TF.Scalar = tf.scalar(0);
  for (const name of ORDER) {
    const weight = objective(name).weight(settings.objectives);
    if (weight === undefined) continue;
    const mean = objective(name).loss(tf, models, tensors, settings);
    if (!mean) continue;
    const scale = scales?.[name];
    const loss: TF.Scalar = scale !== undefined ? mean.mul(scale) : mean;
    parts[name] = tf.keep(loss.clone());
    total = total.add(loss.mul(weight));
  }
  return total;
}

/** Per objective, the count its loss is a mean over: caption tokens (ic, mlm), masked regions (moc). */
export function objectiveCounts(tensors: BatchTensors): Counts {
  const tf = loadTf();
  const tokens = tf.tidy(() => tensors.targets.notEqual(PAD_ID).sum().dataSync()[0]!);
  const out: Counts = {};
  for (const name of ORDER) {
    const n = objective(name).count?.(tensors, tokens);
    if (n !== undefined) out[name] = n;
  }
  return out;
}

/** Mean token cross-entropy over non-PAD targets, with optional label smoothing. */
export function captionLoss(tf: typeof TF, logits: TF.Tensor3D, targets: TF.Tensor2D, labelSmoothing: number): TF.Scalar {
  const [B, T, V] = logits.shape;
  const flat = targets.reshape([B * T]) as TF.Tensor1D;
  return weightedCrossEntropy(tf, logits.reshape([B * T, V]), flat, flat.notEqual(PAD_ID).toFloat(), labelSmoothing);
}

/** Cross-entropy of logits [R, C] against labels [R], averaged over the rows `weights` [R] counts (0 when none). */
function weightedCrossEntropy(tf: typeof TF, logits: TF.Tensor2D, labels: TF.Tensor1D, weights: TF.Tensor, smoothing: number): TF.Scalar {
  const nll = softmaxCrossEntropy(tf, logits, labels, smoothing);
  return tf.div(tf.sum(tf.mul(nll, weights)), tf.maximum(tf.sum(weights), 1)) as TF.Scalar;
}

function mocLoss(tf: typeof TF, model: CaptionModel, encoded: Encoded, labels: TF.Tensor2D, weights: TF.Tensor2D): TF.Scalar {
  if (!model.mocLogits) throw new Error(`moc objective: the ${model.kind} model has no MOC head`);
  const [B, N] = labels.shape;
  // Encoder memory holds visual positions first; tags/text follow and are not classified.
  const all = model.mocLogits(encoded);
  const C = all.shape[2];
  const logits = all.slice([0, 0, 0], [B, N, C]);
  return weightedCrossEntropy(tf, logits.reshape([B * N, C]), labels.reshape([B * N]), weights.reshape([B * N]), 0);
}
