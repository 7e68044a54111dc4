/**
 * CC12M Table 3: pre-train a captioner on none / CC3M / CC12M / CC3M+CC12M, fine-tune on COCO,
 * evaluate on nocaps val (in / near / out / overall CIDEr), plus zero-shot rows (pre-trained only).
 *
 * On the embedded world (default) the pools are the world's web split run through the paper's two
 * pipelines, COCO and nocaps are its captioned splits; `data` points the same recipe at real files.
 * Every step is a run in `runs/<id>/` (reused when its config and inputs are unchanged).
 */
import * as fs from 'fs';
import * as path from 'path';

import { DecodeSettings, DECODE_PRESETS, describeDecoder } from '../decode';
import { filterPool } from '../filters/run';
import { worldCatalog } from '../world/catalog';
import { LogLine, PREDICTIONS_DIR, SCORES_DIR, readPredictions, readScores } from '../runs/layout';
import { readEvalImages, readExamples } from '../train/data';
import type { ModelSpec } from '../train/models';
import { train, TrainConfig } from '../train/trainer';
import type { VisualProvider } from '../train/visual';
import { buildWorld } from '../world/build';
import type { WorldPresetName } from '../world/splits';
import { captionSplit } from './evaluate';
import { runVariantsParallel } from './parallel';
import { FeatureSpec, visualFromSpec } from './visual';

export const TABLE3_SOURCES = ['none', 'cc3m', 'cc12m', 'cc3m+cc12m'] as const;
export type PretrainSource = (typeof TABLE3_SOURCES)[number];

/** Real data instead of the world: the two filtered pools, COCO train/val and nocaps val annotations. */
export interface RealData {
  cc3m: string;
  cc12m: string;
  cocoTrain: string;
  cocoVal: string;
  nocapsVal: string;
  /** Folder the COCO/nocaps `file_name`s are relative to (default: beside each annotation file). */
  imageRoot?: string;
}

export interface StageSchedule {
  steps: number;
  batchSize: number;
  lr: number;
  warmup: number;
}

export interface Table3Config {
  preset: WorldPresetName;
  seed: number;
  data?: RealData;
  /** Pipelines over the world's web pool: pornography detector (slow on CPU) and worker threads. */
  filters: { nsfw: boolean; workers: number };
  model: ModelSpec;
  /** Min count of a word in the training captions to enter the vocabulary (CC3M: 4 at 3.3M pairs). */
  minCount: number;
  maxCaptionLen: number;
  pretrain: StageSchedule;
  finetune: StageSchedule;
  decode: DecodeSettings;
  rows: PretrainSource[];
  zeroShot: boolean;
  /** Validation images during training (coco val), and how often. */
  val: { limit: number; every: number };
}

/** Sizes that finish in minutes on a 2-core CPU (tiny) or in about an hour (small). */
export const TABLE3_PRESETS: Record<'tiny' | 'small', Table3Config> = {
  tiny: {
    preset: 'tiny',
    seed: 0,
    filters: { nsfw: false, workers: 2 },
    model: { kind: 'transformer', size: 'tiny' },
    minCount: 2,
    maxCaptionLen: 20,
    pretrain: { steps: 300, batchSize: 32, lr: 1e-3, warmup: 30 },
    finetune: { steps: 150, batchSize: 32, lr: 5e-4, warmup: 15 },
    decode: { ...DECODE_PRESETS.cc12m },
    rows: [...TABLE3_SOURCES],
    zeroShot: true,
    val: { limit: 100, every: 100 },
  },
  small: {
    preset: 'small',
    seed: 0,
    filters: { nsfw: false, workers: 2 },
    model: { kind: 'transformer', size: 'small' },
    minCount: 4,
    maxCaptionLen: 20,
    pretrain: { steps: 4000, batchSize: 64, lr: 5e-4, warmup: 400 },
    finetune: { steps: 2000, batchSize: 64, lr: 2.5e-4, warmup: 200 },
    decode: { ...DECODE_PRESETS.cc12m },
    rows: [...TABLE3_SOURCES],
    zeroShot: true,
    val: { limit: 250, every: 500 },
  },
};

export type Scores = Record<'in' | 'near' | 'out' | 'overall', number>;

export interface Table3Row {
  pretraining: PretrainSource;
  /** nocaps-val CIDEr (×100) after fine-tuning on COCO. */
  finetuned: Scores;
  /** nocaps-val CIDEr (×100) of the pre-trained model without fine-tuning. */
  zeroShot?: Scores;
  pretrainRun?: string;
  finetuneRun: string;
}

export interface Table3Result {
  config: Table3Config;
  rows: Table3Row[];
  /** Pairs in each pre-training pool. */
  pools: Record<string, number>;
  seconds: number;
}

export interface ExperimentOptions {
  /** Where world data and filtered pools go (default `.cckit-cache`). */
  cacheDir?: string;
  /** Runs root (default `runs`). */
  runsRoot?: string;
  /** Visual features: backbone, mode (global / grid / regions), tags. */
  features: FeatureSpec;
  /** Variants trained at once, each in its own worker thread (default 2: one per core here; 1 = in this thread). */
  concurrency?: number;
  /** Status lines ("pre-training on cc12m…"). */
  say?: (line: string) => void;
  onLog?: (run: string, line: LogLine) => void;
  progress?: (task: string, done: number, total: number) => void;
  force?: boolean;
}

export interface Inputs {
  pools: Record<'cc3m' | 'cc12m', string>;
  cocoTrain: string;
  cocoVal: string;
  nocapsVal: string;
  imageRoot?: string;
}

/** The world (built once) and the two paper pipelines over its web pool (run once). */
export async function prepareWorldInputs(config: Table3Config, options: ExperimentOptions): Promise<Inputs> {
  if (config.data) {
    const d = config.data;
    return { pools: { cc3m: d.cc3m, cc12m: d.cc12m }, cocoTrain: d.cocoTrain, cocoVal: d.cocoVal, nocapsVal: d.nocapsVal, imageRoot: d.imageRoot };
  }
  const say = options.say ?? (() => {});
  const root = path.join(options.cacheDir ?? '.cckit-cache', `world-${config.preset}-seed${config.seed}`);
  if (!fs.existsSync(path.join(root, 'world.json'))) {
    say(`building the ${config.preset} world (seed ${config.seed}) in ${root}`);
    await buildWorld({ out: root, preset: config.preset, seed: config.seed });
  }
  const pools = {} as Record<'cc3m' | 'cc12m', string>;
  // The two pipelines run side by side (one core each) rather than one after the other on both.
  const both = ['cc3m', 'cc12m'] as const;
  await Promise.all(
    both.map(async (preset) => {
      const out = path.join(root, 'filtered', `${preset}${config.filters.nsfw ? '' : '-no-nsfw'}`);
      pools[preset] = path.join(out, 'kept.tsv');
      if (fs.existsSync(path.join(out, 'summary.json'))) return;
      say(`filtering the web pool with the ${preset} pipeline${config.filters.nsfw ? '' : ' (pornography detector off)'}`);
      await filterPool({
        preset,
        input: path.join(root, 'web', preset === 'cc3m' ? 'cc3m.tsv' : 'cc12m.tsv'),
        out,
        nsfw: config.filters.nsfw,
        catalog: worldCatalog(),
        workers: Math.max(1, Math.floor(config.filters.workers / both.length)),
        progress: options.progress ? (task, done, total) => options.progress!(`${preset} ${task}`, done, total) : undefined,
      });
    }),
  );
  return {
    pools,
    cocoTrain: path.join(root, 'coco', 'captions_train.json'),
    cocoVal: path.join(root, 'coco', 'captions_val.json'),
    nocapsVal: path.join(root, 'nocaps', 'nocaps_val.json'),
  };
}

function stageConfig(config: Table3Config, name: string, schedule: StageSchedule, train: TrainConfig['data']['train'], inputs: Inputs, init?: TrainConfig['init']): TrainConfig {
  return {
    name,
    seed: config.seed,
    model: config.model,
    data: { train, maxCaptionLen: config.maxCaptionLen },
    val: { path: inputs.cocoVal, imageRoot: inputs.imageRoot, limit: config.val.limit, every: config.val.every },
    vocab: { minCount: config.minCount },
    objectives: { ic: 1 },
    optimizer: { name: 'adam', lr: schedule.lr, warmup: schedule.warmup, decay: 'linear' },
    batchSize: schedule.batchSize,
    steps: schedule.steps,
    clipNorm: 1,
    labelSmoothing: 0.1,
    checkpointEvery: Math.max(50, Math.round(schedule.steps / 4)),
    ...(init ? { init } : {}),
  };
}

const cider = (domains: Partial<Record<string, Record<string, number>>> | undefined): Scores => {
  const get = (d: string): number => 100 * (domains?.[d]?.CIDEr ?? NaN);
  return { in: get('in'), near: get('near'), out: get('out'), overall: get('overall') };
};

export interface Variant {
  /** Row label ("cc12m", "mlm@0.4", "25% cc12m"). */
  label: string;
  /** Pre-training pools (none: COCO only). */
  sources: ('cc3m' | 'cc12m')[];
  /** Pre-training objectives (default IC). */
  objectives?: TrainConfig['objectives'];
  /** Fraction of the pre-training pairs (Fig. 6). */
  subsample?: number;
}

export interface VariantResult {
  label: string;
  finetuned: Scores;
  zeroShot?: Scores;
  pretrainRun?: string;
  finetuneRun: string;
}

/** One row: pre-train (unless no sources), optionally evaluate zero-shot, fine-tune on COCO, evaluate on nocaps val. */
export async function runVariant(config: Table3Config, variant: Variant, inputs: Inputs, visual: VisualProvider, options: ExperimentOptions): Promise<VariantResult> {
  const say = options.say ?? (() => {});
  const runsRoot = options.runsRoot ?? 'runs';
  const nocaps = readEvalImages({ path: inputs.nocapsVal, imageRoot: inputs.imageRoot });
  const trainStage = async (cfg: TrainConfig) => {
    say(`training ${cfg.name} (${cfg.steps} steps)`);
    return train(cfg, {
      runsRoot,
      visual,
      force: options.force,
      onLog: options.onLog ? (line) => options.onLog!(cfg.name!, line) : undefined,
      progress: options.progress ? (done, total) => options.progress!(cfg.name!, done, total) : undefined,
      logger: say,
    });
  };
  const evaluate = async (runDir: string, label: string): Promise<Scores> => {
    // A finished run already captioned with the same decoder: read its scores instead of decoding again.
    const scoresFile = path.join(runDir, SCORES_DIR, 'nocaps-val.json');
    const predictionsFile = path.join(runDir, PREDICTIONS_DIR, 'nocaps-val.json');
    if (!options.force && fs.existsSync(scoresFile) && fs.existsSync(predictionsFile) && readPredictions(runDir, 'nocaps-val').decoder === describeDecoder(config.decode)) {
      return cider(readScores(runDir, 'nocaps-val')?.domains);
    }
    say(`captioning nocaps-val with ${label}`);
    const result = await captionSplit(runDir, nocaps, visual, {
      split: 'nocaps-val',
      decode: config.decode,
      progress: options.progress ? (done, total) => options.progress!(`caption ${label}`, done, total) : undefined,
    });
    return cider(result.domains);
  };
  const slug = variant.label.replace(/[^\w.+-]+/g, '-');
  let pretrainRun: string | undefined;
  let zeroShot: Scores | undefined;
  if (variant.sources.length > 0) {
    const cfg = stageConfig(config, `pretrain-${slug}`, config.pretrain, variant.sources.map((s) => ({ kind: 'tsv' as const, path: inputs.pools[s] })), inputs);
    if (variant.objectives) cfg.objectives = variant.objectives;
    if (variant.subsample !== undefined) cfg.data.subsample = variant.subsample;
    const pre = await trainStage(cfg);
    pretrainRun = pre.dir;
    if (config.zeroShot) zeroShot = await evaluate(pre.dir, `pretrain-${slug} (zero-shot)`);
  }
  const fine = await trainStage(
    stageConfig(config, `finetune-coco-from-${slug}`, config.finetune, [{ kind: 'coco', path: inputs.cocoTrain, imageRoot: inputs.imageRoot }], inputs, pretrainRun ? { fromRun: pretrainRun, vocab: 'keep' } : undefined),
  );
  const finetuned = await evaluate(fine.dir, `finetune-coco-from-${slug}`);
  return { label: variant.label, finetuned, ...(zeroShot ? { zeroShot } : {}), ...(pretrainRun ? { pretrainRun: path.basename(pretrainRun) } : {}), finetuneRun: fine.id };
}

/** Pairs per pool file. */
export function poolSizes(inputs: Inputs): Record<string, number> {
  const pools: Record<string, number> = {};
  for (const [name, file] of Object.entries(inputs.pools)) pools[name] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  return pools;
}

/** Every image the experiment touches: pools, COCO train/val, nocaps val. */
export async function experimentImageKeys(inputs: Inputs): Promise<string[]> {
  const keys = new Set<string>();
  for (const file of Object.values(inputs.pools)) for (const e of await readExamples({ kind: 'tsv', path: file })) keys.add(e.key);
  for (const file of [inputs.cocoTrain, inputs.cocoVal, inputs.nocapsVal]) for (const img of readEvalImages({ path: file, imageRoot: inputs.imageRoot })) keys.add(img.key);
  return [...keys];
}

/** Inputs ready, features extracted once; then the variants, `concurrency` at a time. */
export async function runVariants(config: Table3Config, variants: readonly Variant[], options: ExperimentOptions): Promise<{ inputs: Inputs; results: VariantResult[] }> {
  const inputs = await prepareWorldInputs(config, options);
  const visual = await visualFromSpec(options.features, { progress: options.progress });
  const keys = await experimentImageKeys(inputs);
  (options.say ?? (() => {}))(`visual features (${options.features.backbone}, ${options.features.mode}) for ${keys.length} images`);
  await visual.prepare(keys);
  const concurrency = options.concurrency ?? 2;
  const results =
    concurrency > 1
      ? await runVariantsParallel(config, variants, inputs, options.features, options, concurrency)
      : await variants.reduce<Promise<VariantResult[]>>(async (acc, v) => [...(await acc), await runVariant(config, v, inputs, visual, options)], Promise.resolve([]));
  return { inputs, results };
}

/** Runs the whole table (reusing finished runs). */
export async function runTable3(config: Table3Config, options: ExperimentOptions): Promise<Table3Result> {
  const started = Date.now();
  const variants: Variant[] = config.rows.map((source) => ({
    label: source,
    sources: source === 'none' ? [] : source === 'cc3m+cc12m' ? ['cc3m', 'cc12m'] : [source],
  }));
  const { inputs, results } = await runVariants(config, variants, options);
  const rows: Table3Row[] = results.map((r, i) => ({
    pretraining: config.rows[i]!,
    finetuned: r.finetuned,
    ...(r.zeroShot ? { zeroShot: r.zeroShot } : {}),
    ...(r.pretrainRun ? { pretrainRun: r.pretrainRun } : {}),
    finetuneRun: r.finetuneRun,
  }));
  return { config, rows, pools: poolSizes(inputs), seconds: (Date.now() - started) / 1000 };
}
