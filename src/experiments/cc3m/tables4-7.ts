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
 * beam 4 (`Recipe.captioners.stage`, a StageRecipe like every table's). Only the number of steps is the recipe's own (the paper trained for millions).
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
import { readPredictions, readScores, type LogLine } from '../../runs/layout';
import { readExamples, type EvalImage } from '../../train/data';
import type { TrainConfig } from '../../train/trainer';
import { trainConfigFor, type CaptionerFeatures, type Recipe } from '../recipe';
import { splitCaptioned } from '../evaluate';
import { loggedDevCurve, runPlan, type DevChoice, type PlanEvaluation, type PlanRow, type RowOutcome } from '../plan';
import { perImageFields, perImageOfSplits, type SplitsPerImage } from '../split-per-image';
import type { FeatureSpec } from '../visual';
import {
  CAPTIONER_METRICS,
  CAPTIONER_TESTS,
  captionerVariants,
  prepareCaptionerInputs,
  testImages,
  testSource,
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
  const { stage, models } = recipe.captioners;
  const source: TrainConfig['data']['train'][number] =
    variant.training === 'coco'
      ? { kind: 'coco', path: inputs.cocoTrain, ...(inputs.imageRoot ? { imageRoot: inputs.imageRoot } : {}) }
      : { kind: 'tsv', path: inputs.conceptualTrain };
  const dev = variant.training === 'coco' ? inputs.cocoDev : inputs.conceptualDev;
  const { select, ...last } = stage;
  // with a dev set, dev CIDEr every `select.every` steps and every checkpoint kept for the choice afterwards (CC3M §5.2)
  const val =
    dev && select
      ? {
          path: dev,
          ...(inputs.imageRoot && variant.training === 'coco' ? { imageRoot: inputs.imageRoot } : {}),
          every: select.every,
          maxLen: stage.maxCaptionLen ?? recipe.maxCaptionLen,
        }
      : null;
  const runStage = { ...(val ? stage : last), model: models[variant.model] };
  return trainConfigFor(recipe, runStage, { name: `cc3m-${variant.label.toLowerCase()}`, train: [source], val }, { cocoVal: '' });
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

/**
 * One variant as a plan row: its run on its own features (1×1 or 8×8), the checkpoint chosen on the dev CIDEr it
 * logged (CC3M §5.2; without a dev set, its last), the three tests captioned with it, scored with METEOR and SPICE
 * too (stored scores stand only when they hold every metric), no thumbnails.
 */
export function captionerRow(recipe: Recipe, variant: CaptionerVariant, inputs: CaptionerInputs, cacheDir?: string): PlanRow {
  const config = captionerTrainConfig(recipe, variant, inputs);
  const evaluations = CAPTIONER_TESTS.map((test): PlanEvaluation => ({
    split: splitName(test),
    images: testSource(inputs, test),
    decode: recipe.captioners.decode,
    thumbnails: false,
    metrics: ['rouge', 'cider', 'meteor', 'spice'],
    requires: [...CAPTIONER_METRICS],
  }));
  return {
    label: variant.label,
    features: captionerFeatureSpec(recipe, variant.features, cacheDir),
    stages: [{ configs: [config], ...(config.val ? { select: { by: 'logged' as const } } : {}), evaluations }],
  };
}

/** A variant's row from its plan row's outcome: the stored tests, the dev curve it was chosen on. */
export function captionerResult(recipe: Recipe, variant: CaptionerVariant, outcome: RowOutcome): CaptionerRow {
  const [stage] = outcome.stages;
  const { run, selection } = stage!;
  const curve = selection ? loggedDevCurve(run.dir) : [];
  const dev = selection ? { step: selection.step, cider: curve.find((p) => p.step === selection.step)!.cider, curve } : undefined;
  const tests = Object.fromEntries(CAPTIONER_TESTS.map((test) => [test, storedTest(run.dir, test, recipe.captioners.decode)!])) as Record<
    CaptionerTest,
    TestScores
  >;
  const captioned = Object.values(stage!.evaluations).filter((e) => e.fresh).length;
  return { ...variant, run: run.id, vocabSize: run.vocabSize, ...(dev ? { dev } : {}), tests, trained: run.stepsRun > 0, captioned };
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
  const variants = captionerVariants().filter((v) => !options.only || options.only.includes(v.label));
  const concurrency = recipe.captioners.concurrency;
  // side by side, the slowest runs first (the RNN over 64 grid positions, then the 8×8 Transformer), so the lanes end together
  const cost = (v: CaptionerVariant) => (v.features === '8x8' ? (v.model === 'RNN' ? 0 : 1) : 2);
  const order = variants.map((_, i) => i);
  if (concurrency > 1) order.sort((a, b) => cost(variants[a]!) - cost(variants[b]!) || a - b);
  const plan = {
    rows: variants.map((variant) => captionerRow(recipe, variant, inputs, options.cacheDir)),
    // every mode reads the same stored features: extracting them once covers 1×1 and 8×8
    prepare: { spec: captionerFeatureSpec(recipe, '1x1', options.cacheDir), keys },
    order,
  };
  const outcomes = await runPlan(plan, { runsRoot, say: options.say, progress: options.progress, onLog: options.onLog, concurrency });
  const rows = variants.map((variant, i) => captionerResult(recipe, variant, outcomes[i]!));
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
