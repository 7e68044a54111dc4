/**
 * CC12M Table 8: image–text retrieval with the vision-and-language matching (VLM) model of §3.3,
 * pre-trained on none / CC3M / CC12M / CC3M+CC12M with the contrastive VLM objective, then fine-tuned
 * on the retrieval set's training images, and scored on its test images: Recall@1/5/10 image→text and
 * text→image; plus the pre-trained models zero-shot (no fine-tuning).
 *
 * Everything comes from the one Recipe (src/experiments/recipe.ts): `recipe.retrieval` holds the
 * matching model's size, both stages, the test share and optional real data; the world, seed,
 * filters, features (with the recipe's tags, which the matching model's image side reads as the CC12M encoder
 * does, §3.3),
 * vocabulary minimum count, caption length, rows and the zero-shot switch are the recipe's own.
 *
 * Both stages are ordinary runs of the one training loop (src/train/trainer.ts): the `matching`
 * model kind (src/models/matching.ts: its own image encoder over the frozen visual features and its
 * own text encoder) with the `vlm` objective, its symmetric InfoNCE over batches of distinct images
 * (one of an image's captions, drawn per epoch), so no positive is counted as a negative. Each run
 * has its run.json, log.jsonl, checkpoints, lock and resume; fine-tuning starts from the pre-training
 * run's whole model (text encoder included) and keeps its vocabulary, extended by the fine-tuning
 * captions' new words.
 *
 * On the embedded world the retrieval set is the world's Flickr-like split (5 captions per image),
 * divided by image, with a seeded permutation, into a fine-tuning part (written beside the split as
 * a COCO-format file, the fine-tuning run's data) and a test part; `retrieval.data` points the recipe
 * at real files instead (pools, and Flickr-style COCO-format train and test).
 *
 * Each run's recalls, with each query's rank behind them and the test set's digest, are stored in the run
 * (`retrieval/retrieval-test.json`, the executor's retrieval evaluation) and read back when the test set is
 * unchanged; from the ranks the result keeps every query's hit or miss per direction and K (`perQuery`).
 *
 * This module runs the table (inputs, run configs, the plan); its scoring is src/experiments/retrieval-scoring.ts,
 * table8-report.ts reports it (rows, claims, figure).
 */
import * as path from 'path';

import { readCocoAnnotations, type CocoCaptionFile } from '../../data/coco';
import { hitsAt } from '../../metrics/retrieval';
import { readLog } from '../../runs/layout';
import { retrievalSetDigest, type Recalls } from '../retrieval-scoring';
import { type DataSource, type EvalImage, fileDigest, readEvalImages, readExamples } from '../../train/data';
import { loadRunMatchingModel } from '../../train/load';
import type { ModelSpec } from '../../train/models';
import type { TrainConfig } from '../../train/trainer';
import { writeFileIfChanged } from '../../util/atomic';
import { readJsonFile } from '../../util/json';
import { mixSeed, seededRandom, shuffled } from '../../util/random';
import { prepareWorldInputs } from '../inputs';
import type { ExperimentOptions } from '../options';
import { stageFrom, trainConfigFor, type PretrainSource, type Recipe, type StageRecipe } from '../recipe';
import { PREVIOUS_RUN, readRetrieval, runPlan, type PlanRow, type SplitImages, type StoredRetrieval } from '../plan';
import { SAME_SCORES } from '../split-per-image';
import type { FeatureSpec } from '../visual';

/** The pools a row pre-trains on. */
export function table8Sources(row: PretrainSource): ('cc3m' | 'cc12m')[] {
  return row === 'none' ? [] : row === 'cc3m+cc12m' ? ['cc3m', 'cc12m'] : [row];
}

// ------------------------------------------------------------------ data

/**
 * Splits retrieval images by a seeded permutation: the first `testFraction` of it is the test set,
 * the rest the fine-tuning set (each image with all its captions on one side).
 */
export function splitRetrieval(images: readonly EvalImage[], testFraction: number, seed: number): { train: EvalImage[]; test: EvalImage[] } {
  if (!(testFraction > 0 && testFraction < 1)) throw new Error(`table8: testFraction must be in (0, 1), got ${testFraction}`);
  const order = shuffled(
    seededRandom(mixSeed(seed, 0x7ab8)),
    images.map((_, i) => i),
  );
  const nTest = Math.max(1, Math.min(images.length - 1, Math.round(images.length * testFraction)));
  const test = new Set(order.slice(0, nTest));
  return { train: images.filter((_, i) => !test.has(i)), test: images.filter((_, i) => test.has(i)) };
}

/** What Table 8 trains and scores on: the two pools, the retrieval set's fine-tuning source and both parts, their digests. */
export interface Table8Inputs {
  pools: Record<'cc3m' | 'cc12m', string>;
  /** The fine-tuning run's data: the retrieval set's training part (COCO format). */
  finetune: DataSource;
  train: EvalImage[];
  test: EvalImage[];
  /** Where the test part is, for the executor's retrieval evaluation. */
  testImages: SplitImages;
  /** Content digests of the retrieval set (the stored recalls are read back only for the same test set). */
  digests: Record<string, string>;
}

/**
 * The retrieval set's two parts: the world's Flickr-like split divided by image (its training part
 * written beside it as a COCO-format file), or `recipe.retrieval.data`'s files.
 */
export async function table8Inputs(recipe: Recipe, options: ExperimentOptions): Promise<Table8Inputs> {
  const data = recipe.retrieval.data;
  if (data) {
    const finetune: DataSource = { kind: 'coco', path: data.retrievalTrain, ...(data.imageRoot ? { imageRoot: data.imageRoot } : {}) };
    return {
      pools: data.pools,
      finetune,
      train: readEvalImages(finetune),
      test: readEvalImages({ path: data.retrievalTest, imageRoot: data.imageRoot }),
      testImages: { path: data.retrievalTest, ...(data.imageRoot ? { imageRoot: data.imageRoot } : {}) },
      digests: { retrievalTrain: fileDigest(data.retrievalTrain), retrievalTest: fileDigest(data.retrievalTest) },
    };
  }
  // the world and its two filtered pools, as Table 3 builds them (same folders, reused)
  const inputs = await prepareWorldInputs(recipe, options);
  if (!inputs.worldRoot) throw new Error('table8: the recipe has real data but no retrieval.data (the Flickr-style retrieval files)');
  const flickr = path.join(inputs.worldRoot, 'flickr', 'captions.json');
  readCocoAnnotations(flickr); // fails early with the file's name when it is not there
  const { train, test } = splitRetrieval(readEvalImages({ path: flickr }), recipe.retrieval.testFraction, recipe.seed);
  const trainFile = path.join(path.dirname(flickr), `retrieval-train-seed${recipe.seed}-test${recipe.retrieval.testFraction}.json`);
  const all = readJsonFile(flickr) as CocoCaptionFile;
  const trainIds = new Set(train.map((i) => Number(i.imageId)));
  const part: CocoCaptionFile = {
    ...all,
    images: all.images.filter((i) => trainIds.has(i.id)),
    annotations: all.annotations.filter((a) => trainIds.has(a.image_id)),
  };
  writeFileIfChanged(trainFile, JSON.stringify(part));
  // the test part as the list of images the retrieval evaluation reads
  const testFile = path.join(path.dirname(flickr), `retrieval-test-seed${recipe.seed}-test${recipe.retrieval.testFraction}.json`);
  writeFileIfChanged(testFile, JSON.stringify(test));
  return {
    pools: inputs.pools,
    finetune: { kind: 'coco', path: trainFile },
    train,
    test,
    testImages: { list: testFile },
    digests: { flickr: fileDigest(flickr) },
  };
}

// ------------------------------------------------------------------ runs

/** The matching model of the recipe's retrieval size (the trainer's `matching` kind), reading tags when the features have them. */
export function table8ModelSpec(recipe: Recipe): ModelSpec {
  return { kind: 'matching', size: recipe.retrieval.model.size, ...(recipe.features.tags ? { overrides: { tagInputs: true } } : {}) };
}

/** The matching model's `stage`: the recipe's captioner stage of that name with `retrieval[stage]`'s changes, on the matching model. */
export function retrievalStage(recipe: Recipe, stage: 'pretrain' | 'finetune'): StageRecipe {
  return { ...stageFrom(recipe, stage, recipe.retrieval[stage]), model: table8ModelSpec(recipe) };
}

/** One stage of a row as a trainer config: the matching model, the vlm objective alone, the stage's Adam schedule and clipping. */
export function table8TrainConfig(
  recipe: Recipe,
  stage: 'pretrain' | 'finetune',
  row: PretrainSource,
  train: DataSource[],
  init?: TrainConfig['init'],
): TrainConfig {
  // no validation: the recalls are scored after the stage; its checkpoints (four a stage, at least 50 steps apart) are what a killed run resumes from
  return trainConfigFor(recipe, retrievalStage(recipe, stage), { name: `table8-${stage}-${row}`, train, val: null, init }, { cocoVal: '' });
}

/**
 * One row as a plan row: the matching model pre-trained on the row's pools (none: no stage), then fine-tuned on the
 * retrieval set's training part from it; each scored on the test part by retrieval (the pre-trained one zero-shot).
 */
export function table8Row(
  recipe: Recipe,
  row: PretrainSource,
  inputs: Pick<Table8Inputs, 'pools' | 'finetune' | 'testImages'>,
  features: FeatureSpec,
): PlanRow {
  const sources = table8Sources(row);
  const pretrain =
    sources.length > 0
      ? table8TrainConfig(
          recipe,
          'pretrain',
          row,
          sources.map((s) => ({ kind: 'tsv', path: inputs.pools[s] })),
        )
      : undefined;
  const finetune = table8TrainConfig(recipe, 'finetune', row, [inputs.finetune], pretrain ? { fromRun: PREVIOUS_RUN, vocab: 'keep' } : undefined);
  const retrievals = [{ split: RETRIEVAL_TEST_SPLIT, images: inputs.testImages, maxCaptionLen: recipe.maxCaptionLen }];
  return {
    label: `table8 ${row}`,
    features,
    // the pre-trained model is scored too (zero-shot) when the recipe asks
    stages: [...(pretrain ? [{ configs: [pretrain], ...(recipe.zeroShot ? { retrievals } : {}) }] : []), { configs: [finetune], retrievals }],
  };
}

/** The contrastive loss at a run's last logged step. */
function lastLoss(runDir: string): number {
  const line = readLog(runDir)
    .filter((l) => l.loss?.vlm !== undefined)
    .at(-1);
  if (!line) throw new Error(`${runDir}: no loss in its log`);
  return line.loss!.vlm!;
}

// ------------------------------------------------------------------ the table

export interface Table8Row {
  pretraining: PretrainSource;
  /** The row's fine-tuning run (a folder under the runs root). */
  run: string;
  /** The row's pre-training run (absent for `none`). */
  pretrainRun?: string;
  finetuned: Recalls;
  /** The pre-trained model before fine-tuning (absent for `none`, or with zeroShot off). */
  zeroShot?: Recalls;
  /** The contrastive loss at the last logged step of each stage. */
  finalLoss: { pretrain?: number; finetune: number };
  /** The learned temperature τ at the end of each stage. */
  temperature?: { pretrain?: number; finetune: number };
  /** Pairs the row pre-trained on. */
  pretrainPairs: number;
  /** Whether this call trained either of the row's runs (false: both read back finished). */
  trained: boolean;
}

/** Per-query hits of one setting of a row, by direction and K: 1 where the query hits, else 0; the mean ×100 is the recall. */
export type QueryHits = Record<'imageToText' | 'textToImage', Record<'R@1' | 'R@5' | 'R@10', number[]>>;

/** A row's per-query hits, fine-tuned and zero-shot (where it has the setting's recalls and their stored ranks). */
export interface RowHits {
  finetuned?: QueryHits;
  zeroShot?: QueryHits;
}

export interface Table8Result {
  seed: number;
  rows: Table8Row[];
  /** Images and captions of each part of the retrieval set; pairs per pool. */
  sizes: { trainImages: number; trainCaptions: number; testImages: number; testCaptions: number; pools: Record<string, number> };
  seconds: number;
  /**
   * Per-query hits behind each row's recalls (by pre-training data): image→text one per test image, text→image one
   * per test caption (the images' captions in order), the same queries in every row; each vector's mean ×100 is the
   * row's Recall@K. From the ranks stored beside the recalls, for the claims' bootstrap intervals (not read yet).
   * Absent in results made before it existed.
   */
  perQuery?: Record<string, RowHits>;
  /** Why a row's setting has no per-query hits (ranks not stored, or their hits do not give the row's recalls). */
  perQueryNotes?: string[];
}

/** The retrieval evaluation's split name: each run's recalls and ranks are stored as `retrieval/<split>.json`. */
export const RETRIEVAL_TEST_SPLIT = 'retrieval-test';

/**
 * Runs Table 8 for one seed: per row, pre-train the matching model on its pools (none: skip) and
 * fine-tune it on the retrieval set's training part, both runs of the one trainer (reused or
 * resumed as any run is); score the fine-tuned model, and the pre-trained one zero-shot, on the
 * test part.
 */
export async function runTable8(recipe: Recipe, options: ExperimentOptions): Promise<Table8Result> {
  const started = Date.now();
  const inputs = await table8Inputs(recipe, options);
  const spec: FeatureSpec = { ...recipe.features, cacheDir: options.features?.cacheDir ?? options.cacheDir };
  const poolPairs: Record<string, number> = {};
  const keys = new Set([...inputs.train, ...inputs.test].map((i) => i.key));
  for (const s of ['cc3m', 'cc12m'] as const) {
    const pool = await readExamples({ kind: 'tsv', path: inputs.pools[s] });
    poolPairs[s] = pool.length;
    for (const example of pool) keys.add(example.key);
  }
  // every image a stage trains on or a retrieval reads: features are extracted once, here (one writer)
  const plan = { rows: recipe.rows.map((row) => table8Row(recipe, row, inputs, spec)), prepare: { spec, keys: [...keys] } };
  const outcomes = await runPlan(plan, options);
  const rows: Table8Row[] = [];
  for (const [r, row] of recipe.rows.entries()) {
    const stages = outcomes[r]!.stages;
    const pretrain = stages.length > 1 ? stages[0] : undefined;
    const finetune = stages.at(-1)!;
    const finetuned = finetune.retrievals[RETRIEVAL_TEST_SPLIT]!.scores;
    const zeroShot = pretrain?.retrievals[RETRIEVAL_TEST_SPLIT]?.scores;
    const pretrainTemperature = pretrain ? (zeroShot?.temperature ?? (await learnedTemperature(pretrain.run.dir))) : undefined;
    rows.push({
      pretraining: row,
      run: finetune.run.id,
      ...(pretrain ? { pretrainRun: pretrain.run.id } : {}),
      finetuned: finetuned.recalls,
      ...(zeroShot ? { zeroShot: zeroShot.recalls } : {}),
      finalLoss: { ...(pretrain ? { pretrain: lastLoss(pretrain.run.dir) } : {}), finetune: lastLoss(finetune.run.dir) },
      temperature: { ...(pretrainTemperature !== undefined ? { pretrain: pretrainTemperature } : {}), finetune: finetuned.temperature },
      pretrainPairs: table8Sources(row).reduce((n, s) => n + poolPairs[s]!, 0),
      trained: finetune.run.stepsRun > 0 || (pretrain?.run.stepsRun ?? 0) > 0,
    });
  }
  const finetuneCaptions = inputs.train.reduce((n, i) => n + i.references.length, 0);
  return {
    seed: recipe.seed,
    rows,
    sizes: {
      trainImages: inputs.train.length,
      trainCaptions: finetuneCaptions,
      testImages: inputs.test.length,
      testCaptions: inputs.test.reduce((n, i) => n + i.references.length, 0),
      pools: poolPairs,
    },
    seconds: (Date.now() - started) / 1000,
    ...table8PerQuery(rows, options.runsRoot ?? 'runs', retrievalSetDigest(inputs.test)),
  };
}

/**
 * Each row's per-query hits from the ranks its runs stored (`retrieval/retrieval-test.json`: the fine-tuning run's,
 * and the pre-training run's for zero-shot) for the test set of digest `test`: kept for a setting only where every direction and K's hits have the row's recall as their mean ×100;
 * otherwise (no ranks stored, ranks of another test set, hits that give other recalls) a note says why.
 */
export function table8PerQuery(rows: readonly Table8Row[], runsRoot: string, test: string): Pick<Table8Result, 'perQuery' | 'perQueryNotes'> {
  const perQuery: Record<string, RowHits> = {};
  const notes: string[] = [];
  for (const row of rows) {
    const found: RowHits = {};
    perQuery[row.pretraining] = found;
    for (const which of ['finetuned', 'zeroShot'] as const) {
      const recalls = row[which];
      const run = which === 'finetuned' ? row.run : row.pretrainRun;
      if (!recalls || !run) continue;
      const where = `${row.pretraining} ${which} (${run})`;
      let stored: StoredRetrieval | undefined;
      try {
        stored = readRetrieval(path.join(runsRoot, run), RETRIEVAL_TEST_SPLIT);
      } catch (e) {
        notes.push(`${where}: ${(e as Error).message}`);
        continue;
      }
      if (!stored) {
        notes.push(`${where}: no stored ranks`);
        continue;
      }
      if (stored.test !== test) {
        notes.push(`${where}: the stored ranks are of another test set`);
        continue;
      }
      const { ranks } = stored;
      const hits = {} as QueryHits;
      const gaps: string[] = [];
      for (const direction of ['imageToText', 'textToImage'] as const) {
        hits[direction] = {} as QueryHits[typeof direction];
        for (const k of ['R@1', 'R@5', 'R@10'] as const) {
          const h = hitsAt(ranks[direction], Number(k.slice(2)));
          hits[direction][k] = h;
          // ×100 of the share, as the recalls are (`toPercent`): the same number, bit for bit
          const mean = 100 * (h.reduce((a, b) => a + b, 0) / h.length);
          const gap = Math.abs(mean - recalls[direction][k]);
          if (gap > SAME_SCORES || !Number.isFinite(gap))
            gaps.push(`${direction} ${k}: the stored ranks give ${mean.toFixed(2)}, the row ${recalls[direction][k].toFixed(2)}`);
        }
      }
      if (gaps.length > 0) notes.push(`${where}: ${gaps.join('; ')}`);
      else found[which] = hits;
    }
  }
  return { perQuery, ...(notes.length > 0 ? { perQueryNotes: notes } : {}) };
}

/** A matching run's learned temperature (when its zero-shot recalls are not scored). */
async function learnedTemperature(runDir: string): Promise<number> {
  const { model } = await loadRunMatchingModel(runDir);
  try {
    return model.temperature();
  } finally {
    model.dispose();
  }
}
