/**
 * The training loop, top to bottom: config → data → vocabulary → model → objectives → steps with
 * checkpoints, validation and a JSONL log, all in `runs/<id>/`.
 *
 * Objectives (CC12M §3.3, Tables 11–12):
 * - `ic`  image captioning: teacher-forced cross-entropy of the caption given the image.
 * - `mlm` masked language modelling: the encoder also sees the caption with a fraction `rate` of its
 *   tokens replaced by `<mask>`, and the decoder reconstructs the whole caption (at rate 1 this is IC).
 * - `moc` masked object classification: a fraction of region vectors is zeroed and their object
 *   class predicted from the encoder output at those positions (needs region labels).
 * - `vlm` vision–language matching: contrastive loss between the captioner's encoder (pooled) and a
 *   text encoder (src/models/matching.ts), sharing the image encoder with IC.
 * The step minimises the weighted sum of the enabled objectives.
 *
 * Deterministic: data order, masking and dropout derive from (seed, step), and checkpoints hold the
 * optimiser slots and the data position, so a resumed run repeats the uninterrupted loss curve.
 */
import * as fs from 'fs';
import * as path from 'path';

import type * as TF from '@tensorflow/tfjs';

import { greedyDecode } from '../decode/greedy';
import { evaluate } from '../metrics/evaluate';
import { CaptionModel, Encoded, EncoderInput } from '../models/types';
import { BOS_ID, EOS_ID, MASK_ID, PAD_ID } from '../text/tokens';
import { LogLine, RunInfo } from '../runs/layout';
import { Run, runId } from '../runs/run';
import { Vocabulary, VocabularyJson } from '../text/vocab';
import { readJsonFile } from '../util/json';
import { mixSeed, seededRandom } from '../util/random';
import { initBackend, loadTf } from '../tf/backend';
import { softmaxCrossEntropy } from '../tf/fused';
import { loadLatestCheckpoint, saveCheckpoint } from './checkpoint';
import { BatchStream, DataPosition, DataSource, EvalImage, Example, fileDigest, readEvalImages, readExamples, subsample } from './data';
import { createModel, ModelSpec } from './models';
import { Optimizer, OptimizerConfig, clipByGlobalNorm, learningRateAt } from './optimizers';
import { Counts, localGradients, LossFn, Replicas } from './parallel';
import type { VisualProvider } from './visual';

export interface ObjectiveWeights {
  ic?: number;
  mlm?: { weight: number; rate: number };
  moc?: { weight: number; rate: number };
  vlm?: { weight: number };
}

export interface TrainConfig {
  /** Readable run name (prefix of the run id). */
  name?: string;
  seed: number;
  model: ModelSpec;
  data: {
    train: DataSource[];
    /** Fraction of the training examples kept (CC12M Fig. 6: 0.25 / 0.5 / 1). Nested across fractions. */
    subsample?: number;
    /** Caption tokens kept in training (CC3M: 15). */
    maxCaptionLen: number;
  };
  /** Periodic validation CIDEr on a COCO/nocaps-format captions file (greedy decoding). */
  val?: { path: string; imageRoot?: string; limit?: number; every: number; maxLen?: number };
  vocab: { minCount: number };
  objectives: ObjectiveWeights;
  optimizer: OptimizerConfig;
  batchSize: number;
  /** Length of the run: steps, or epochs over the (subsampled) training examples. */
  steps?: number;
  epochs?: number;
  clipNorm?: number;
  labelSmoothing?: number;
  checkpointEvery: number;
  /** Checkpoints kept on disk (default 2: the newest two); a recipe that picks a checkpoint afterwards keeps them all. */
  keepCheckpoints?: number;
  logEvery?: number;
  /** Fine-tune from a run (its latest checkpoint). `keep`: its vocabulary extended by new words; `fresh`: a new one. */
  init?: { fromRun: string; vocab: 'keep' | 'fresh' };
  /**
   * Data-parallel replicas (this thread + workers − 1 worker_threads) splitting each batch
   * (src/train/parallel.ts); default 1. Not with the vlm objective. With dropout > 0 the other
   * replicas' dropout masks come from their own streams, so the run differs from a 1-worker run.
   */
  workers?: number;
}

export interface TrainOptions {
  runsRoot: string;
  visual: VisualProvider;
  /** Discard an existing run with the same id and train again. */
  force?: boolean;
  /** Called with each log line (notebooks plot them as they come). */
  onLog?: (line: LogLine) => void;
  /** Progress: (done steps, total steps). */
  progress?: (done: number, total: number) => void;
  /** Lines about the run (backend, reuse, resume); default stderr. */
  logger?: (line: string) => void;
}

export interface TrainedRun {
  dir: string;
  id: string;
  info: RunInfo;
  vocab: Vocabulary;
  /** Training steps done in this call (0 when a finished run was reused). */
  stepsRun: number;
}

interface TrainState {
  step: number;
  position: DataPosition;
  iterations: number;
}

export const VOCAB_FILE = 'vocab.json';

/** Trains (or reuses / resumes) the run this config and its inputs identify. */
export async function train(config: TrainConfig, options: TrainOptions): Promise<TrainedRun> {
  const log = options.logger ?? ((line: string) => process.stderr.write(line + '\n'));
  const backend = await initBackend({ logger: () => {} });

  // Identity: config + input contents + visual features + parent run.
  const inputs: Record<string, string> = { features: options.visual.id };
  for (const [i, source] of config.data.train.entries()) inputs[`train${i}`] = fileDigest(source.path);
  if (config.val) inputs.val = fileDigest(config.val.path);
  if (config.init) inputs.parent = path.basename(path.resolve(config.init.fromRun));
  const id = runId(config.name, portableConfig(config), inputs);
  const run = Run.open(
    options.runsRoot,
    id,
    { name: config.name, config, inputs, backend: backend.name, features: options.visual.spec, parent: config.init ? inputs.parent : undefined },
    options.force,
  );
  try {
    return await trainOpened(run, config, options, log, backend);
  } finally {
    run.release();
  }
}

/** The training itself, in a run this process holds the lock of. */
async function trainOpened(
  run: Run,
  config: TrainConfig,
  options: TrainOptions,
  log: (line: string) => void,
  backend: Awaited<ReturnType<typeof initBackend>>,
): Promise<TrainedRun> {
  const tf = loadTf();
  const id = run.info.id;
  if (run.done) {
    log(`cckit: run ${id} is finished; reusing it (force to train again)`);
    return { dir: run.dir, id, info: run.info, vocab: readVocab(run.dir), stepsRun: 0 };
  }
  run.update({ status: 'running', backend: backend.name, kernels: backend.kernels });
  log(
    `cckit: run ${id} on tfjs ${backend.name} (${backend.threads} thread${backend.threads === 1 ? '' : 's'}${backend.kernels ? `; ${backend.kernels}` : ''})`,
  );

  // Data.
  let examples: Example[] = [];
  for (const source of config.data.train) examples.push(...(await readExamples(source)));
  examples = subsample(examples, config.data.subsample ?? 1, config.seed);
  const valImages: EvalImage[] = config.val ? readEvalImages(config.val) : [];

  // Vocabulary: kept across resumes (vocab.json), from the parent when fine-tuning with `keep`.
  const parentDir = config.init ? path.resolve(config.init.fromRun) : undefined;
  let vocab: Vocabulary;
  if (fs.existsSync(path.join(run.dir, VOCAB_FILE))) vocab = readVocab(run.dir);
  else {
    const fromData = Vocabulary.build(
      examples.map((e) => e.caption),
      config.vocab.minCount,
    );
    vocab = parentDir && config.init!.vocab === 'keep' ? extendVocabulary(readVocab(parentDir), fromData) : fromData;
    fs.writeFileSync(path.join(run.dir, VOCAB_FILE), JSON.stringify(vocab.toJson()));
  }

  // Features for every image the run touches.
  await options.visual.prepare([...new Set([...examples.map((e) => e.key), ...valImages.map((v) => v.key)])]);

  const dims = {
    vocabSize: vocab.size,
    visualDim: options.visual.visualDim,
    geometryDim: options.visual.geometryDim,
    mocClasses: config.objectives.moc ? options.visual.mocClasses : 0,
    seed: config.seed,
  };
  const model = createModel(config.model, dims);
  const matching = config.objectives.vlm ? createMatchingHead(model, vocab.size, config) : undefined;
  const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
  if (matching) for (const [k, v] of matching.variables()) if (!isShared(model, v)) variables.set(`vlm/${k}`, v);
  const optimizer = new Optimizer(config.optimizer, variables);
  const stream = new BatchStream(examples, config.batchSize, config.seed);
  const totalSteps = config.steps ?? Math.ceil((config.epochs ?? 1) * stream.stepsPerEpoch);
  let step = 0;

  const ckpt = loadLatestCheckpoint<TrainState>(run.dir, { warn: log });
  const resumeFrom = ckpt?.dir;
  if (ckpt && resumeFrom) {
    assignAll(variables, ckpt.weights, resumeFrom);
    optimizer.loadState(ckpt.optimizer);
    optimizer.iterations = ckpt.state.iterations;
    stream.position = ckpt.state.position;
    step = ckpt.state.step;
    disposeMap(ckpt.weights);
    disposeMap(ckpt.optimizer);
    run.truncateLog(step);
    log(`cckit: resuming ${id} from ${path.basename(resumeFrom)} (step ${step} of ${totalSteps})`);
  } else if (parentDir) {
    const parent = loadLatestCheckpoint<TrainState>(parentDir, { optimizer: false, warn: log });
    if (!parent) throw new Error(`${parentDir}: no checkpoint to fine-tune from`);
    loadFromParent(model, parent.weights, readVocab(parentDir), vocab, parent.dir);
    disposeMap(parent.weights);
    run.truncateLog(-1);
    log(`cckit: fine-tuning from ${path.basename(parentDir)}`);
  } else run.truncateLog(-1);

  const modelConfig = { spec: config.model, ...(model.config ? { resolved: model.config } : {}) };
  const logEvery = config.logEvery ?? 10;
  let windowStart = Date.now();
  let windowSamples = 0;
  const stepsAtStart = step;

  const validate = (atStep: number): void => {
    if (!config.val || valImages.length === 0) return;
    const scores = validationScores(model, vocab, options.visual, valImages, config.val.maxLen ?? 20);
    const line = run.log({ step: atStep, val: scores, split: path.basename(config.val.path, '.json') });
    options.onLog?.(line);
  };

  // The loss of a batch, or of one replica's shard of it (`scales`: see objectiveLoss).
  const lossOf: LossFn<BatchTensors> = (t, parts, scales) => objectiveLoss(tf, model, matching, t, config, parts, scales);
  const workers = config.workers ?? 1;
  if (workers > 1 && matching) throw new Error('workers > 1: the vlm objective cannot be split across replicas (its contrastive loss couples all rows)');
  const replicas =
    workers > 1
      ? await Replicas.start<BatchTensors, TrainConfig>({
          workers,
          variables,
          model: config.model,
          dims,
          lossConfig: config,
          lossModule: __filename,
          lossFactory: 'replicaLoss',
          backend: backend.name,
          loss: lossOf,
          counts: objectiveCounts,
        })
      : undefined;

  try {
    // A zero-step run is the untrained model (a baseline row): checkpoint its initial weights.
    if (totalSteps === 0 && !resumeFrom) {
      await saveCheckpoint(
        run.dir,
        0,
        { weights: variables, optimizer: optimizer.state(), state: { step, position: stream.position, iterations: 0 } satisfies TrainState },
        modelConfig,
      );
    }
    while (step < totalSteps) {
      const batch = stream.next();
      const lr = learningRateAt(config.optimizer, step, stream.stepsPerEpoch, totalSteps);
      model.setDropoutStep?.(step);
      if (matching) matching.setDropoutStep(step);
      const stepRandom = seededRandom(mixSeed(config.seed, 0x57e9, step));
      const tensors = batchTensors(batch, vocab, options.visual, config, stepRandom);
      const { losses, grads: gradMap } = replicas ? await replicas.gradients(step, tensors) : localGradients(variables, (parts) => lossOf(tensors, parts));
      if (config.clipNorm) clipByGlobalNorm(gradMap, config.clipNorm);
      optimizer.apply(gradMap, lr);
      const total = losses.total!;
      disposeTensors(tensors);
      windowSamples += batch.length;
      step++;
      if (!Number.isFinite(total)) throw new Error(`run ${id}: loss is ${total} at step ${step}; lower the learning rate or set clipNorm`);
      if (step % logEvery === 0 || step === totalSteps) {
        const seconds = (Date.now() - windowStart) / 1000;
        const line = run.log({ step, epoch: stream.position.epoch, loss: losses, lr, samplesPerSec: seconds > 0 ? windowSamples / seconds : undefined });
        options.onLog?.(line);
        windowStart = Date.now();
        windowSamples = 0;
      }
      if (config.val && (step % config.val.every === 0 || step === totalSteps)) validate(step);
      if (step % config.checkpointEvery === 0 || step === totalSteps) {
        await saveCheckpoint(
          run.dir,
          step,
          {
            weights: variables,
            optimizer: optimizer.state(),
            state: { step, position: stream.position, iterations: optimizer.iterations } satisfies TrainState,
          },
          modelConfig,
          config.keepCheckpoints,
        );
      }
      options.progress?.(step, totalSteps);
    }
  } finally {
    await replicas?.close();
  }
  optimizer.dispose();
  matching?.dispose();
  model.dispose();
  run.update({ status: 'done' });
  return { dir: run.dir, id, info: run.info, vocab, stepsRun: step - stepsAtStart };
}

/**
 * The config as hashed into the run id: file locations reduced to their names (their contents are
 * hashed in `inputs`), so the same run is found from the CLI (relative paths), a notebook (absolute
 * paths) or a moved checkout.
 */
export function portableConfig(config: TrainConfig): TrainConfig {
  return {
    ...config,
    data: {
      ...config.data,
      train: config.data.train.map((s) => ({
        ...s,
        path: path.basename(s.path),
        ...('imageRoot' in s && s.imageRoot ? { imageRoot: path.basename(s.imageRoot) } : {}),
      })),
    },
    ...(config.val
      ? { val: { ...config.val, path: path.basename(config.val.path), ...(config.val.imageRoot ? { imageRoot: path.basename(config.val.imageRoot) } : {}) } }
      : {}),
    ...(config.init ? { init: { ...config.init, fromRun: path.basename(path.resolve(config.init.fromRun)) } } : {}),
  };
}

// ------------------------------------------------------------------ batches

export interface BatchTensors {
  input: EncoderInput;
  tokensIn: TF.Tensor2D;
  targets: TF.Tensor2D;
  captionTokens: TF.Tensor2D;
  maskedText?: TF.Tensor2D;
  moc?: { visual: TF.Tensor3D; labels: TF.Tensor2D; weights: TF.Tensor2D };
}

/** Token id rows: BOS + caption (decoder input) and caption + EOS (targets), padded to the batch's longest. */
export function captionRows(captions: readonly number[][]): { tokensIn: number[][]; targets: number[][]; length: number } {
  const length = Math.max(1, ...captions.map((c) => c.length + 1));
  const pad = (row: number[]): number[] => [...row, ...new Array<number>(length - row.length).fill(PAD_ID)];
  return {
    tokensIn: captions.map((c) => pad([BOS_ID, ...c])),
    targets: captions.map((c) => pad([...c, EOS_ID])),
    length,
  };
}

/** MLM input: each caption token replaced by `<mask>` with probability `rate` (at least one when rate > 0). */
export function maskTokens(caption: readonly number[], rate: number, random: () => number): number[] {
  const out = caption.map((t) => (random() < rate ? MASK_ID : t));
  if (rate > 0 && caption.length > 0 && !out.includes(MASK_ID)) out[Math.floor(random() * caption.length)] = MASK_ID;
  return out;
}

function batchTensors(batch: Example[], vocab: Vocabulary, visual: VisualProvider, config: TrainConfig, random: () => number): BatchTensors {
  const tf = loadTf();
  const captions = batch.map((e) => vocab.encode(e.caption, config.data.maxCaptionLen));
  const rows = captionRows(captions);
  const input = visual.encoderInput(
    batch.map((e) => e.key),
    { wordId: (w) => vocab.idOf(w), training: true, random },
  );
  const out: BatchTensors = {
    input,
    tokensIn: tf.tensor2d(rows.tokensIn, undefined, 'int32'),
    targets: tf.tensor2d(rows.targets, undefined, 'int32'),
    captionTokens: tf.tensor2d(
      captions.map((c) => [...c, ...new Array<number>(rows.length - c.length).fill(PAD_ID)]),
      undefined,
      'int32',
    ),
  };
  if (config.objectives.mlm) {
    const rate = config.objectives.mlm.rate;
    const masked = captions.map((c) => maskTokens(c, rate, random));
    out.maskedText = tf.tensor2d(
      masked.map((c) => [...c, ...new Array<number>(rows.length - c.length).fill(PAD_ID)]),
      undefined,
      'int32',
    );
  }
  if (config.objectives.moc) {
    if (!visual.regionLabels) throw new Error('moc objective: the visual features have no region labels (use regions mode)');
    const labels = visual.regionLabels(batch.map((e) => e.key));
    const [B, N, D] = input.visual.shape;
    const rate = config.objectives.moc.rate;
    const maskRows: number[][] = [];
    const labelRows: number[][] = [];
    for (let b = 0; b < B; b++) {
      const m = new Array<number>(N).fill(0);
      const l = new Array<number>(N).fill(0);
      for (let n = 0; n < N; n++) {
        const label = labels[b]?.[n] ?? -1;
        if (label >= 0 && random() < rate) {
          m[n] = 1;
          l[n] = label;
        }
      }
      maskRows.push(m);
      labelRows.push(l);
    }
    const weights = tf.tensor2d(maskRows);
    out.moc = {
      visual: tf.tidy(() => input.visual.mul(tf.sub(1, weights).reshape([B, N, 1]).tile([1, 1, D]))) as TF.Tensor3D,
      labels: tf.tensor2d(labelRows, undefined, 'int32'),
      weights,
    };
  }
  return out;
}

function disposeTensors(t: BatchTensors): void {
  const tf = loadTf();
  tf.dispose([t.input.visual, t.input.visualMask, t.tokensIn, t.targets, t.captionTokens]);
  if (t.input.geometry) t.input.geometry.dispose();
  if (t.input.tags) t.input.tags.dispose();
  if (t.input.text) t.input.text.dispose();
  if (t.maskedText) t.maskedText.dispose();
  if (t.moc) tf.dispose([t.moc.visual, t.moc.labels, t.moc.weights]);
}

// ------------------------------------------------------------------ losses

/**
 * The weighted sum of the enabled objectives on a batch; `parts` receives each objective's loss.
 * `scales` (data-parallel shards) multiplies each objective's mean by the shard's share of the
 * batch's count (objectiveCounts), so the shards' losses and gradients sum to the batch's.
 */
export function objectiveLoss(
  tf: typeof TF,
  model: CaptionModel,
  matching: MatchingHead | undefined,
  tensors: BatchTensors,
  config: TrainConfig,
  parts: Record<string, TF.Scalar>,
  scales?: Counts,
): TF.Scalar {
  const weights = config.objectives;
  let total: TF.Scalar = tf.scalar(0);
  const add = (name: string, weight: number, loss: TF.Scalar): void => {
    const scale = scales?.[name];
    if (scale !== undefined) loss = loss.mul(scale);
    parts[name] = tf.keep(loss.clone());
    total = total.add(loss.mul(weight));
  };
  let encoded: Encoded | undefined;
  if (weights.ic) {
    encoded = model.encode(tensors.input, true);
    add('ic', weights.ic, captionLoss(tf, model.decode(encoded, tensors.tokensIn, true), tensors.targets, config.labelSmoothing ?? 0));
  }
  if (weights.mlm) {
    const enc = model.encode({ ...tensors.input, text: tensors.maskedText! }, true);
    add('mlm', weights.mlm.weight, captionLoss(tf, model.decode(enc, tensors.tokensIn, true), tensors.targets, config.labelSmoothing ?? 0));
  }
  if (weights.moc && tensors.moc) {
    const enc = model.encode({ ...tensors.input, visual: tensors.moc.visual }, true);
    add('moc', weights.moc.weight, mocLoss(tf, model, enc, tensors.moc.labels, tensors.moc.weights));
  }
  if (weights.vlm && matching) {
    const img = matching.embedImages(tensors.input, true);
    const txt = matching.embedTexts(tensors.captionTokens, true);
    add('vlm', weights.vlm.weight, matching.contrastiveLoss(img, txt));
  }
  return total;
}

/** Per objective, the count its loss is a mean over: caption tokens (ic, mlm), masked regions (moc). */
export function objectiveCounts(tensors: BatchTensors): Counts {
  const tf = loadTf();
  const tokens = tf.tidy(() => tensors.targets.notEqual(PAD_ID).sum().dataSync()[0]!);
  const out: Counts = { ic: tokens, mlm: tokens };
  if (tensors.moc) out.moc = tf.tidy(() => tensors.moc!.weights.sum().dataSync()[0]!);
  return out;
}

/** A worker replica's loss (src/train/parallel.ts builds the model, this the loss; no vlm). */
export function replicaLoss(model: CaptionModel, config: TrainConfig): LossFn<BatchTensors> {
  const tf = loadTf();
  return (t, parts, scales) => objectiveLoss(tf, model, undefined, t, config, parts, scales);
}

/** Mean token cross-entropy over non-PAD targets, with optional label smoothing. */
export function captionLoss(tf: typeof TF, logits: TF.Tensor3D, targets: TF.Tensor2D, labelSmoothing: number): TF.Scalar {
  const [B, T, V] = logits.shape;
  const flat = targets.reshape([B * T]) as TF.Tensor1D;
  const nll = softmaxCrossEntropy(tf, logits.reshape([B * T, V]), flat, labelSmoothing);
  const mask = flat.notEqual(PAD_ID).toFloat();
  return tf.div(tf.sum(tf.mul(nll, mask)), tf.maximum(tf.sum(mask), 1)) as TF.Scalar;
}

function mocLoss(tf: typeof TF, model: CaptionModel, encoded: Encoded, labels: TF.Tensor2D, weights: TF.Tensor2D): TF.Scalar {
  if (!model.mocLogits) throw new Error(`moc objective: the ${model.kind} model has no MOC head`);
  const [B, N] = labels.shape;
  // Encoder memory holds visual positions first; tags/text follow and are not classified.
  const all = model.mocLogits(encoded);
  const C = all.shape[2];
  const logits = all.slice([0, 0, 0], [B, N, C]);
  const nll = softmaxCrossEntropy(tf, logits.reshape([B * N, C]), labels.reshape([B * N]), 0);
  const w = weights.reshape([B * N]);
  return tf.div(tf.sum(tf.mul(nll, w)), tf.maximum(tf.sum(w), 1)) as TF.Scalar;
}

// ------------------------------------------------------------------ validation

/** Greedy captions for the validation images and their coco-caption scores (CIDEr, BLEU-4). */
export function validationScores(
  model: CaptionModel,
  vocab: Vocabulary,
  visual: VisualProvider,
  images: readonly EvalImage[],
  maxLen: number,
  batchSize = 64,
): Record<string, number> {
  const captions = captionWithGreedy(model, vocab, visual, images, maxLen, batchSize);
  const cases = images.map((img, i) => ({ imageId: String(img.imageId), references: img.references, candidate: captions[i]! }));
  return evaluate(cases, { metrics: ['CIDEr', 'Bleu_4'] }).corpus;
}

function captionWithGreedy(
  model: CaptionModel,
  vocab: Vocabulary,
  visual: VisualProvider,
  images: readonly EvalImage[],
  maxLen: number,
  batchSize: number,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < images.length; i += batchSize) {
    const chunk = images.slice(i, i + batchSize);
    const input = visual.encoderInput(
      chunk.map((c) => c.key),
      { wordId: (w) => vocab.idOf(w), training: false },
    );
    const result = greedyDecode(model, input, { maxLen });
    disposeInput(input);
    for (const ids of result.tokens) out.push(vocab.decode(ids));
  }
  return out;
}

export function disposeInput(input: EncoderInput): void {
  for (const t of [input.visual, input.visualMask, input.geometry, input.tags, input.text]) t?.dispose();
}

// ------------------------------------------------------------------ weights

function readVocab(runDir: string): Vocabulary {
  const file = path.join(runDir, VOCAB_FILE);
  if (!fs.existsSync(file)) throw new Error(`${runDir}: no ${VOCAB_FILE} (not a cckit training run?)`);
  return Vocabulary.fromJson(readJsonFile(file) as VocabularyJson);
}

export { readVocab };

/** The parent's words in their positions, then the new data's words it lacks. */
export function extendVocabulary(parent: Vocabulary, data: Vocabulary): Vocabulary {
  const extra = data.words.filter((w) => !parent.has(w));
  return new Vocabulary([...parent.words, ...extra], parent.minCount);
}

function assignAll(variables: Map<string, TF.Variable>, saved: Map<string, TF.Tensor>, where: string): void {
  for (const [name, v] of variables) {
    const t = saved.get(name);
    if (!t) throw new Error(`${where}: checkpoint has no ${name}`);
    if (t.shape.join('x') !== v.shape.join('x'))
      throw new Error(`${where}: ${name} is ${t.shape.join('×')} in the checkpoint, ${v.shape.join('×')} in the model`);
    v.assign(t);
  }
}

/**
 * Fine-tuning: copy the parent's weights; vocabulary-sized ones (word embeddings, output layer) row
 * by row for the words both vocabularies share, the rest keep their fresh initialisation.
 */
function loadFromParent(model: CaptionModel, saved: Map<string, TF.Tensor>, parentVocab: Vocabulary, vocab: Vocabulary, where: string): void {
  const tf = loadTf();
  const mapRows = vocab.words.map((w) => (parentVocab.has(w) ? parentVocab.idOf(w) : -1));
  for (const [name, v] of model.variables()) {
    const t = saved.get(`model/${name}`);
    if (!t) throw new Error(`${where}: checkpoint has no model/${name}`);
    if (t.shape.join('x') === v.shape.join('x') && parentVocab.size === vocab.size && parentVocab.words.every((w, i) => vocab.words[i] === w)) {
      v.assign(t);
      continue;
    }
    const vocabAxis = t.shape.findIndex((d, i) => d === parentVocab.size && v.shape[i] === vocab.size);
    if (vocabAxis < 0) {
      if (t.shape.join('x') !== v.shape.join('x')) throw new Error(`${where}: ${name} is ${t.shape.join('×')} in the parent, ${v.shape.join('×')} here`);
      v.assign(t);
      continue;
    }
    tf.tidy(() => {
      const have = tf.tensor1d(
        mapRows.map((r) => (r >= 0 ? 1 : 0)),
        'float32',
      );
      const gathered = tf.gather(
        t,
        tf.tensor1d(
          mapRows.map((r) => Math.max(0, r)),
          'int32',
        ),
        vocabAxis,
      );
      const shape = v.shape.map((d, i) => (i === vocabAxis ? d : 1));
      const keep = have.reshape(shape);
      v.assign(gathered.mul(keep).add(v.mul(tf.sub(1, keep))));
    });
  }
}

function disposeMap(m: Map<string, TF.Tensor>): void {
  for (const t of m.values()) t.dispose();
}

// ------------------------------------------------------------------ matching head (VLM)

interface MatchingHead {
  variables(): Map<string, TF.Variable>;
  embedImages(input: EncoderInput, training: boolean): TF.Tensor2D;
  embedTexts(tokens: TF.Tensor2D, training: boolean): TF.Tensor2D;
  contrastiveLoss(img: TF.Tensor2D, txt: TF.Tensor2D): TF.Scalar;
  setDropoutStep(step: number): void;
  dispose(): void;
}

function createMatchingHead(model: CaptionModel, vocabSize: number, config: TrainConfig): MatchingHead {
  const { createSharedMatching } = require('./matching-head') as typeof import('./matching-head');
  return createSharedMatching(model, vocabSize, config.seed);
}

function isShared(model: CaptionModel, v: TF.Variable): boolean {
  for (const mv of model.variables().values()) if (mv === v) return true;
  return false;
}
