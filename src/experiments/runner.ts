/**
 * The generic experiment runner: a paper experiment is a list of variants over one recipe
 * (src/experiments/recipe.ts). `runVariants` prepares the inputs (src/experiments/inputs.ts: the world, built once,
 * and the two paper pipelines over its web pool, run once; or real files), extracts the visual features
 * once, then runs the variants `concurrency` at a time. One variant is one result row:
 * pre-train (unless it has no sources) → optionally caption nocaps val zero-shot → fine-tune on
 * COCO → caption nocaps val. Every step is a run in `runs/<id>/` (reused when its config and
 * inputs are unchanged).
 *
 * In parallel each variant runs in its own worker thread (src/experiments/workers.ts) with its own tfjs
 * instance, so a 2-core machine trains two single-threaded wasm runs at once. Features are
 * extracted in the main thread first (the feature store has one writer); workers only read it.
 * Results come back in the variants' order.
 */
import * as path from 'path';

import { rejudgeRun } from '../decode';
import { JUDGE_VERSION } from '../metrics/grounding';
import { ScoresFile, readScores } from '../runs/layout';
import { EvalImage, readEvalImages } from '../train/data';
import { train, type TrainConfig, type TrainedRun } from '../train/trainer';
import type { VisualProvider } from '../train/visual';
import type { WorkerPort } from '../util/workers';
import { captionSplitOnce, selectCheckpoint } from './evaluate';
import { experimentImageKeys, poolSizes, prepareWorldInputs } from './inputs';
import type { ExperimentOptions } from './options';
import { Inputs, Recipe, trainConfigFor } from './recipe';
import { FeatureSpec, visualFromSpec } from './visual';
import { reportToParent, runInLanes } from './workers';

export interface Variant {
  /** Row label ("cc12m", "mlm@0.4", "25% cc12m"); names its runs. */
  label: string;
  /** Pre-training pools (none: COCO only). */
  sources: ('cc3m' | 'cc12m')[];
  /** Pre-training objectives (default: the recipe's). */
  objectives?: TrainConfig['objectives'];
  /** Fraction of the pre-training pairs (Fig. 6). */
  subsample?: number;
}

export type Scores = Record<'in' | 'near' | 'out' | 'overall', number>;

/** Object recall and CHAIR figures of one split's captions, overall and per nocaps domain (src/metrics/grounding.ts). */
export type Grounding = NonNullable<ScoresFile['grounding']>;

/** One fine-tuning checkpoint the recipe considered, and its nocaps-val CIDEr. */
export interface CheckpointChoice {
  step: number;
  val: Scores;
}

/** One result row of any experiment. */
export interface ResultRow {
  label: string;
  /** nocaps-val CIDEr (×100) after fine-tuning on COCO (at the chosen checkpoint when the recipe selects one). */
  finetuned: Scores;
  /** nocaps-val CIDEr (×100) of the pre-trained model without fine-tuning. */
  zeroShot?: Scores;
  /** nocaps-test CIDEr (×100) at the same checkpoints, when the inputs have a test split: not used for any choice. */
  test?: { finetuned: Scores; zeroShot?: Scores };
  /**
   * The ground-truth judge's figures (object recall, CHAIR; world data only) of the same captions
   * as `finetuned`, `zeroShot` and `test`.
   */
  grounding?: { finetuned?: Grounding; zeroShot?: Grounding; test?: Grounding; zeroShotTest?: Grounding };
  /**
   * The fine-tuning checkpoints scored on val and the step chosen (recipe `finetune.select`); with a learning-rate
   * grid, the chosen rate's candidates and every rate's best (`rates`).
   */
  selection?: { candidates: CheckpointChoice[]; step: number; lr?: number; rates?: { lr: number; step: number; val: Scores; run: string }[] };
  /** Run ids (folders under the runs root). */
  pretrainRun?: string;
  finetuneRun: string;
}

export interface VariantsResult {
  inputs: Inputs;
  results: ResultRow[];
}

/** The features an experiment uses: the options' spec, else the recipe's under the options' cache folder. */
export function featuresOf(recipe: Recipe, options: ExperimentOptions): FeatureSpec {
  return options.features ?? { ...recipe.features, cacheDir: options.cacheDir };
}

const cider = (domains: Partial<Record<string, Record<string, number>>> | undefined): Scores => {
  const get = (d: string): number => 100 * (domains?.[d]?.CIDEr ?? NaN);
  return { in: get('in'), near: get('near'), out: get('out'), overall: get('overall') };
};

/** The label as a run-name fragment. */
const slugOf = (label: string): string => label.replace(/[^\w.+-]+/g, '-');

/** The pre-training TrainConfig of a variant (undefined without sources). */
export function pretrainConfig(recipe: Recipe, variant: Variant, inputs: Inputs): TrainConfig | undefined {
  if (variant.sources.length === 0) return undefined;
  return trainConfigFor(
    recipe,
    recipe.pretrain,
    {
      name: `pretrain-${slugOf(variant.label)}`,
      train: variant.sources.map((s) => ({ kind: 'tsv' as const, path: inputs.pools[s] })),
      objectives: variant.objectives,
      subsample: variant.subsample,
    },
    inputs,
  );
}

/** The fine-tuning learning rates a recipe tries: its grid (`finetune.select.learningRates`), else its one rate. */
export function finetuneRates(recipe: Recipe): number[] {
  return recipe.finetune.select?.learningRates ?? [recipe.finetune.lr];
}

/**
 * The fine-tuning TrainConfig of a variant, from its pre-training run's folder when it has one; `lr` (one of a
 * grid's rates) names the run apart unless it is the stage's own rate, whose run keeps its name and id.
 */
export function finetuneConfig(recipe: Recipe, variant: Variant, inputs: Inputs, pretrainRun: string | undefined, lr = recipe.finetune.lr): TrainConfig {
  const { select, ...stage } = recipe.finetune;
  // the grid itself is not part of a run's config: each rate's run is the stage at that rate
  const single = select ? { ...stage, lr, select: { every: select.every } } : { ...stage, lr };
  return trainConfigFor(
    recipe,
    single,
    {
      name: `finetune-coco-from-${slugOf(variant.label)}${lr === recipe.finetune.lr ? '' : `-lr${lr}`}`,
      train: [{ kind: 'coco', path: inputs.cocoTrain, imageRoot: inputs.imageRoot }],
      init: pretrainRun ? { fromRun: pretrainRun, vocab: 'keep' } : undefined,
    },
    inputs,
  );
}

/**
 * Trains one stage (or reuses it when finished) with an experiment's reporting: a "training …" status line, the
 * trainer's log lines to `say`, its log records and progress under the run's name.
 */
export function trainWithReports(cfg: TrainConfig, visual: VisualProvider, options: ExperimentOptions): ReturnType<typeof train> {
  options.say?.(`training ${cfg.name} (${cfg.steps} steps)`);
  return train(cfg, {
    runsRoot: options.runsRoot ?? 'runs',
    visual,
    force: options.force,
    logger: options.say,
    onLog: options.onLog ? (line) => options.onLog!(cfg.name!, line) : undefined,
    progress: options.progress ? (done, total) => options.progress!(cfg.name!, done, total) : undefined,
  });
}

/** A row's two stages, each trained or reused: its pre-training (when it has one), then the stage that starts from that run's folder. */
export async function trainAfterPretraining(
  pretrain: TrainConfig | undefined,
  then: (pretrainDir: string | undefined) => TrainConfig,
  visual: VisualProvider,
  options: ExperimentOptions,
): Promise<{ pretrainDir?: string; config: TrainConfig; run: TrainedRun }> {
  const pretrainDir = pretrain ? (await trainWithReports(pretrain, visual, options)).dir : undefined;
  const config = then(pretrainDir);
  return { ...(pretrainDir ? { pretrainDir } : {}), config, run: await trainWithReports(config, visual, options) };
}

/** One row: pre-train (unless no sources), optionally evaluate zero-shot, fine-tune on COCO, evaluate on nocaps val. */
export async function runVariant(recipe: Recipe, variant: Variant, inputs: Inputs, visual: VisualProvider, options: ExperimentOptions): Promise<ResultRow> {
  const say = options.say ?? (() => {});
  const splits: Record<string, EvalImage[]> = { 'nocaps-val': readEvalImages({ path: inputs.nocapsVal, imageRoot: inputs.imageRoot }) };
  if (inputs.nocapsTest) splits['nocaps-test'] = readEvalImages({ path: inputs.nocapsTest, imageRoot: inputs.imageRoot });
  const trainStage = (cfg: TrainConfig) => trainWithReports(cfg, visual, { ...options, say });
  /** Captions `images` with the run (or one of its checkpoints) and scores them as `split`; reuses a finished scoring. */
  const evaluate = async (runDir: string, label: string, images: readonly EvalImage[], split: string, checkpoint?: string): Promise<Evaluated> => {
    const fresh = await captionSplitOnce(runDir, images, visual, {
      split,
      decode: recipe.decode,
      checkpoint,
      // thumbnails only for what the sidebar shows: the splits as reported, not every candidate checkpoint
      thumbnails: !split.includes('.step-'),
      force: options.force,
      say,
      label,
      stored: (dir) => readScores(dir, split) !== undefined,
      progress: options.progress ? (done, total) => options.progress!(`caption ${label}`, done, total) : undefined,
    });
    if (fresh) return { cider: cider(fresh.domains), grounding: fresh.scores.grounding };
    // captioned before with the same decoder (and judged, when the images carry objects): its stored scores
    const cached = readScores(runDir, split)!;
    if (!images.every((i) => i.objects)) return { cider: cider(cached.domains) };
    if (cached.grounding && cached.groundingJudge === JUDGE_VERSION) return { cider: cider(cached.domains), grounding: cached.grounding };
    // captioned before the images carried objects, or by an older judge: judge the stored captions again
    return { cider: cider(cached.domains), grounding: rejudgeRun(runDir, split, new Map(images.map((i) => [String(i.imageId), i.objects!]))) };
  };
  let pretrainRun: string | undefined;
  let zeroShot: Evaluated | undefined;
  let zeroShotTest: Evaluated | undefined;
  const pretrain = pretrainConfig(recipe, variant, inputs);
  if (pretrain) {
    const pre = await trainStage(pretrain);
    pretrainRun = pre.dir;
    if (recipe.zeroShot) {
      zeroShot = await evaluate(pre.dir, `${pretrain.name} (zero-shot)`, splits['nocaps-val']!, 'nocaps-val');
      if (splits['nocaps-test']) zeroShotTest = await evaluate(pre.dir, `${pretrain.name} (zero-shot)`, splits['nocaps-test'], 'nocaps-test');
    }
  }
  let finetune = finetuneConfig(recipe, variant, inputs, pretrainRun);
  let fine: Awaited<ReturnType<typeof trainStage>>;
  let chosen: string | undefined;
  let selection: ResultRow['selection'];
  if (!recipe.finetune.select) fine = await trainStage(finetune);
  else {
    // each rate's run, its checkpoints scored on val; the best (rate, step) wins, ties to the earlier rate in the grid
    const rates: NonNullable<NonNullable<ResultRow['selection']>['rates']> = [];
    let best: { value: number; config: TrainConfig; run: typeof fine; dir: string; selection: NonNullable<ResultRow['selection']> } | undefined;
    const grid = recipe.finetune.select.learningRates;
    for (const lr of finetuneRates(recipe)) {
      const config = finetuneConfig(recipe, variant, inputs, pretrainRun, lr);
      const run = await trainStage(config);
      const choice = await selectCheckpoint(
        run.dir,
        'nocaps-val',
        ({ step, dir, split }) => evaluate(run.dir, `${config.name} step ${step}`, splits['nocaps-val']!, split, dir),
        (val) => val.cider.overall,
      );
      const val = choice.candidates.find((c) => c.step === choice.step)!.score.cider;
      rates.push({ lr, step: choice.step, val, run: run.id });
      if (!best || val.overall > best.value)
        best = {
          value: val.overall,
          config,
          run,
          dir: choice.dir,
          selection: { candidates: choice.candidates.map(({ step, score }) => ({ step, val: score.cider })), step: choice.step },
        };
    }
    finetune = best!.config;
    fine = best!.run;
    chosen = best!.dir;
    selection = grid ? { ...best!.selection, lr: finetune.optimizer.lr, rates } : best!.selection;
  }
  const finetuned = await evaluate(fine.dir, finetune.name!, splits['nocaps-val']!, 'nocaps-val', chosen);
  const finetunedTest = splits['nocaps-test'] ? await evaluate(fine.dir, finetune.name!, splits['nocaps-test'], 'nocaps-test', chosen) : undefined;
  const grounding = {
    ...(finetuned.grounding ? { finetuned: finetuned.grounding } : {}),
    ...(zeroShot?.grounding ? { zeroShot: zeroShot.grounding } : {}),
    ...(finetunedTest?.grounding ? { test: finetunedTest.grounding } : {}),
    ...(zeroShotTest?.grounding ? { zeroShotTest: zeroShotTest.grounding } : {}),
  };
  return {
    label: variant.label,
    finetuned: finetuned.cider,
    ...(zeroShot ? { zeroShot: zeroShot.cider } : {}),
    ...(finetunedTest ? { test: { finetuned: finetunedTest.cider, ...(zeroShotTest ? { zeroShot: zeroShotTest.cider } : {}) } } : {}),
    ...(Object.keys(grounding).length > 0 ? { grounding } : {}),
    ...(selection ? { selection } : {}),
    ...(pretrainRun ? { pretrainRun: path.basename(pretrainRun) } : {}),
    finetuneRun: fine.id,
  };
}

/** One split's CIDEr by domain and, on world data, the judge's figures. */
interface Evaluated {
  cider: Scores;
  grounding?: Grounding;
}

/** Inputs ready, features extracted once; then the variants, `concurrency` at a time. */
export async function runVariants(recipe: Recipe, variants: readonly Variant[], options: ExperimentOptions): Promise<VariantsResult> {
  const inputs = await prepareWorldInputs(recipe, options);
  const features = featuresOf(recipe, options);
  const visual = await visualFromSpec(features, { progress: options.progress });
  const keys = await experimentImageKeys(inputs);
  (options.say ?? (() => {}))(`visual features (${features.backbone}, ${features.mode}) for ${keys.length} images`);
  await visual.prepare(keys);
  const concurrency = options.concurrency ?? 2;
  const jobs = variants.map((variant): VariantJob => ({ recipe, variant, inputs, features, runsRoot: options.runsRoot, force: options.force }));
  const results = await runInLanes(
    jobs,
    concurrency,
    {
      modulePath: __filename,
      worker: runVariantJob,
      here: (job) => runVariant(recipe, job.variant, inputs, visual, { ...options, features }),
      label: (job) => job.variant.label,
    },
    options,
  );
  return { inputs, results };
}

/** An experiment's measured rows (labelled as the paper's table names them), its inputs and pool sizes. */
export interface ExperimentResult {
  config: Recipe;
  rows: ResultRow[];
  inputs: Inputs;
  /** Pairs in each pre-training pool. */
  pools: Record<string, number>;
  seconds: number;
}

/** `runVariants`, then each row relabelled by `display` (the runs keep the variants' labels). */
export async function runExperiment(
  recipe: Recipe,
  variants: readonly Variant[],
  options: ExperimentOptions,
  display: (label: string) => string = (l) => l,
): Promise<ExperimentResult> {
  const started = Date.now();
  const { inputs, results } = await runVariants(recipe, variants, options);
  return {
    config: recipe,
    rows: results.map((r) => ({ ...r, label: display(r.label) })),
    inputs,
    pools: poolSizes(inputs),
    seconds: (Date.now() - started) / 1000,
  };
}

// ------------------------------------------------------------------ variants in worker threads

interface VariantJob {
  recipe: Recipe;
  variant: Variant;
  inputs: Inputs;
  features: FeatureSpec;
  runsRoot?: string;
  force?: boolean;
}

/** Worker side: rebuild the visual provider from its spec and run one variant. */
export async function runVariantJob(job: VariantJob, port: WorkerPort): Promise<ResultRow> {
  const visual = await visualFromSpec(job.features);
  return runVariant(job.recipe, job.variant, job.inputs, visual, {
    runsRoot: job.runsRoot,
    force: job.force,
    features: job.features,
    concurrency: 1,
    ...reportToParent(port),
  });
}
