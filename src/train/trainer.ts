/**
 * The training loop, top to bottom: config → data → vocabulary → model → objectives → steps with
 * checkpoints, validation and a JSONL log, all in `runs/<id>/`.
 *
 * Objectives (CC12M §3.3, Tables 11–12: ic, mlm, moc, vlm) are one registry, src/train/objectives.ts;
 * the step minimises the weighted sum of the enabled ones.
 *
 * Models are one registry too (src/train/models.ts): the captioners, and the matching model (CC12M
 * Table 8), which trains with the vlm objective alone on batches of distinct images and is not
 * validated (it does not caption).
 *
 * Deterministic: data order, masking and dropout derive from (seed, step), and checkpoints hold the
 * optimiser slots and the data position, so a resumed run repeats the uninterrupted loss curve.
 */
import * as fs from 'fs';
import * as path from 'path';

import type * as TF from '@tensorflow/tfjs';

import { captionImages, DECODE_PRESETS, type ImageBatch } from '../decode';
import { evaluate } from '../metrics/evaluate';
import { captionerStepFlops, type TransformerConfig } from '../models/transformer';
import { CaptionModel } from '../models/types';
import { profiled } from '../util/profile';
import { listRuns, LogLine, RunInfo } from '../runs/layout';
import { Run, runId } from '../runs/run';
import { Vocabulary, VocabularyJson } from '../text/vocab';
import { readJsonFile } from '../util/json';
import { mixSeed, seededRandom } from '../util/random';
import { initBackend, loadTf } from '../tf/backend';
import { loadLatestCheckpoint, saveCheckpoint } from './checkpoint';
import { BatchStream, DataPosition, DataSource, DistinctImageStream, EvalImage, Example, fileDigest, readEvalImages, readExamples, subsample } from './data';
import { buildModel, isCaptioner, ModelSpec, type TrainableModel } from './models';
import {
  batchTensors,
  disposeTensors,
  OBJECTIVES,
  objectiveCounts,
  objectiveLoss,
  type BatchTensors,
  type ContrastiveHead,
  type ObjectiveSettings,
  type ObjectiveWeights,
} from './objectives';
import { Optimizer, OptimizerConfig, clipByGlobalNorm, learningRateAt } from './optimizers';
import { localGradients, LossFn, Replicas } from './parallel';
import type { VisualProvider } from './visual';

export type { ObjectiveWeights } from './objectives';

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
  /**
   * Fine-tune from a run (its latest checkpoint): every weight of its model (a matching model's text
   * encoder too). `keep`: its vocabulary extended by new words; `fresh`: a new one.
   */
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
  /** Matrix-product FLOPs of those steps (a transformer captioner's IC path, `captionerStepFlops`); absent for other models. */
  matmulFlops?: number;
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
  // the parent is found and checked before the run exists, so a bad one leaves no run behind
  if (config.init) config = { ...config, init: { ...config.init, fromRun: resolveParentRun(config.init.fromRun, options.runsRoot) } };
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
  } catch (err) {
    if (run.info.status === 'running') run.update({ status: 'failed' });
    throw err;
  } finally {
    run.release();
  }
}

/**
 * `init.fromRun` as a run directory: a path to one, or the name of a training run under `runsRoot`
 * (its config's `name`), which picks the newest finished run of that name.
 */
export function resolveParentRun(fromRun: string, runsRoot: string): string {
  let dir = fromRun;
  if (!fs.existsSync(path.resolve(fromRun))) {
    const named = listRuns(runsRoot).filter((r) => r.name === fromRun);
    const finished = named.find((r) => r.status === 'done');
    if (!finished) {
      const what =
        named.length > 0
          ? `no finished run named "${fromRun}" (unfinished: ${named.map((r) => `${r.id} ${r.status}`).join(', ')})`
          : `no run named "${fromRun}"`;
      throw new Error(`init.fromRun: ${fromRun} is not a run directory, and ${runsRoot} has ${what}; train that run first`);
    }
    dir = path.join(runsRoot, finished.id);
  }
  if (!fs.existsSync(path.join(path.resolve(dir), VOCAB_FILE))) throw new Error(`init.fromRun: ${dir}: no ${VOCAB_FILE} (not a cckit training run?)`);
  return dir;
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
  const model = buildModel(config.model, dims);
  // the captioner, or none: the run's model is the matching model, its own vlm head
  const captioner = isCaptioner(model) ? model : undefined;
  if (!captioner) {
    const others = (Object.keys(OBJECTIVES) as (keyof ObjectiveWeights)[]).filter((o) => o !== 'vlm' && OBJECTIVES[o].weight(config.objectives) !== undefined);
    if (!config.objectives.vlm || others.length > 0) {
      model.dispose();
      throw new Error(`run ${id}: a ${config.model.kind} model trains with the vlm objective alone (got ${Object.keys(config.objectives).join(', ')})`);
    }
  }
  const matching: MatchingHead | undefined = captioner
    ? config.objectives.vlm
      ? createMatchingHead(captioner, vocab.size, config)
      : undefined
    : (model as MatchingHead);
  // IC+VLM: a matching head beside the captioner, with variables and dropout of its own
  const separateHead = matching !== undefined && captioner !== undefined;
  const variables = new Map([...model.variables()].map(([k, v]) => [`model/${k}`, v] as [string, TF.Variable]));
  if (separateHead) for (const [k, v] of matching.variables()) if (!isShared(model, v)) variables.set(`vlm/${k}`, v);
  const optimizer = new Optimizer(config.optimizer, variables);
  // a contrastive-only model needs distinct images per batch (an image's other caption is no negative)
  const stream = captioner ? new BatchStream(examples, config.batchSize, config.seed) : new DistinctImageStream(examples, config.batchSize, config.seed);
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
  // the transformer captioner's products are counted from each batch's shapes (for the profile's rates)
  const transformerSize = config.model.kind === 'transformer' && captioner && model.config ? (model.config as TransformerConfig) : undefined;
  let matmulFlops = 0;

  if (config.val && !captioner) log(`cckit: run ${id}: a ${config.model.kind} model does not caption; no validation`);
  const validate = async (atStep: number): Promise<void> => {
    if (!config.val || valImages.length === 0 || !captioner) return;
    const scores = await profiled(
      'validate',
      `${config.name ?? id} step ${atStep}`,
      () => validationScores(captioner, vocab, options.visual, valImages, config.val!.maxLen ?? 20),
      () => ({ images: valImages.length }),
    );
    const line = run.log({ step: atStep, val: scores, split: path.basename(config.val.path, '.json') });
    options.onLog?.(line);
  };

  // The loss of a batch, or of one replica's shard of it (`scales`: see objectiveLoss).
  const settings = objectiveSettings(config);
  const lossOf: LossFn<BatchTensors> = (t, parts, scales) => objectiveLoss(tf, { model: captioner, matching }, t, settings, parts, scales);
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
      if (separateHead) matching.setDropoutStep(step);
      const stepRandom = seededRandom(mixSeed(config.seed, 0x57e9, step));
      const tensors = batchTensors(batch, vocab, options.visual, settings, stepRandom);
      if (transformerSize) matmulFlops += captionerStepFlops(transformerSize, stepShape(tensors, vocab.size, options.visual.visualDim));
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
      if (config.val && (step % config.val.every === 0 || step === totalSteps)) await validate(step);
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
  if (separateHead) matching.dispose();
  model.dispose();
  run.update({ status: 'done' });
  return { dir: run.dir, id, info: run.info, vocab, stepsRun: step - stepsAtStart, ...(transformerSize ? { matmulFlops } : {}) };
}

/** The shapes of one batch's products: B captions of T tokens, the encoder's positions (visual, tags, text). */
function stepShape(t: BatchTensors, vocab: number, visualDim: number): Parameters<typeof captionerStepFlops>[1] {
  const [batch, tokens] = t.tokensIn.shape;
  const positions = t.input.visual.shape[1] + (t.input.tags?.shape[1] ?? 0) + (t.input.text?.shape[1] ?? 0);
  return { batch, tokens, positions, vocab, visualDim, geometryDim: t.input.geometry?.shape[2] ?? 0 };
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

// ------------------------------------------------------------------ objectives

/** A worker replica's loss (src/train/parallel.ts builds the model, this the loss; no vlm). */
export function replicaLoss(model: CaptionModel, config: TrainConfig): LossFn<BatchTensors> {
  const tf = loadTf();
  return (t, parts, scales) => objectiveLoss(tf, { model }, t, objectiveSettings(config), parts, scales);
}

/** What of a run's config the objectives read. */
function objectiveSettings(config: TrainConfig): ObjectiveSettings {
  return { objectives: config.objectives, maxCaptionLen: config.data.maxCaptionLen, labelSmoothing: config.labelSmoothing ?? 0 };
}

// ------------------------------------------------------------------ validation

/** Greedy captions for the validation images (decode.captionImages, as `cckit caption` decodes) and their coco-caption scores (CIDEr, BLEU-4). */
export async function validationScores(
  model: CaptionModel,
  vocab: Vocabulary,
  visual: VisualProvider,
  images: readonly EvalImage[],
  maxLen: number,
  batchSize = 64,
): Promise<Record<string, number>> {
  function* batches(): Generator<ImageBatch> {
    for (let i = 0; i < images.length; i += batchSize) {
      const chunk = images.slice(i, i + batchSize);
      const input = visual.encoderInput(
        chunk.map((c) => c.key),
        { wordId: (w) => vocab.idOf(w), training: false },
      );
      yield { ids: chunk.map((_, j) => i + j), input };
    }
  }
  const captions: string[] = [];
  for await (const p of captionImages(model, batches(), vocab, { ...DECODE_PRESETS.greedy, maxLen })) captions.push(p.caption);
  const cases = images.map((img, i) => ({ imageId: String(img.imageId), references: img.references, candidate: captions[i]! }));
  return evaluate(cases, { metrics: ['CIDEr', 'Bleu_4'] }).corpus;
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
function loadFromParent(model: TrainableModel, saved: Map<string, TF.Tensor>, parentVocab: Vocabulary, vocab: Vocabulary, where: string): void {
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

interface MatchingHead extends ContrastiveHead {
  variables(): Map<string, TF.Variable>;
  setDropoutStep(step: number): void;
  dispose(): void;
}

function createMatchingHead(model: CaptionModel, vocabSize: number, config: TrainConfig): MatchingHead {
  const { createSharedMatching } = require('./matching-head') as typeof import('./matching-head');
  return createSharedMatching(model, vocabSize, config.seed);
}

function isShared(model: TrainableModel, v: TF.Variable): boolean {
  for (const mv of model.variables().values()) if (mv === v) return true;
  return false;
}
