/**
 * The experiment recipe: every hyper-parameter of a paper experiment in one plain-data record
 * (world, filters, features, model, vocabulary, both training stages, validation, decoding), and
 * the presets `tiny` and `small`. Table 3, 11, 12 and Fig. 6 (src/experiments/cc12m/table3.ts, …) are
 * variants over one recipe; `trainConfigFor` turns a recipe's stage into the TrainConfig a run
 * hashes, so the same recipe always gives the same run ids.
 */
import { DecodeSettings, DECODE_PRESETS } from '../decode';
import type { ModelSpec } from '../train/models';
import type { ScheduleConfig } from '../train/optimizers';
import type { ObjectiveWeights, TrainConfig } from '../train/trainer';
import type { WorldPresetName } from '../world/splits';
import type { FeatureSpec } from './visual';

export const TABLE3_SOURCES = ['none', 'cc3m', 'cc12m', 'cc3m+cc12m'] as const;
export type PretrainSource = (typeof TABLE3_SOURCES)[number];

/**
 * An experiment's data: the two filtered pre-training pools, COCO train/val and nocaps val
 * annotations. Prepared from the world (`prepareWorldInputs`), or given as real files (`Recipe.data`).
 */
export interface Inputs {
  pools: Record<'cc3m' | 'cc12m', string>;
  cocoTrain: string;
  cocoVal: string;
  nocapsVal: string;
  /** nocaps test annotations: scored at the checkpoint chosen on val (absent: val only). */
  nocapsTest?: string;
  /** Folder the COCO/nocaps `file_name`s are relative to (default: beside each annotation file). */
  imageRoot?: string;
  /** The built world's folder (its other splits: Flickr-, narratives-like, the web's ground truth); absent for real data. */
  worldRoot?: string;
}

/** What the world and its filtered pools depend on: every experiment prepares its inputs from this. */
export interface WorldSpec {
  /** World preset (its folder: `<cache>/world-<preset>-seed<seed>`). */
  preset: WorldPresetName;
  seed: number;
  /** Pipelines over the world's web pool: pornography detector (slow on CPU) and worker threads. */
  filters: { nsfw: boolean; workers: number };
  /** Real data instead of the world. */
  data?: Inputs;
}

/** The world pipelines' settings every preset uses: no pornography detector (slow on CPU; the world has no such images), 2 workers. */
export const WORLD_FILTERS: WorldSpec['filters'] = Object.freeze({ nsfw: false, workers: 2 });

/** One training stage (pre-training or fine-tuning on COCO). */
export interface StageRecipe {
  steps: number;
  batchSize: number;
  lr: number;
  warmup: number;
  optimizer: 'adam';
  decay: NonNullable<ScheduleConfig['decay']>;
  /** The stage's objectives (a variant may replace the pre-training ones: Table 11, 12). */
  objectives: ObjectiveWeights;
  clipNorm: number;
  labelSmoothing: number;
  /** checkpointEvery = max(minEvery, round(steps / perRun)). */
  checkpoints: { perRun: number; minEvery: number };
  /**
   * Pick the checkpoint (one every `every` steps, all kept) with the best nocaps-val CIDEr, and
   * report nocaps test at it — the CC12M paper tuned its COCO fine-tuning length because longer
   * fine-tuning overfits COCO (§4.1, app. E.5). Absent: the last checkpoint.
   */
  select?: { every: number };
}

export interface Recipe extends WorldSpec {
  /** Visual features (the cache folder comes from the experiment options). */
  features: Omit<FeatureSpec, 'cacheDir'>;
  model: ModelSpec;
  /** Min count of a word in the training captions to enter the vocabulary (CC3M: 4 at 3.3M pairs). */
  minCount: number;
  maxCaptionLen: number;
  pretrain: StageRecipe;
  finetune: StageRecipe;
  decode: DecodeSettings;
  /** Table 3's rows (pre-training data). */
  rows: PretrainSource[];
  /** Also caption nocaps val with each pre-trained model (Table 3's zero-shot column; not part of any run's id). */
  zeroShot: boolean;
  /** Validation images during training (coco val), and how often. */
  val: { limit: number; every: number };
}

/** What every stage of the CC12M recipe shares: Adam with linear decay, IC, clipping, label smoothing, 4 checkpoints a run. */
const stage = (): Pick<StageRecipe, 'optimizer' | 'decay' | 'objectives' | 'clipNorm' | 'labelSmoothing' | 'checkpoints'> => ({
  optimizer: 'adam',
  decay: 'linear',
  objectives: { ic: 1 },
  clipNorm: 1,
  labelSmoothing: 0.1,
  checkpoints: { perRun: 4, minEvery: 50 },
});

/** Sizes that finish in minutes on a 2-core CPU (tiny) or in about an hour (small). */
export const RECIPES: Record<'tiny' | 'small', Recipe> = {
  tiny: {
    preset: 'tiny',
    seed: 0,
    filters: WORLD_FILTERS,
    features: { backbone: 'world-cnn', mode: 'regions', tags: true },
    model: { kind: 'transformer', size: 'tiny' },
    minCount: 2,
    maxCaptionLen: 20,
    pretrain: { steps: 1500, batchSize: 32, lr: 1e-3, warmup: 100, ...stage() },
    finetune: { steps: 250, batchSize: 32, lr: 5e-4, warmup: 10, ...stage(), select: { every: 25 } },
    decode: { ...DECODE_PRESETS.cc12m },
    rows: [...TABLE3_SOURCES],
    zeroShot: true,
    val: { limit: 100, every: 100 },
  },
  small: {
    preset: 'small',
    seed: 0,
    filters: WORLD_FILTERS,
    features: { backbone: 'world-cnn', mode: 'regions', tags: true },
    model: { kind: 'transformer', size: 'small' },
    minCount: 4,
    maxCaptionLen: 20,
    pretrain: { steps: 4000, batchSize: 64, lr: 5e-4, warmup: 400, ...stage() },
    finetune: { steps: 2000, batchSize: 64, lr: 2.5e-4, warmup: 200, ...stage(), select: { every: 250 } },
    decode: { ...DECODE_PRESETS.cc12m },
    rows: [...TABLE3_SOURCES],
    zeroShot: true,
    val: { limit: 250, every: 500 },
  },
};

export interface StageRun {
  /** Run name (prefix of its id). */
  name: string;
  train: TrainConfig['data']['train'];
  /** Replaces the stage's objectives. */
  objectives?: ObjectiveWeights;
  /** Fraction of the training pairs (Fig. 6). */
  subsample?: number;
  init?: TrainConfig['init'];
}

/** The TrainConfig of one stage of a recipe (key order as the runs so far wrote it in run.json). */
export function trainConfigFor(recipe: Recipe, stage: StageRecipe, run: StageRun, inputs: Inputs): TrainConfig {
  const config: TrainConfig = {
    name: run.name,
    seed: recipe.seed,
    model: recipe.model,
    data: { train: run.train, maxCaptionLen: recipe.maxCaptionLen },
    val: { path: inputs.cocoVal, imageRoot: inputs.imageRoot, limit: recipe.val.limit, every: recipe.val.every },
    vocab: { minCount: recipe.minCount },
    objectives: run.objectives ?? stage.objectives,
    optimizer: { name: stage.optimizer, lr: stage.lr, warmup: stage.warmup, decay: stage.decay },
    batchSize: stage.batchSize,
    steps: stage.steps,
    clipNorm: stage.clipNorm,
    labelSmoothing: stage.labelSmoothing,
    checkpointEvery: stage.select ? stage.select.every : Math.max(stage.checkpoints.minEvery, Math.round(stage.steps / stage.checkpoints.perRun)),
    ...(stage.select ? { keepCheckpoints: Math.ceil(stage.steps / stage.select.every) + 1 } : {}),
    ...(run.init ? { init: run.init } : {}),
  };
  if (run.subsample !== undefined) config.data.subsample = run.subsample;
  return config;
}
