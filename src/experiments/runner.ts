/**
 * The generic experiment runner: a paper experiment is a list of variants over one recipe
 * (src/experiments/recipe.ts). `runVariants` prepares the inputs (the world, built once, and the
 * two paper pipelines over its web pool, run once; or real files), extracts the visual features
 * once, then runs the variants `concurrency` at a time. One variant is one result row:
 * pre-train (unless it has no sources) → optionally caption nocaps val zero-shot → fine-tune on
 * COCO → caption nocaps val. Every step is a run in `runs/<id>/` (reused when its config and
 * inputs are unchanged).
 *
 * In parallel each variant runs in its own worker thread (src/util/workers.ts) with its own tfjs
 * instance, so a 2-core machine trains two single-threaded wasm runs at once. Features are
 * extracted in the main thread first (the feature store has one writer); workers only read it.
 * Results come back in the variants' order.
 */
import * as fs from 'fs';
import * as path from 'path';

import { rejudgeRun } from '../decode';
import { JUDGE_VERSION } from '../metrics/grounding';
import { filterPool } from '../filters/run';
import { overlap } from '../filters/overlap';
import { LogLine, ScoresFile, readScores } from '../runs/layout';
import { EvalImage, readEvalImages, readExamples } from '../train/data';
import { train, TrainConfig } from '../train/trainer';
import type { VisualProvider } from '../train/visual';
import { startWorker, type WorkerMain, type WorkerPort } from '../util/workers';
import { buildWorld, type BuildManifest } from '../data/build-world';
import { WORLD_PRESETS } from '../world/splits';
import { worldCatalog } from '../world/catalog';
import { WORLD_GENERATION } from '../world/world';
import { readJsonFile } from '../util/json';
import { writeJsonAtomic } from '../util/atomic';
import { captionSplitOnce, selectCheckpoint } from './evaluate';
import { runJobs } from './jobs';
import { Inputs, Recipe, trainConfigFor, type WorldSpec } from './recipe';
import { FeatureSpec, visualFromSpec } from './visual';

export interface ExperimentOptions {
  /** Where world data and filtered pools go (default `.cckit-cache`). */
  cacheDir?: string;
  /** Runs root (default `runs`). */
  runsRoot?: string;
  /** Visual features (default: the recipe's, cached under `cacheDir`). */
  features?: FeatureSpec;
  /** Variants trained at once, each in its own worker thread (default 2: one per core here; 1 = in this thread). */
  concurrency?: number;
  /** Status lines ("pre-training on cc12m…"). */
  say?: (line: string) => void;
  onLog?: (run: string, line: LogLine) => void;
  progress?: (task: string, done: number, total: number) => void;
  force?: boolean;
}

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

/** The folder a world is built in (`<cacheDir>/world-<preset>-seed<seed>`). */
export function worldRoot(spec: Pick<WorldSpec, 'preset' | 'seed'>, cacheDir = '.cckit-cache'): string {
  return path.join(cacheDir, `world-${spec.preset}-seed${spec.seed}`);
}

/** The world (built once) and the two paper pipelines over its web pool (run once); or the spec's real data. */
export async function prepareWorldInputs(recipe: WorldSpec, options: ExperimentOptions): Promise<Inputs> {
  if (recipe.data) {
    const d = recipe.data;
    return {
      pools: { cc3m: d.pools.cc3m, cc12m: d.pools.cc12m },
      cocoTrain: d.cocoTrain,
      cocoVal: d.cocoVal,
      nocapsVal: d.nocapsVal,
      ...(d.nocapsTest ? { nocapsTest: d.nocapsTest } : {}),
      imageRoot: d.imageRoot,
    };
  }
  const say = options.say ?? (() => {});
  const root = worldRoot(recipe, options.cacheDir);
  const manifest = path.join(root, 'world.json');
  if (fs.existsSync(manifest)) {
    const stale = staleWorld(readJsonFile(manifest) as Partial<BuildManifest>, recipe.preset);
    if (stale) {
      // every split is drawn from its own seed: unchanged splits (and so the pools and the runs over them) come out the same
      say(`${root} ${stale}: rebuilding it and its filtered pools`);
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  if (!fs.existsSync(manifest)) {
    say(`building the ${recipe.preset} world (seed ${recipe.seed}) in ${root}`);
    await buildWorld({ out: root, preset: recipe.preset, seed: recipe.seed });
  }
  const pools = {} as Record<'cc3m' | 'cc12m', string>;
  // The two pipelines run side by side (one core each) rather than one after the other on both.
  const both = ['cc3m', 'cc12m'] as const;
  await Promise.all(
    both.map(async (preset) => {
      const out = path.join(root, 'filtered', `${preset}${recipe.filters.nsfw ? '' : '-no-nsfw'}`);
      pools[preset] = path.join(out, 'kept.tsv');
      if (fs.existsSync(path.join(out, 'summary.json'))) return;
      say(`filtering the web pool with the ${preset} pipeline${recipe.filters.nsfw ? '' : ' (pornography detector off)'}`);
      await filterPool({
        preset,
        input: path.join(root, 'web', preset === 'cc3m' ? 'cc3m.tsv' : 'cc12m.tsv'),
        out,
        nsfw: recipe.filters.nsfw,
        catalog: worldCatalog(),
        // the world's words are its own: counted over the pool, threshold scaled (docs/filters.md)
        vocabulary: 'input',
        workers: Math.max(1, Math.floor(recipe.filters.workers / both.length)),
        progress: options.progress ? (task, done, total) => options.progress!(`${preset} ${task}`, done, total) : undefined,
      });
    }),
  );
  // CC12M was built disjoint from CC3M (CC12M §3; its README: ~63K of 12.4M URLs shared): the CC12M-like pool is
  // the relaxed pipeline's pairs minus the strict pipeline's images, and "both" is their union.
  pools.cc12m = await withoutStrictImages(pools.cc3m, pools.cc12m, say);
  return {
    pools,
    cocoTrain: path.join(root, 'coco', 'captions_train.json'),
    cocoVal: path.join(root, 'coco', 'captions_val.json'),
    nocapsVal: path.join(root, 'nocaps', 'nocaps_val.json'),
    nocapsTest: path.join(root, 'nocaps', 'nocaps_test.json'),
    worldRoot: root,
  };
}

/**
 * Why a cached world must be rebuilt for `preset` (an older generator; a preset's world whose sizes are no longer the
 * preset's), or undefined. A world built with custom sizes (`preset: 'custom'`, e.g. a test's) is used as it is.
 */
export function staleWorld(built: Partial<BuildManifest>, preset: WorldSpec['preset']): string | undefined {
  if (built.generation !== WORLD_GENERATION) return 'was written by an older world generator';
  if (built.preset === 'custom') return undefined;
  const want = WORLD_PRESETS[preset];
  const differ = (Object.keys(want) as (keyof typeof want)[]).filter((split) => built.sizes?.[split] !== want[split]);
  return differ.length > 0 ? `has other split sizes than the ${preset} preset's (${differ.join(', ')})` : undefined;
}

/** The file name of the relaxed pool without the strict pool's images, beside the relaxed pipeline's own output. */
export const DISJOINT_POOL_FILE = 'kept-minus-cc3m.tsv';

/**
 * Writes the relaxed pool's pairs whose image the strict pool does not have (once; `overlap.json` beside it
 * records how many were removed, so no row leaves silently) and returns that file.
 */
async function withoutStrictImages(strict: string, relaxed: string, say: (line: string) => void): Promise<string> {
  const out = path.join(path.dirname(relaxed), DISJOINT_POOL_FILE);
  const report = path.join(path.dirname(relaxed), 'overlap.json');
  if (fs.existsSync(report) && fs.existsSync(out)) return out;
  const shared = await overlap(strict, relaxed, out);
  writeJsonAtomic(report, { ...shared, removed: shared.b.rows - (shared.written ?? 0), why: 'CC12M is disjoint from CC3M (CC12M §3)' });
  say(`cc12m pool: ${shared.written} pairs after removing the ${shared.shared} images the cc3m pool has`);
  return out;
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
  for (const file of [inputs.cocoTrain, inputs.cocoVal, inputs.nocapsVal])
    for (const img of readEvalImages({ path: file, imageRoot: inputs.imageRoot })) keys.add(img.key);
  return [...keys];
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
  const results = await runJobs(variants, concurrency, (variant) => {
    if (concurrency <= 1) return runVariant(recipe, variant, inputs, visual, { ...options, features });
    const job: VariantJob = { recipe, variant, inputs, features, runsRoot: options.runsRoot, force: options.force };
    return runJobInWorker(__filename, runVariantJob, job, options, variant.label);
  });
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

/** A job's say / progress / log lines, as a worker thread posts them to its parent. */
type JobMessage = { say: string } | { progress: [string, number, number] } | { log: [string, LogLine] };

/** The reporting options of a job running in a worker thread: every line is posted to the parent (`runJobInWorker`). */
export function reportToParent(port: WorkerPort): Pick<ExperimentOptions, 'say' | 'progress' | 'onLog'> {
  const post = (m: JobMessage) => port.post(m);
  return {
    say: (line) => post({ say: line }),
    progress: (task, done, total) => post({ progress: [task, done, total] }),
    onLog: (run, line) => post({ log: [run, line] }),
  };
}

/**
 * Runs the job function `main` (an export of `modulePath`, taking the job and a WorkerPort) in a worker thread,
 * relaying its lines to `options`; a failure is reported under `label`.
 */
export async function runJobInWorker<J, R>(modulePath: string, main: WorkerMain<J, Promise<R>>, job: J, options: ExperimentOptions, label: string): Promise<R> {
  const worker = startWorker(modulePath, main, job);
  worker.onMessage((m: JobMessage) => {
    if ('say' in m) options.say?.(m.say);
    else if ('progress' in m) options.progress?.(...m.progress);
    else if ('log' in m) options.onLog?.(...m.log);
  });
  try {
    return await worker.done;
  } catch (e) {
    throw new Error(`${label}: ${(e as Error).message}`);
  } finally {
    void worker.terminate();
  }
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
