/**
 * CC3M Tables 4–7 (Sharma et al., ACL 2018, §5): captioners trained on COCO or on Conceptual Captions and scored
 * on three test sets, for notebooks/05-cc3m-captioners.ipynb.
 *
 * The paper's grid is 2 models × 2 visual feature modes × 2 training sets = 8 runs:
 *  - models: RNN (the LSTM encoder–decoder of src/models/lstm.ts) and T2T (the Transformer of
 *    src/models/transformer.ts), both with tied input/output embeddings;
 *  - features: 1×1 (one global vector, feature mode `global`) or 8×8 (the 64-position grid, `grid`);
 *  - training: COCO (the world's coco-train split) or Conceptual (the train part of the CC3M-filtered web pool, the
 *    pool `prepareWorldInputs` filters for every experiment, split by URL hash as notebook 02's Table 3 does).
 *
 * CC3M's training settings: Adagrad at 0.01, batch 25, captions cut to 15 tokens, vocabulary words seen ≥ 4 times,
 * beam 4 (`Recipe.captioners`). Only the number of steps is the recipe's own (the paper trained for millions).
 *
 * Each run is scored on (Table 5) the COCO-like test — the world's coco-val split, never used for a choice here —
 * with CIDEr, ROUGE-L and METEOR; (Table 6) the Conceptual-like test, the pool's held-out test part, one reference
 * each, with CIDEr, ROUGE-L and SPICE (cckit's, src/metrics/spice.ts); (Table 7) the Flickr-like split with CIDEr,
 * ROUGE-L and SPICE. Table 4's human ratings (GOOD by 1+, 2+, 3 of 3 raters on Flickr 1K) are replaced by the
 * ground-truth judge of src/metrics/grounding.ts on the Flickr-like captions: the share judged GOOD (names an object
 * the image shows and none it does not) and the hallucination rates CHAIR_s / CHAIR_i.
 *
 * Every run is a folder under `runs/` (its id hashes its config and inputs: a finished one is reused), and each test
 * split's captions and scores are stored in it (`predictions/`, `scores/`), so a rerun decodes nothing.
 *
 * This module runs the grid (run configs, the dev checkpoint choice, each variant's run and scores, the worker job);
 * tables4-7-grid.ts defines the grid and prepares its data, tables4-7-report.ts reports it (tables, claims, figures).
 */
import type { DecodeSettings } from '../../decode';
import type { CaptionGrounding, GroundingFigures } from '../../metrics/grounding';
import { readLog, readPredictions, readScores, type LogLine } from '../../runs/layout';
import { readExamples, type EvalImage } from '../../train/data';
import type { TrainConfig } from '../../train/trainer';
import type { WorkerPort } from '../../util/workers';
import type { CaptionerFeatures, Recipe } from '../recipe';
import { captionSplitOnce, selectCheckpoint, splitCaptioned } from '../evaluate';
import { trainWithReports } from '../runner';
import { perImageFields, perImageOfSplits, type SplitsPerImage } from '../split-per-image';
import { visualFromSpec, type FeatureSpec } from '../visual';
import { reportToParent, runInLanes } from '../workers';
import {
  CAPTIONER_METRICS,
  CAPTIONER_TESTS,
  captionerVariants,
  prepareCaptionerInputs,
  testImages,
  type CaptionerInputs,
  type CaptionerTest,
  type CaptionerVariant,
} from './tables4-7-grid';

/** The features of one setting, as plain data. */
export function captionerFeatureSpec(recipe: Recipe, features: CaptionerFeatures, cacheDir?: string): FeatureSpec {
  return {
    backbone: recipe.features.backbone,
    mode: recipe.captioners.features[features],
    tags: false,
    crop: recipe.captioners.crop,
    ...(cacheDir ? { cacheDir } : {}),
  };
}

/** The TrainConfig of one variant (its run id hashes it with the training file's contents and the features). */
export function captionerTrainConfig(recipe: Recipe, variant: CaptionerVariant, inputs: CaptionerInputs): TrainConfig {
  const grid = recipe.captioners;
  const source: TrainConfig['data']['train'][number] =
    variant.training === 'coco'
      ? { kind: 'coco', path: inputs.cocoTrain, ...(inputs.imageRoot ? { imageRoot: inputs.imageRoot } : {}) }
      : { kind: 'tsv', path: inputs.conceptualTrain };
  const dev = variant.training === 'coco' ? inputs.cocoDev : inputs.conceptualDev;
  // with a dev set: every checkpoint kept for the choice afterwards (CC3M §5.2)
  const choice = dev
    ? {
        val: {
          path: dev,
          ...(inputs.imageRoot && variant.training === 'coco' ? { imageRoot: inputs.imageRoot } : {}),
          every: grid.dev.every,
          maxLen: grid.maxCaptionLen,
        },
        checkpointEvery: grid.dev.every,
        keepCheckpoints: Math.ceil(grid.steps / grid.dev.every) + 1,
      }
    : { checkpointEvery: grid.steps };
  return {
    name: `cc3m-${variant.label.toLowerCase()}`,
    seed: recipe.seed,
    model: grid.models[variant.model],
    data: { train: [source], maxCaptionLen: grid.maxCaptionLen },
    vocab: { minCount: grid.minCount },
    objectives: { ic: 1 },
    optimizer: grid.optimizer,
    batchSize: grid.batchSize,
    steps: grid.steps,
    clipNorm: grid.clipNorm,
    ...choice,
  };
}

/** The dev CIDEr curve a run logged, and the checkpoint CC3M §5.2 keeps: the best dev CIDEr (ties: the earlier). */
export interface DevChoice {
  step: number;
  /** Dev CIDEr (×1) at the chosen step. */
  cider: number;
  curve: { step: number; cider: number }[];
}

/** The dev CIDEr the run logged at each step (the last line per step: a resumed run logs its steps again). */
export function loggedDevCurve(runDir: string): DevChoice['curve'] {
  const atStep = new Map<number, number>();
  for (const line of readLog(runDir)) if (line.val && Number.isFinite(line.val.CIDEr)) atStep.set(line.step, line.val.CIDEr!);
  return [...atStep].sort((a, b) => a[0] - b[0]).map(([step, cider]) => ({ step, cider }));
}

/**
 * CC3M §5.2's choice among the run's kept checkpoints: `selectCheckpoint`'s rule (the best value, ties to the
 * earlier) on the dev CIDEr the run logged while training (greedy, so the dev set is not decoded again).
 */
export async function devCheckpoint(runDir: string): Promise<DevChoice & { dir: string }> {
  const curve = loggedDevCurve(runDir);
  const atStep = new Map(curve.map((p) => [p.step, p.cider]));
  const choice = await selectCheckpoint(
    runDir,
    'dev',
    async ({ step }) => {
      const cider = atStep.get(step);
      if (cider === undefined) throw new Error(`${runDir}: no dev CIDEr logged at the kept checkpoint of step ${step}`);
      return cider;
    },
    (cider) => cider,
  );
  return { step: choice.step, cider: atStep.get(choice.step)!, dir: choice.dir, curve };
}

/** The judge's figures of one test's captions, with the GOOD share (CC3M Table 4's stand-in). */
export interface JudgedFigures extends GroundingFigures {
  /** Share of captions naming at least one object the image shows and none it does not. */
  good: number;
}

/** One test split's scores (×1, as coco-caption gives them) and, on world data, the judge's figures. */
export interface TestScores {
  metrics: Record<(typeof CAPTIONER_METRICS)[number], number>;
  judged?: JudgedFigures;
  images: number;
  /** Distinct captions the run wrote for the split's images. */
  distinct: number;
}

/** One run's row. */
export interface CaptionerRow extends CaptionerVariant {
  run: string;
  /** Vocabulary size of the run (COCO vs Conceptual vocabularies). */
  vocabSize: number;
  /** The checkpoint the tests were captioned with, chosen on dev CIDEr (absent: no dev set, the last one). */
  dev?: DevChoice;
  tests: Record<CaptionerTest, TestScores>;
  /** Whether this call trained the run (false: a finished run was reused). */
  trained: boolean;
  /** Test splits decoded in this call (0: every one read from the run). */
  captioned: number;
}

export interface CaptionerResult {
  seed: number;
  recipe: Recipe;
  rows: CaptionerRow[];
  /** Training examples (captions) and test images. */
  sizes: { cocoTrain: number; conceptualTrain: number } & Record<CaptionerTest, number>;
  seconds: number;
  /**
   * Per-image CIDEr-D of each run's captions on the three tests (by variant label, then test), read back from the
   * captions the run stored, for the claims' bootstrap intervals (not read yet). Absent in results made before it existed.
   */
  perImage?: Record<string, SplitsPerImage<CaptionerTest>>;
  /** Why a run's test has no per-image scores (no stored captions, or they do not give the run's CIDEr). */
  perImageNotes?: string[];
}

/** GOOD as notebook 02 defines it: a present object named (by name or kind) and no absent one. */
export function isGoodVerdict(v: Pick<CaptionGrounding, 'named' | 'hallucinated'> & { byKind?: readonly string[] }): boolean {
  return v.named.length + (v.byKind?.length ?? 0) > 0 && v.hallucinated.length === 0;
}

const splitName = (test: CaptionerTest) => `cc3m-${test}-test`;

/** The stored scores of one test split (`cc3m-<test>-test`), when they are there for this decoder and carry every metric. */
export function storedTest(runDir: string, test: CaptionerTest, decode: DecodeSettings): TestScores | undefined {
  const split = splitName(test);
  if (!splitCaptioned(runDir, split, decode)) return undefined;
  const predictions = readPredictions(runDir, split);
  const scores = readScores(runDir, split);
  if (!scores || !CAPTIONER_METRICS.every((m) => Number.isFinite(scores.corpus[m]))) return undefined;
  const metrics = Object.fromEntries(CAPTIONER_METRICS.map((m) => [m, scores.corpus[m]!])) as TestScores['metrics'];
  const overall = scores.grounding?.overall;
  const verdicts = predictions.items.map((i) => i.grounding);
  const judged =
    overall && verdicts.every((v) => v !== undefined)
      ? { ...overall, specificRecall: overall.specificRecall ?? NaN, good: verdicts.filter((v) => isGoodVerdict(v!)).length / Math.max(1, verdicts.length) }
      : undefined;
  return { metrics, ...(judged ? { judged } : {}), images: predictions.items.length, distinct: new Set(predictions.items.map((i) => i.caption)).size };
}

export interface VariantJob {
  recipe: Recipe;
  variant: CaptionerVariant;
  inputs: CaptionerInputs;
  runsRoot: string;
  cacheDir?: string;
}

/** Trains (or reuses) one run and scores it on the three tests (or reads the stored scores). */
export async function runCaptionerVariant(
  job: VariantJob,
  hooks: { say?: (line: string) => void; progress?: (task: string, done: number, total: number) => void; onLog?: (run: string, line: LogLine) => void } = {},
): Promise<CaptionerRow> {
  const { recipe, variant, inputs } = job;
  const say = hooks.say ?? (() => {});
  const visual = await visualFromSpec(captionerFeatureSpec(recipe, variant.features, job.cacheDir));
  const config = captionerTrainConfig(recipe, variant, inputs);
  const run = await trainWithReports(config, visual, { ...hooks, runsRoot: job.runsRoot });
  const decode = recipe.captioners.decode;
  const chosen = config.val ? await devCheckpoint(run.dir) : undefined;
  if (chosen) say(`${variant.label}: best dev CIDEr ${(100 * chosen.cider).toFixed(1)} at step ${chosen.step} of ${config.steps}`);
  const tests = {} as Record<CaptionerTest, TestScores>;
  let captioned = 0;
  for (const test of CAPTIONER_TESTS) {
    // scored with METEOR and SPICE too (stored scores count only when every metric is there), no thumbnails
    const fresh = await captionSplitOnce(run.dir, testImages(inputs, test), visual, {
      split: splitName(test),
      decode,
      ...(chosen ? { checkpoint: chosen.dir } : {}),
      thumbnails: false,
      metrics: ['rouge', 'cider', 'meteor', 'spice'],
      stored: (dir) => storedTest(dir, test, decode) !== undefined,
      say,
      label: variant.label,
      progress: hooks.progress ? (done, total) => hooks.progress!(`caption ${variant.label} ${test}`, done, total) : undefined,
    });
    if (fresh) captioned++;
    tests[test] = storedTest(run.dir, test, decode)!;
  }
  const dev = chosen ? { step: chosen.step, cider: chosen.cider, curve: chosen.curve } : undefined;
  return { ...variant, run: run.id, vocabSize: run.vocab.size, ...(dev ? { dev } : {}), tests, trained: run.stepsRun > 0, captioned };
}

/** Worker side of `runCaptionerVariant` (src/util/workers.ts). */
export async function captionerVariantJob(job: VariantJob, port: WorkerPort): Promise<CaptionerRow> {
  return runCaptionerVariant(job, reportToParent(port));
}

export interface CaptionerOptions {
  runsRoot?: string;
  cacheDir?: string;
  say?: (line: string) => void;
  progress?: (task: string, done: number, total: number) => void;
  onLog?: (run: string, line: LogLine) => void;
  /** Only these variants (labels); default all 8. */
  only?: readonly string[];
}

/**
 * The grid for one seed (`recipe.captioners`; the backbone, world and seed are the recipe's): inputs, features once
 * (one writer), then the runs `recipe.captioners.concurrency` at a time.
 */
export async function runCc3mCaptioners(recipe: Recipe, options: CaptionerOptions = {}): Promise<CaptionerResult> {
  const started = Date.now();
  const say = options.say ?? (() => {});
  const runsRoot = options.runsRoot ?? 'runs';
  const inputs = await prepareCaptionerInputs(recipe, { cacheDir: options.cacheDir, say });
  const cocoExamples = await readExamples({ kind: 'coco', path: inputs.cocoTrain, ...(inputs.imageRoot ? { imageRoot: inputs.imageRoot } : {}) });
  const conceptualExamples = await readExamples({ kind: 'tsv', path: inputs.conceptualTrain });
  const tests = Object.fromEntries(CAPTIONER_TESTS.map((t) => [t, testImages(inputs, t)])) as Record<CaptionerTest, EvalImage[]>;
  const keys = [...new Set([...cocoExamples, ...conceptualExamples].map((e) => e.key).concat(CAPTIONER_TESTS.flatMap((t) => tests[t].map((i) => i.key))))];
  // every mode reads the same stored features: extracting them once covers 1×1 and 8×8
  const visual = await visualFromSpec(captionerFeatureSpec(recipe, '1x1', options.cacheDir), { progress: options.progress });
  say(`visual features (${recipe.features.backbone}) for ${keys.length} images`);
  await visual.prepare(keys);
  const variants = captionerVariants().filter((v) => !options.only || options.only.includes(v.label));
  const jobs = variants.map((variant) => ({ recipe, variant, inputs, runsRoot, ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}) }));
  const hooks = { say: options.say, progress: options.progress, onLog: options.onLog };
  const concurrency = recipe.captioners.concurrency;
  // side by side, the slowest runs first (the RNN over 64 grid positions, then the 8×8 Transformer), so the lanes end together
  const cost = (v: CaptionerVariant) => (v.features === '8x8' ? (v.model === 'RNN' ? 0 : 1) : 2);
  const order = jobs.map((_, i) => i);
  if (concurrency > 1) order.sort((a, b) => cost(jobs[a]!.variant) - cost(jobs[b]!.variant) || a - b);
  const ran = await runInLanes(
    order.map((i) => jobs[i]!),
    concurrency,
    { modulePath: __filename, worker: captionerVariantJob, here: (job) => runCaptionerVariant(job, hooks), label: (job) => job.variant.label },
    hooks,
  );
  const rows: CaptionerRow[] = new Array(jobs.length);
  order.forEach((job, k) => (rows[job] = ran[k]!));
  return {
    seed: recipe.seed,
    recipe,
    rows,
    sizes: {
      cocoTrain: cocoExamples.length,
      conceptualTrain: conceptualExamples.length,
      coco: tests.coco.length,
      conceptual: tests.conceptual.length,
      flickr: tests.flickr.length,
    },
    seconds: (Date.now() - started) / 1000,
    ...captionerPerImage(rows, runsRoot),
  };
}

/** Each run's per-image CIDEr-D on its three tests, from its stored captions (`perImageOfSplits`; the rows' CIDEr is ×1). */
export function captionerPerImage(rows: readonly CaptionerRow[], runsRoot: string): Pick<CaptionerResult, 'perImage' | 'perImageNotes'> {
  const wanted = rows.flatMap((r) =>
    CAPTIONER_TESTS.map((test) => ({ row: r.label, key: test, run: r.run, split: splitName(test), cider: 100 * (r.tests[test]?.metrics.CIDEr ?? NaN) })),
  );
  return perImageFields(perImageOfSplits(wanted, runsRoot));
}
