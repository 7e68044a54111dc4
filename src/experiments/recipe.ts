/**
 * The experiment recipe: every hyper-parameter of a paper experiment in one plain-data record
 * (world, filters, features, model, vocabulary, both training stages, validation, decoding), and
 * the presets `tiny` and `small`. Table 3, 11, 12 and Fig. 6 (src/experiments/cc12m/table3.ts, …) are
 * variants over one recipe; `trainConfigFor` turns a recipe's stage into the TrainConfig a run
 * hashes, so the same recipe always gives the same run ids.
 */
import { DEFAULT_URL_SPLIT_FRACTIONS, type SplitFractions } from '../data/url-split';
import { DecodeSettings, DECODE_PRESETS } from '../decode';
import type { MatchingSize } from '../models/matching';
import type { VisualMode } from '../models/visual-input';
import type { ModelSpec } from '../train/models';
import type { ScheduleConfig } from '../train/optimizers';
import type { ObjectiveWeights, TrainConfig } from '../train/trainer';
import type { WorldPresetName } from '../world/splits';
import { CC3M_CROPS, type CropAugmentation } from '../vision/crop';
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

/**
 * One training stage of any table: CC12M's pre-training and fine-tuning, the matching model's (Table 8), the
 * narratives' (Table 6) and CC3M's captioners (Tables 4–7) — its model, objectives, optimizer, schedule, steps and
 * checkpoint rule. `trainConfigFor` is the one builder of a run's TrainConfig from it.
 */
export interface StageRecipe {
  /** The model trained (absent: the recipe's captioner, `Recipe.model`). */
  model?: ModelSpec;
  steps: number;
  batchSize: number;
  optimizer: 'adam' | 'adagrad';
  lr: number;
  /** Linear warm-up steps (0: none). */
  warmup: number;
  decay: NonNullable<ScheduleConfig['decay']>;
  /** The stage's objectives (a variant may replace the pre-training ones: Table 11, 12). */
  objectives: ObjectiveWeights;
  clipNorm: number;
  /** Label smoothing of the token objectives (0: none). */
  labelSmoothing: number;
  /** Caption tokens kept in training (absent: the recipe's `maxCaptionLen`). */
  maxCaptionLen?: number;
  /** Vocabulary: words seen at least this often in the training captions (absent: the recipe's `minCount`). */
  minCount?: number;
  /** checkpointEvery = max(minEvery, round(steps / perRun)). */
  checkpoints: { perRun: number; minEvery: number };
  /**
   * Pick the checkpoint (one every `every` steps, all kept) with the best val CIDEr, and report test at it — the
   * CC12M paper tuned its COCO fine-tuning length on nocaps val because longer fine-tuning overfits COCO (§4.1,
   * app. E.5); CC3M §5.2 kept the best dev CIDEr. Absent: the last checkpoint.
   */
  select?: {
    every: number;
    /**
     * Fine-tuning learning rates searched on the same val (CC12M app. E.5: the learning rate is the one
     * hyper-parameter the paper searched): one fine-tuning run per rate, the (rate, checkpoint) with the best
     * nocaps-val CIDEr chosen. Absent: the stage's `lr` alone.
     */
    learningRates?: number[];
  };
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
  /** CC12M Table 8: the matching model's stages (features, vocabulary and rows are the recipe's). */
  retrieval: RetrievalSection;
  /** CC12M Tables 6 and 10: what the narratives rows change; the rest is the recipe's. */
  narratives: NarrativesSection;
  /** CC3M Tables 4–7: the 8-run captioner grid, trained as CC3M §5.2 describes (the backbone is the recipe's). */
  captioners: CaptionerSection;
  /** The ablation grids of CC12M Table 11, Table 12 and Fig. 6 (every other setting of their rows is the recipe's). */
  ablations: AblationSection;
}

/**
 * What a stage changes from one of the recipe's two captioner stages (`pretrain` or `finetune`); whatever it does
 * not name is that stage's, so one override of `finetune.lr` reaches every stage that fine-tunes.
 */
export type StageOverride = Partial<Omit<StageRecipe, 'select'>>;

/** The stage `override` describes: the recipe's `base` stage with the override's values, without checkpoint selection. */
export function stageFrom(recipe: Pick<Recipe, 'pretrain' | 'finetune'>, base: 'pretrain' | 'finetune', override: StageOverride): StageRecipe {
  const { select: _select, ...stage } = recipe[base];
  return { ...stage, ...override };
}

/** A stage's checkpoint interval: every `select.every` steps when it selects, else max(minEvery, round(steps / perRun)). */
export function checkpointEveryOf(stage: StageRecipe): number {
  return stage.select ? stage.select.every : Math.max(stage.checkpoints.minEvery, Math.round(stage.steps / stage.checkpoints.perRun));
}

/** The grids of the CC12M ablations: plain data, so a notebook's `overrides` or `cckit table --set` reach them. */
export interface AblationSection {
  /** Table 11: the MLM masking rates (the paper tried several and found the highest best, app. D.2). */
  maskingRates: number[];
  /** Table 12: the added objectives' settings (the paper states no MOC masking rate; 0.2 is cckit's choice). */
  objectives: { moc: { weight: number; rate: number }; vlm: { weight: number } };
  /** Fig. 6: the fractions of the CC12M pool's pairs pre-trained on (100% is always a row). */
  cc12mFractions: number[];
}

/** Real data for Table 8 instead of the world: the two filtered pools and a Flickr-style retrieval set (COCO-format captions files). */
export interface RetrievalData {
  pools: Record<'cc3m' | 'cc12m', string>;
  /** Fine-tuning images and their captions. */
  retrievalTrain: string;
  /** Test images and their captions (Flickr30k: 1,000 images × 5 captions). */
  retrievalTest: string;
  /** Folder the files' `file_name`s are relative to (default: beside each file). */
  imageRoot?: string;
}

export interface RetrievalSection {
  model: { size: MatchingSize };
  /**
   * The matching model's two stages, as changes to the captioner's (`stageFrom`): Adam, linear warm-up then linear
   * decay, clipping; the batch is distinct images (the contrastive softmax runs over them).
   */
  pretrain: StageOverride;
  finetune: StageOverride;
  /** World only: the share of the Flickr-like split's images held out as the test set (the rest is fine-tuning data). */
  testFraction: number;
  data?: RetrievalData;
}

/** Table 6's rows: how the narratives captioner starts (Table 3's pre-training runs). */
export const TABLE6_INITS = ['none', 'cc3m', 'cc12m'] as const;
export type Table6Init = (typeof TABLE6_INITS)[number];

export interface NarrativesSection {
  /** Pre-training steps of Table 10's narratives row: the presets give it Table 3's (similar resources, CC12M app. E.5). */
  pretrainSteps: number;
  /** Table 6: the stage that trains on the narratives' train part, as changes to the recipe's fine-tuning stage. */
  captioning: StageOverride;
  /** Every `testEvery`-th narrative image (by position in the file) is held out as Table 6's test part. */
  testEvery: number;
  /** Table 6's rows. */
  inits: Table6Init[];
  /** Real narratives instead of the world's: Localized Narratives in COCO caption format, one caption per image. */
  data?: string;
}

/** CC3M Tables 4–7's run kinds and feature settings. */
export const CAPTIONER_MODELS = ['RNN', 'T2T'] as const;
export type CaptionerModel = (typeof CAPTIONER_MODELS)[number];
export const CAPTIONER_FEATURES = ['1x1', '8x8'] as const;
export type CaptionerFeatures = (typeof CAPTIONER_FEATURES)[number];

/** Real files for CC3M Tables 4–7: COCO train/test, a Conceptual TSV split in train and test, a Flickr-format test. */
export interface CaptionerRealData {
  cocoTrain: string;
  cocoTest: string;
  conceptualTrain: string;
  conceptualTest: string;
  flickrTest: string;
  /** Dev sets for the checkpoint choice (COCO-format captions; Conceptual: TSV, caption first); without one, a run's last checkpoint is used. */
  cocoDev?: string;
  conceptualDev?: string;
  imageRoot?: string;
}

export interface CaptionerSection {
  /** Model per row kind; both tie the output projection to the word embeddings (CC3M §4.1). */
  models: Record<CaptionerModel, ModelSpec>;
  /** Feature mode per setting: 1×1 = the global vector, 8×8 = the grid. */
  features: Record<CaptionerFeatures, VisualMode>;
  /**
   * Every run's stage (its model is the row kind's): CC3M §5.2's Adagrad at 0.01, batch 25, captions cut to 15 tokens,
   * vocabulary words seen ≥ 4 times, clipping at 5. `steps` is the cap (the recipe's departure from the paper's scale):
   * CC3M trained until dev CIDEr stopped improving; cckit trains every run to the cap and captions the tests with the
   * checkpoint of the best dev CIDEr (`select.every`: every so many steps a run captions the dev part of its own
   * training data, greedy, a cheaper stand-in for the paper's unstated dev decoding, and logs CIDEr), the same choice
   * where dev CIDEr does not improve again before the cap. Without a dev set, the last checkpoint.
   */
  stage: StageRecipe;
  /**
   * Where the dev sets come from. Conceptual-like dev: the pool's validation part (`splits`). COCO-like dev:
   * `cocoDevFraction` of the COCO-like test split's images by URL hash (the world has no separate COCO dev split;
   * those images leave the test).
   */
  dev: { cocoDevFraction: number };
  /** Flickr-like test images (the split's first ones): CC3M Table 7 used Flickr's 1K test; tiny keeps 200 for time. */
  flickrImages: number;
  /** Random crops of each training image (CC3M §5.2: 50–100% of the image, with distortion), from its stored features. */
  crop: CropAugmentation;
  decode: DecodeSettings;
  /** How the CC3M pool is split by URL hash (notebook 02's split); the test part is the Conceptual-like test. */
  splits: SplitFractions;
  /** Runs trained at once, each in its own worker thread (2: one per core here). */
  concurrency: number;
  /**
   * A run is testable on a test split when it writes at least this share of distinct captions over the split's images
   * (the references are all distinct); a claim compares testable pairs only. cckit's choice, not the paper's: below a
   * quarter, a captioner repeats each caption for four or more images and no longer describes them.
   */
  minDistinctShare: number;
  data?: CaptionerRealData;
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

/** What the matching model's stages change beyond steps (Table 8): the contrastive VLM objective alone, which smooths no labels. */
const vlm = (): StageOverride => ({ objectives: { vlm: { weight: 1 } }, labelSmoothing: 0 });

/** The CC12M ablations' grids, the same at every size. */
const ablations = (): AblationSection => ({
  maskingRates: [0.2, 0.4, 0.8],
  objectives: { moc: { weight: 1, rate: 0.2 }, vlm: { weight: 1 } },
  cc12mFractions: [0.25, 0.5],
});

/** The captioner grid of one size: CC3M §5.2's settings, the size's models, cap, dev interval and Flickr-like test. */
const captionerGrid = (size: 'tiny' | 'small', own: { steps: number; devEvery: number; flickrImages: number }): CaptionerSection => ({
  models: captionerModels(size),
  features: { '1x1': 'global', '8x8': 'grid' },
  stage: cc3mStage(own.steps, own.devEvery),
  dev: { cocoDevFraction: 0.5 },
  flickrImages: own.flickrImages,
  ...cc3mSettings(),
});

/** CC3M §5.2's training stage at a cap of `steps`, dev CIDEr every `devEvery` steps; no warm-up, decay or label smoothing. */
const cc3mStage = (steps: number, devEvery: number): StageRecipe => ({
  steps,
  batchSize: 25,
  optimizer: 'adagrad',
  lr: 0.01,
  warmup: 0,
  decay: 'none',
  objectives: { ic: 1 },
  clipNorm: 5,
  labelSmoothing: 0,
  maxCaptionLen: 15,
  minCount: 4,
  // without a dev set: one checkpoint, the last
  checkpoints: { perRun: 1, minEvery: 1 },
  select: { every: devEvery },
});

/** CC3M's settings besides the stage, shared by every size of the captioner grid. */
const cc3mSettings = (): Omit<CaptionerSection, 'models' | 'features' | 'stage' | 'dev' | 'flickrImages'> => ({
  crop: { ...CC3M_CROPS },
  // CC3M's beam of 4; captions decoded up to the 15 tokens the models were trained on
  decode: { ...DECODE_PRESETS.cc3m, maxLen: 15 },
  splits: { ...DEFAULT_URL_SPLIT_FRACTIONS },
  concurrency: 2,
  minDistinctShare: 0.25,
});

const captionerModels = (size: 'tiny' | 'small'): CaptionerSection['models'] => ({
  RNN: { kind: 'lstm', size, overrides: { tieEmbeddings: true } },
  T2T: { kind: 'transformer', size, overrides: { tieEmbeddings: true } },
});

/**
 * Sizes that finish in minutes on a 2-core CPU (tiny) or in hours (small: Table 3 about 1½ h, notebook 10: 4,487 s after 13 min of an earlier start).
 * - `retrieval` (Table 8), tiny: one encoder layer per side of width 128 (MATCHING_SIZES.tiny), 400 pre-training
 *   and 150 fine-tuning steps; one seed's four rows, with their zero-shot and fine-tuned retrieval over the 1,000
 *   test images, take about four minutes on 2 cores (notebook 08: 678 s for three seeds); small: the small matching
 *   model, ten times the steps.
 * - `narratives` (Tables 6, 10), tiny: the narratives row pre-trains for Table 3's 1,500 steps (similar resources
 *   for every row, CC12M app. E.5), Table 6 trains 150 steps on 160 narratives and captions 40.
 * - `captioners` (CC3M Tables 4–7), tiny: 400 steps of batch 25 a run (10,000 captions: about 27 passes over the
 *   COCO-like split's 375, about 14 over the Conceptual-like train part's ~700), tiny widths; small: 3,000 steps.
 */
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
    // the matching model's stages: the captioner's batch, rate and clipping, fewer steps
    retrieval: { model: { size: 'tiny' }, pretrain: { steps: 400, warmup: 40, ...vlm() }, finetune: { steps: 150, warmup: 15, ...vlm() }, testFraction: 0.5 },
    narratives: { pretrainSteps: 1500, captioning: { steps: 150, batchSize: 16 }, testEvery: 5, inits: [...TABLE6_INITS] },
    captioners: captionerGrid('tiny', { steps: 400, devEvery: 50, flickrImages: 200 }),
    ablations: ablations(),
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
    // as many passes over the COCO-like captions as tiny's fine-tuning (250 × 32 / 375 = 21; here 250 × 64 / 700 =
    // 23) and a checkpoint every 2.3 passes (tiny 2.1): 2,000 steps with one every 250 (183 passes, 23 a checkpoint)
    // left the val choice nothing before its first checkpoint, already past every row's best (notebook 10, generation 3)
    finetune: { steps: 250, batchSize: 64, lr: 2.5e-4, warmup: 10, ...stage(), select: { every: 25 } },
    decode: { ...DECODE_PRESETS.cc12m },
    rows: [...TABLE3_SOURCES],
    zeroShot: true,
    val: { limit: 250, every: 500 },
    retrieval: { model: { size: 'small' }, pretrain: { ...vlm() }, finetune: { steps: 1500, warmup: 150, ...vlm() }, testFraction: 0.5 },
    narratives: { pretrainSteps: 4000, captioning: { steps: 1000, batchSize: 32, warmup: 100 }, testEvery: 5, inits: [...TABLE6_INITS] },
    captioners: captionerGrid('small', { steps: 3000, devEvery: 250, flickrImages: 1000 }),
    ablations: ablations(),
  },
};

/** `steps` × `scale`, rounded, at least 1 (0 stays 0: no warm-up stays none). */
const scaledSteps = (steps: number, scale: number): number => (steps === 0 ? 0 : Math.max(1, Math.round(steps * scale)));

function scaledStage<S extends Partial<StageRecipe>>(stage: S, scale: number): S {
  const out: S = { ...stage };
  if (stage.steps !== undefined) out.steps = scaledSteps(stage.steps, scale);
  if (stage.warmup !== undefined) out.warmup = scaledSteps(stage.warmup, scale);
  if (stage.checkpoints) out.checkpoints = { ...stage.checkpoints, minEvery: scaledSteps(stage.checkpoints.minEvery, scale) };
  return out;
}

/**
 * `recipe` with every training stage's length × `scale` (steps, warm-up, the checkpoint interval of a stage that does
 * not choose one), everything else as it is: a check that a notebook or table runs end to end in a fraction of its
 * time (the test suite's `CCKIT_NOTEBOOK_STEP_SCALE`), never a result to report. Training validates as often per run
 * as before (`val.every` scaled: 100 images, cheap), but the interval at which checkpoints are captioned to choose
 * one (`select.every`) stays the recipe's, so a shorter run has fewer checkpoints to caption: that captioning (450
 * images a checkpoint), not the steps, is most of a short run's time.
 */
export function recipeAtStepScale(recipe: Recipe, scale: number): Recipe {
  if (!(scale > 0 && scale <= 1)) throw new Error(`step scale: expected a number in (0, 1], got ${scale}`);
  if (scale === 1) return recipe;
  return {
    ...recipe,
    pretrain: scaledStage(recipe.pretrain, scale),
    finetune: scaledStage(recipe.finetune, scale),
    val: { ...recipe.val, every: scaledSteps(recipe.val.every, scale) },
    retrieval: { ...recipe.retrieval, pretrain: scaledStage(recipe.retrieval.pretrain, scale), finetune: scaledStage(recipe.retrieval.finetune, scale) },
    narratives: {
      ...recipe.narratives,
      pretrainSteps: scaledSteps(recipe.narratives.pretrainSteps, scale),
      captioning: scaledStage(recipe.narratives.captioning, scale),
    },
    captioners: { ...recipe.captioners, stage: scaledStage(recipe.captioners.stage, scale) },
  };
}

/** What one run of a stage trains on: its name, data, validation and start. */
export interface StageRun {
  /** Run name (prefix of its id). */
  name: string;
  train: TrainConfig['data']['train'];
  /** Validation while training (absent: COCO val at the recipe's `val` limit and interval; null: none). */
  val?: TrainConfig['val'] | null;
  /** Replaces the stage's objectives. */
  objectives?: ObjectiveWeights;
  /** Fraction of the training pairs (Fig. 6). */
  subsample?: number;
  init?: TrainConfig['init'];
}

/**
 * The TrainConfig of one run of a stage: the only builder of a table's training runs (key order as the runs so far
 * wrote it in run.json; a warm-up or label smoothing of 0 is left out, as the trainer's default).
 */
export function trainConfigFor(recipe: Recipe, stage: StageRecipe, run: StageRun, inputs: Pick<Inputs, 'cocoVal' | 'imageRoot'>): TrainConfig {
  const val = run.val === undefined ? { path: inputs.cocoVal, imageRoot: inputs.imageRoot, limit: recipe.val.limit, every: recipe.val.every } : run.val;
  const config: TrainConfig = {
    name: run.name,
    seed: recipe.seed,
    model: stage.model ?? recipe.model,
    data: { train: run.train, maxCaptionLen: stage.maxCaptionLen ?? recipe.maxCaptionLen },
    ...(val ? { val } : {}),
    vocab: { minCount: stage.minCount ?? recipe.minCount },
    objectives: run.objectives ?? stage.objectives,
    optimizer: { name: stage.optimizer, lr: stage.lr, ...(stage.warmup > 0 ? { warmup: stage.warmup } : {}), decay: stage.decay },
    batchSize: stage.batchSize,
    steps: stage.steps,
    clipNorm: stage.clipNorm,
    ...(stage.labelSmoothing > 0 ? { labelSmoothing: stage.labelSmoothing } : {}),
    checkpointEvery: checkpointEveryOf(stage),
    ...(stage.select ? { keepCheckpoints: Math.ceil(stage.steps / stage.select.every) + 1 } : {}),
    ...(run.init ? { init: run.init } : {}),
  };
  if (run.subsample !== undefined) config.data.subsample = run.subsample;
  return config;
}

/**
 * `recipe` with the value at a dotted path replaced (`finetune.lr`, `ablations.maskingRates`): the path must name a
 * field the recipe has, and the value must be of that field's kind (number, string, boolean, list or section), so a
 * typo or a wrong type is an error naming the path rather than a setting silently ignored.
 */
export function withSetting(recipe: Recipe, dotted: string, value: unknown): Recipe {
  const keys = dotted.split('.');
  const copy = structuredClone(recipe) as unknown as Record<string, unknown>;
  let section = copy;
  for (const [i, key] of keys.entries()) {
    const here = keys.slice(0, i + 1).join('.');
    if (!Object.prototype.hasOwnProperty.call(section, key)) {
      const known = Object.keys(section).join(', ');
      throw new Error(`recipe has no setting '${here}' (${i === 0 ? 'sections' : `${keys.slice(0, i).join('.')} has`}: ${known})`);
    }
    if (i === keys.length - 1) {
      const kind = (x: unknown) => (Array.isArray(x) ? 'list' : x === null ? 'null' : typeof x === 'object' ? 'section' : typeof x);
      if (kind(section[key]) !== kind(value))
        throw new Error(`recipe setting '${here}' is a ${kind(section[key])}; got a ${kind(value)} (${JSON.stringify(value)})`);
      section[key] = value;
    } else {
      const next = section[key];
      if (typeof next !== 'object' || next === null || Array.isArray(next))
        throw new Error(`recipe setting '${here}' is a value, not a section: '${dotted}' goes past it`);
      section = next as Record<string, unknown>;
    }
  }
  return copy as unknown as Recipe;
}
