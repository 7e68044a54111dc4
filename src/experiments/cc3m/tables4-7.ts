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
 */
import * as fs from 'fs';
import * as path from 'path';

import type { DecodeSettings } from '../../decode';
import type { CaptionGrounding, GroundingFigures } from '../../metrics/grounding';
import { paperNumbers } from '../../report/paper';
import { readLog, readPredictions, readScores, type LogLine } from '../../runs/layout';
import { readEvalImages, readExamples, type EvalImage } from '../../train/data';
import type { TrainConfig } from '../../train/trainer';
import { writeFileIfChanged } from '../../util/atomic';
import type { WorkerPort } from '../../util/workers';
import { CAPTIONER_FEATURES, CAPTIONER_MODELS, type CaptionerFeatures, type CaptionerModel, type Recipe } from '../recipe';
import { splitOf, type SplitFractions } from '../cc3m-dataset';
import { readWebTruth } from '../world-check';
import { captionSplitOnce, selectCheckpoint, splitCaptioned } from '../evaluate';
import { runJobs } from '../jobs';
import { prepareWorldInputs, reportToParent, runJobInWorker, trainWithReports } from '../runner';
import { formatSpread, spread } from '../seeds';
import { NO_PAPER_NUMBER, verdictOverPairs, type Claim, type Verdict } from '../claims';
import { visualFromSpec, type FeatureSpec } from '../visual';

export const CAPTIONER_TRAINING = ['coco', 'conceptual'] as const;
export type CaptionerTraining = (typeof CAPTIONER_TRAINING)[number];
export const CAPTIONER_TESTS = ['coco', 'conceptual', 'flickr'] as const;
export type CaptionerTest = (typeof CAPTIONER_TESTS)[number];

/** The paper's tables over the test sets: which test, which metrics (coco-caption names), which paper-numbers key. */
export const CAPTIONER_TABLES = {
  table5: { test: 'coco', metrics: ['CIDEr', 'ROUGE_L', 'METEOR'], paperKey: 'table5_coco_c40', title: 'CC3M Table 5: COCO-like test' },
  table6: { test: 'conceptual', metrics: ['CIDEr', 'ROUGE_L', 'SPICE'], paperKey: 'table6_conceptual_test', title: 'CC3M Table 6: Conceptual-like test' },
  table7: { test: 'flickr', metrics: ['CIDEr', 'ROUGE_L', 'SPICE'], paperKey: 'table7_flickr1k', title: 'CC3M Table 7: Flickr-like test' },
} as const satisfies Record<string, { test: CaptionerTest; metrics: readonly string[]; paperKey: string; title: string }>;
export type CaptionerTable = keyof typeof CAPTIONER_TABLES;

/** Every metric a test split is scored with (the union of the tables' columns). */
export const CAPTIONER_METRICS = ['CIDEr', 'ROUGE_L', 'METEOR', 'SPICE'] as const;

/** One of the 8 runs. `label` is the paper-numbers key ("T2T8x8_conceptual"). */
export interface CaptionerVariant {
  label: string;
  model: CaptionerModel;
  features: CaptionerFeatures;
  training: CaptionerTraining;
}

/** The grid in the paper's row order: COCO-trained first, RNN before T2T, 1×1 before 8×8. */
export function captionerVariants(): CaptionerVariant[] {
  return CAPTIONER_TRAINING.flatMap((training) =>
    CAPTIONER_MODELS.flatMap((model) => CAPTIONER_FEATURES.map((features) => ({ label: `${model}${features}_${training}`, model, features, training }))),
  );
}

/** The data of the grid: training files and the three test splits. */
export interface CaptionerInputs {
  cocoTrain: string;
  /** Conceptual training captions (TSV, caption first). */
  conceptualTrain: string;
  /** COCO-format captions files of the COCO-like and Flickr-like tests (the world's carry each image's objects). */
  cocoTest: string;
  flickrTest: string;
  /** The Conceptual-like test as EvalImage[] (JSON): one reference each, objects from the world's truth. */
  conceptualTest: string;
  /** Dev sets of the checkpoint choice (COCO-format captions files); absent: each run's last checkpoint. */
  cocoDev?: string;
  conceptualDev?: string;
  /** Only the Flickr-like test's first images (the world's split is Table 8's, larger than CC3M's test needs). */
  flickrLimit?: number;
  imageRoot?: string;
}

/** A pool's rows (caption, URL) split by URL hash into train, dev (the validation part) and test, as in CC3M. */
export function splitPool(
  rows: readonly { caption: string; url: string }[],
  fractions: SplitFractions,
): { train: typeof rows; dev: typeof rows; test: typeof rows } {
  const parts = {
    train: [] as { caption: string; url: string }[],
    dev: [] as { caption: string; url: string }[],
    test: [] as { caption: string; url: string }[],
  };
  for (const row of rows) parts[SPLIT_PART[splitOf(row.url, fractions)]].push(row);
  return parts;
}

const SPLIT_PART = { train: 'train', validation: 'dev', test: 'test' } as const;

/** Rows (caption, URL) as a COCO-format captions file, one reference each: what the trainer's dev scoring reads. */
export function cocoCaptionsOf(rows: readonly { caption: string; url: string }[]): object {
  return {
    images: rows.map((r, i) => ({ id: i, coco_url: r.url })),
    annotations: rows.map((r, i) => ({ id: i, image_id: i, caption: r.caption })),
  };
}

/**
 * A COCO-format captions file's images split by URL hash into dev (`devFraction`) and test: two files with the
 * source's `info` (so world images keep their keys), each image with all its references.
 */
export function splitCocoFile(file: string, devFraction: number, out: { dev: string; test: string }, imageRoot?: string): void {
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { images: { id: number }[]; annotations: { image_id: number }[] } & Record<string, unknown>;
  const keyOf = new Map(readEvalImages({ path: file, imageRoot }).map((img) => [img.imageId, img.key]));
  const isDev = (id: number) => splitOf(keyOf.get(id) ?? String(id), { validation: devFraction, test: 1 - devFraction }) === 'validation';
  for (const [which, target] of [
    [true, out.dev],
    [false, out.test],
  ] as const) {
    const images = data.images.filter((img) => isDev(img.id) === which);
    const ids = new Set(images.map((img) => img.id));
    writeFileIfChanged(target, JSON.stringify({ ...data, images, annotations: data.annotations.filter((a) => ids.has(a.image_id)) }));
  }
}

/** Test rows as evaluation images: one reference each; `truth` (URL → concepts) gives the judge its objects. */
export function conceptualTestImages(rows: readonly { caption: string; url: string }[], truth?: ReadonlyMap<string, readonly string[]>): EvalImage[] {
  return rows.map((row, i) => {
    const objects = truth?.get(row.url);
    return { key: row.url, imageId: i, references: [row.caption], ...(objects ? { objects: [...objects] } : {}) };
  });
}

const tsvRows = async (file: string) => (await readExamples({ kind: 'tsv', path: file })).map((e) => ({ caption: e.caption, url: e.key }));

/** Writes `rows` as a caption-first TSV (the layout the pipelines write), creating the folder. */
function writeTsv(file: string, rows: readonly { caption: string; url: string }[]): void {
  writeFileIfChanged(file, rows.map((r) => `${r.caption.replace(/[\t\n]/g, ' ')}\t${r.url}`).join('\n') + '\n');
}

/**
 * The world (built and filtered by `prepareWorldInputs` on first use, shared with the other notebooks), or the real
 * files of `recipe.captioners.data`.
 */
export async function prepareCaptionerInputs(recipe: Recipe, options: { cacheDir?: string; say?: (line: string) => void } = {}): Promise<CaptionerInputs> {
  if (recipe.captioners.data) {
    const r = recipe.captioners.data;
    const dir = path.join(options.cacheDir ?? '.cckit-cache', 'real-cc3m-captioners');
    const conceptualTest = path.join(dir, 'conceptual-test.json');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(conceptualTest, JSON.stringify(conceptualTestImages(await tsvRows(r.conceptualTest))));
    const conceptualDev = path.join(dir, 'conceptual-dev.json');
    if (r.conceptualDev) writeFileIfChanged(conceptualDev, JSON.stringify(cocoCaptionsOf(await tsvRows(r.conceptualDev))));
    return {
      cocoTrain: r.cocoTrain,
      conceptualTrain: r.conceptualTrain,
      cocoTest: r.cocoTest,
      flickrTest: r.flickrTest,
      conceptualTest,
      ...(r.cocoDev ? { cocoDev: r.cocoDev } : {}),
      ...(r.conceptualDev ? { conceptualDev } : {}),
      imageRoot: r.imageRoot,
    };
  }
  // the world's splits, even when `recipe.data` names real files for the CC12M experiments
  const inputs = await prepareWorldInputs(
    { preset: recipe.preset, seed: recipe.seed, filters: recipe.filters },
    { cacheDir: options.cacheDir, say: options.say },
  );
  const root = inputs.worldRoot!;
  const { train: trainRows, dev, test } = splitPool(await tsvRows(inputs.pools.cc3m), recipe.captioners.splits);
  const truth = readWebTruth(path.join(root, 'web', 'truth.jsonl'));
  const dir = path.join(root, 'cc3m-captioners');
  const conceptualTrain = path.join(dir, 'conceptual-train.tsv');
  const conceptualDev = path.join(dir, 'conceptual-dev.json');
  const conceptualTest = path.join(dir, 'conceptual-test.json');
  writeTsv(conceptualTrain, trainRows);
  writeFileIfChanged(conceptualDev, JSON.stringify(cocoCaptionsOf(dev)));
  fs.writeFileSync(conceptualTest, JSON.stringify(conceptualTestImages(test, new Map([...truth].map(([url, t]) => [url, t.concepts])))));
  // the COCO-like dev: part of the COCO-like test split's images (the world has no other COCO-like split left)
  const coco = { dev: path.join(dir, 'coco-dev.json'), test: path.join(dir, 'coco-test.json') };
  splitCocoFile(inputs.cocoVal, recipe.captioners.dev.cocoDevFraction, coco);
  return {
    cocoTrain: inputs.cocoTrain,
    conceptualTrain,
    cocoTest: coco.test,
    flickrTest: path.join(root, 'flickr', 'captions.json'),
    conceptualTest,
    cocoDev: coco.dev,
    conceptualDev,
    flickrLimit: recipe.captioners.flickrImages,
  };
}

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

/** The evaluation images of a test split. */
export function testImages(inputs: CaptionerInputs, test: CaptionerTest): EvalImage[] {
  if (test === 'conceptual') return JSON.parse(fs.readFileSync(inputs.conceptualTest, 'utf8')) as EvalImage[];
  if (test === 'coco') return readEvalImages({ path: inputs.cocoTest, imageRoot: inputs.imageRoot });
  return readEvalImages({ path: inputs.flickrTest, imageRoot: inputs.imageRoot, ...(inputs.flickrLimit !== undefined ? { limit: inputs.flickrLimit } : {}) });
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
  const ran = await runJobs(order, concurrency, (i) =>
    concurrency > 1 ? runJobInWorker(__filename, captionerVariantJob, jobs[i]!, hooks, jobs[i]!.variant.label) : runCaptionerVariant(jobs[i]!, hooks),
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
  };
}

// ------------------------------------------------------------------ tables, paper numbers, claims

export { NO_PAPER_NUMBER };

/** The paper's value of one cell (its scale: CIDEr 1.044, ROUGE-L 0.698), or undefined when the file has none. */
export function captionerPaper(table: CaptionerTable, label: string, metric: string): number | undefined {
  const cc3m = paperNumbers().cc3m as Record<string, unknown>;
  const t = cc3m[CAPTIONER_TABLES[table].paperKey] as { columns?: string[] } & Record<string, unknown>;
  const column = t?.columns?.indexOf(metric.replace('_', '-'));
  const row = t?.[label];
  if (column === undefined || column < 0 || !Array.isArray(row)) return undefined;
  const value: unknown = row[column];
  return typeof value === 'number' ? value : undefined;
}

/** The paper's Table 4 (share of Flickr 1K captions rated GOOD by 1+, 2+, 3 of 3 raters), or undefined. */
export function captionerPaperGood(label: string, raters: '1+' | '2+' | '3+'): number | undefined {
  const t = (paperNumbers().cc3m as Record<string, unknown>).table4_human_eval_flickr1k as { columns?: string[] } & Record<string, unknown>;
  const column = t?.columns?.indexOf(raters);
  const row = t?.[label];
  if (column === undefined || column < 0 || !Array.isArray(row)) return undefined;
  const value: unknown = row[column];
  return typeof value === 'number' ? value : undefined;
}

/** Mean ± std over seeds (one value with one seed), ×100, or n/a for the paper. */
const over = (values: readonly number[]) => formatSpread(spread(values.map((v) => 100 * v)));
const paperCell = (v: number | undefined) => (v === undefined ? NO_PAPER_NUMBER : (100 * v).toFixed(1));
const rowsByLabel = (results: readonly CaptionerResult[], label: string) => results.map((r) => r.rows.find((row) => row.label === label));

/** The metric columns' header: "ROUGE-L" for ROUGE_L. */
export const metricName = (m: string) => m.replace('_', '-');

/**
 * One of Tables 5–7: per run, the measured metrics (×100; mean ± std over seeds) beside the paper's (×100, n/a
 * where paper-numbers.json has none).
 */
export function captionerTableRows(results: readonly CaptionerResult[], table: CaptionerTable): Record<string, string>[] {
  const spec = CAPTIONER_TABLES[table];
  return captionerVariants()
    .filter((v) => results.some((r) => r.rows.some((row) => row.label === v.label)))
    .map((v) => {
      const rows = rowsByLabel(results, v.label);
      const cells: Record<string, string> = {
        model: `${v.model} ${v.features.replace('x', '×')}`,
        'trained on': v.training === 'coco' ? 'COCO-like' : 'Conceptual-like',
      };
      for (const m of spec.metrics) cells[metricName(m)] = over(rows.map((r) => r?.tests[spec.test].metrics[m] ?? NaN));
      for (const m of spec.metrics) cells[`paper ${metricName(m)}`] = paperCell(captionerPaper(table, v.label, m));
      return cells;
    });
}

/**
 * Table 4's stand-in: the judge on the Flickr-like captions (% GOOD, CHAIR_s, CHAIR_i, recall) beside the paper's
 * share of captions rated GOOD by 1+, 2+ and 3 of 3 raters (the paper rated only the 8×8 models).
 */
export function captionerJudgeRows(results: readonly CaptionerResult[], test: CaptionerTest = 'flickr'): Record<string, string>[] {
  return captionerVariants()
    .filter((v) => results.some((r) => r.rows.some((row) => row.label === v.label)))
    .map((v) => {
      const rows = rowsByLabel(results, v.label);
      const pick = (k: keyof JudgedFigures) => over(rows.map((r) => r?.tests[test].judged?.[k] ?? NaN));
      return {
        model: `${v.model} ${v.features.replace('x', '×')}`,
        'trained on': v.training === 'coco' ? 'COCO-like' : 'Conceptual-like',
        'GOOD %': pick('good'),
        'CHAIR_s %': pick('chairS'),
        'CHAIR_i %': pick('chairI'),
        'recall %': pick('recall'),
        'paper 1+ GOOD %': paperCell(captionerPaperGood(v.label, '1+')),
        'paper 2+ GOOD %': paperCell(captionerPaperGood(v.label, '2+')),
        'paper 3+ GOOD %': paperCell(captionerPaperGood(v.label, '3+')),
      };
    });
}

/** A value of one run on one test: a metric, or a judge figure (`judge:chairS`). */
export type CaptionerMeasure = (typeof CAPTIONER_METRICS)[number] | `judge:${keyof JudgedFigures}`;

export function measureOf(row: CaptionerRow | undefined, test: CaptionerTest, measure: CaptionerMeasure): number {
  if (!row) return NaN;
  if (measure.startsWith('judge:')) return row.tests[test].judged?.[measure.slice(6) as keyof JudgedFigures] ?? NaN;
  return row.tests[test].metrics[measure as (typeof CAPTIONER_METRICS)[number]] ?? NaN;
}

/** A claim over the grid: "A beats B" compared pair by pair (same model, features or training otherwise). */
export interface CaptionerClaimSpec {
  claim: string;
  /** Where the paper shows it. */
  source: string;
  test: CaptionerTest;
  measure: CaptionerMeasure;
  /** The dimension compared and its two values: A is claimed ahead of B. */
  compare:
    | { dimension: 'training'; a: CaptionerTraining; b: CaptionerTraining }
    | { dimension: 'model'; a: CaptionerModel; b: CaptionerModel }
    | { dimension: 'features'; a: CaptionerFeatures; b: CaptionerFeatures };
  /** "higher" (default) or "lower" is better (hallucination rates). */
  better?: 'higher' | 'lower';
  /** Restrict the pairs (e.g. only 8×8 models, only Conceptual-trained). */
  where?: Partial<Pick<CaptionerVariant, 'model' | 'features' | 'training'>>;
}

/** The paper's claims behind Tables 4–7, checked on the grid. */
export const CAPTIONER_CLAIMS: readonly CaptionerClaimSpec[] = [
  {
    claim: 'COCO-trained beats Conceptual-trained on the COCO-like test (CIDEr)',
    source: 'Table 5',
    test: 'coco',
    measure: 'CIDEr',
    compare: { dimension: 'training', a: 'coco', b: 'conceptual' },
  },
  {
    claim: 'Conceptual-trained beats COCO-trained on the Conceptual-like test (CIDEr)',
    source: 'Table 6',
    test: 'conceptual',
    measure: 'CIDEr',
    compare: { dimension: 'training', a: 'conceptual', b: 'coco' },
  },
  {
    claim: 'COCO-trained beats Conceptual-trained on the Flickr-like test (CIDEr)',
    source: 'Table 7',
    test: 'flickr',
    measure: 'CIDEr',
    compare: { dimension: 'training', a: 'coco', b: 'conceptual' },
  },
  {
    claim: 'Conceptual-trained captions are judged GOOD more often on Flickr-like (8×8 models)',
    source: 'Table 4',
    test: 'flickr',
    measure: 'judge:good',
    compare: { dimension: 'training', a: 'conceptual', b: 'coco' },
    where: { features: '8x8' },
  },
  {
    claim: 'Conceptual-trained models hallucinate less than COCO-trained on Flickr-like (CHAIR_s)',
    source: 'Table 4, §5 (qualitative)',
    test: 'flickr',
    measure: 'judge:chairS',
    compare: { dimension: 'training', a: 'conceptual', b: 'coco' },
    better: 'lower',
  },
  {
    claim: 'T2T is judged GOOD more often than RNN on Flickr-like (8×8 models)',
    source: 'Table 4',
    test: 'flickr',
    measure: 'judge:good',
    compare: { dimension: 'model', a: 'T2T', b: 'RNN' },
    where: { features: '8x8' },
  },
  {
    claim: 'T2T beats RNN on the Conceptual-like test when trained on Conceptual (CIDEr)',
    source: 'Table 6',
    test: 'conceptual',
    measure: 'CIDEr',
    compare: { dimension: 'model', a: 'T2T', b: 'RNN' },
    where: { training: 'conceptual' },
  },
  {
    claim: '8×8 beats 1×1 on the Conceptual-like test when trained on Conceptual (CIDEr)',
    source: 'Table 6',
    test: 'conceptual',
    measure: 'CIDEr',
    compare: { dimension: 'features', a: '8x8', b: '1x1' },
    where: { training: 'conceptual' },
  },
];

/** The per-seed, per-pair differences A − B of a claim (sign flipped when lower is better: > 0 means the claim's way). */
export function claimDifferences(
  results: readonly CaptionerResult[],
  spec: CaptionerClaimSpec,
): { pair: string; seed: number; difference: number; testable: boolean }[] {
  const out: { pair: string; seed: number; difference: number; testable: boolean }[] = [];
  const sign = spec.better === 'lower' ? -1 : 1;
  for (const result of results) {
    for (const a of result.rows) {
      if (a[spec.compare.dimension] !== spec.compare.a) continue;
      if (spec.where && Object.entries(spec.where).some(([k, v]) => a[k as keyof CaptionerVariant] !== v)) continue;
      const b = result.rows.find(
        (r) => r[spec.compare.dimension] === spec.compare.b && CAPTIONER_DIMENSIONS.every((d) => d === spec.compare.dimension || r[d] === a[d]),
      );
      if (!b) continue;
      const pair = CAPTIONER_DIMENSIONS.filter((d) => d !== spec.compare.dimension)
        .map((d) => a[d])
        .join(' ');
      const testable = isTestable(a, spec.test, result.recipe) && isTestable(b, spec.test, result.recipe);
      out.push({ pair, seed: result.seed, difference: sign * (measureOf(a, spec.test, spec.measure) - measureOf(b, spec.test, spec.measure)), testable });
    }
  }
  return out;
}

const CAPTIONER_DIMENSIONS = ['model', 'features', 'training'] as const;

/** Whether a run writes enough distinct captions on a test for a comparison to mean anything (recipe.captioners.minDistinctShare). */
export function isTestable(row: CaptionerRow, test: CaptionerTest, recipe: Recipe): boolean {
  const t = row.tests[test];
  return t.distinct >= recipe.captioners.minDistinctShare * t.images;
}

/** Over testable pairs only: "not testable" when no pair is, else the pairs' verdict. */
const testableVerdict = (diffs: readonly { difference: number; testable: boolean }[]): Verdict => {
  const testable = diffs.filter((d) => d.testable).map((d) => d.difference);
  return diffs.length > 0 && testable.length === 0 ? 'not testable' : verdictOverPairs(testable);
};

/** The claims table: claim, where the paper shows it, the measured differences, how many go the claim's way, verdict. */
export function captionerClaims(results: readonly CaptionerResult[], specs: readonly CaptionerClaimSpec[] = CAPTIONER_CLAIMS): Record<string, string>[] {
  return specs.map((spec) => {
    const diffs = claimDifferences(results, spec);
    const scale = (d: number) => `${d >= 0 ? '+' : '−'}${Math.abs(100 * d).toFixed(1)}`;
    const byPair = new Map<string, string[]>();
    for (const d of diffs) byPair.set(d.pair, [...(byPair.get(d.pair) ?? []), `${scale(d.difference)}${d.testable ? '' : ' (not testable)'}`]);
    const testable = diffs.filter((d) => d.testable);
    const measure = spec.measure.startsWith('judge:') ? `${spec.measure.slice(6)} %` : metricName(spec.measure);
    return {
      claim: spec.claim,
      paper: spec.source,
      here: [...byPair].map(([pair, ds]) => `${pair}: ${ds.join(' / ')}`).join('; '),
      'the claim’s way': `${testable.filter((d) => d.difference > 0).length} of ${testable.length} testable (${diffs.length} pairs)`,
      measure: `${measure} on ${spec.test}-like${spec.better === 'lower' ? ' (lower is better; sign flipped)' : ''}`,
      verdict: testableVerdict(diffs),
    };
  });
}

/** The claims with their numbers (every compared pair on every seed, ×100, > 0 the claim's way), for claimsFigure. */
export function captionerClaimList(results: readonly CaptionerResult[], specs: readonly CaptionerClaimSpec[] = CAPTIONER_CLAIMS): Claim[] {
  return specs.map((spec) => {
    const diffs = claimDifferences(results, spec);
    const differences = diffs.filter((d) => d.testable).map((d) => 100 * d.difference);
    return { claim: spec.claim, paper: spec.source, differences, verdict: testableVerdict(diffs) };
  });
}

/** The labels of the runs `results` has, in the grid's order (the figures' categories). */
const figureLabels = (results: readonly CaptionerResult[]) =>
  captionerVariants()
    .map((v) => v.label)
    .filter((l) => results.some((r) => r.rows.some((row) => row.label === l)));

/** A bar per run label of 100 × `measure` on `test`, the mean over seeds (unrounded, no error bars). */
const runMeanBar = (results: readonly CaptionerResult[], labels: string[], name: string, test: CaptionerTest, measure: CaptionerMeasure) => ({
  type: 'bar',
  name,
  x: labels,
  y: labels.map((l) => spread(rowsByLabel(results, l).map((r) => 100 * measureOf(r, test, measure))).mean),
});

/** Grouped bars: one trace per test, CIDEr ×100 (seed mean) of each run. */
export function captionerFigure(results: readonly CaptionerResult[]): { data: Record<string, unknown>[]; layout: Record<string, unknown> } {
  const labels = figureLabels(results);
  return {
    data: CAPTIONER_TESTS.map((test) => runMeanBar(results, labels, `${test}-like test`, test, 'CIDEr')),
    layout: { title: { text: 'CIDEr ×100 of each run on the three tests' }, barmode: 'group', yaxis: { title: { text: 'CIDEr ×100' } }, height: 380 },
  };
}

/** Bars of the judge's GOOD and CHAIR_s (%) on a test for each run. */
export function captionerJudgeFigure(
  results: readonly CaptionerResult[],
  test: CaptionerTest = 'flickr',
): { data: Record<string, unknown>[]; layout: Record<string, unknown> } {
  const labels = figureLabels(results);
  return {
    data: [
      runMeanBar(results, labels, 'GOOD (judge)', test, 'judge:good'),
      runMeanBar(results, labels, 'CHAIR_s: captions naming an absent object', test, 'judge:chairS'),
    ],
    layout: {
      title: { text: `The ground-truth judge on the ${test}-like captions (%)` },
      barmode: 'group',
      yaxis: { title: { text: '% of captions' }, range: [0, 100] },
      height: 380,
    },
  };
}
