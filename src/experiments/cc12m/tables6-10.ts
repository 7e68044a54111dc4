/**
 * CC12M Tables 6 and 10: Localized-Narratives-style data, on the world's `narratives` split (one long,
 * ~50-token narrative-style description per image; `cckit world build` writes it).
 *
 * - **Table 10** (narratives as a pre-training source): a variant of Table 3 whose pre-training pool is the
 *   narratives, used as plain captions, beside no pre-training, CC3M and CC12M; each row fine-tuned on COCO
 *   with Table 3's recipe and scored on nocaps val (CIDEr per domain, checkpoint chosen on val, test at the
 *   same checkpoint). The none / CC3M / CC12M rows are Table 3's own variants with Table 3's recipe, so
 *   their runs are Table 3's runs (same config, same inputs, same ids) and are read back, not trained; only
 *   the narratives row trains. Its pre-training gets `Recipe.narratives.pretrainSteps`, Table 3's step count at
 *   both presets: the paper gave every setting similar resources (app. E.5); the world's narrative pool is about
 *   1/15 of the CC12M-like pool, as Localized Narratives' 0.8M are of CC12M's 12.4M. Its fine-tuning is Table 3's.
 * - **Table 6** (captioning narratives): the narratives split is cut into a train part and a held-out test
 *   part (every `testEvery`-th image); a captioner is trained on the train part from scratch, or fine-tuned
 *   from Table 3's CC3M / CC12M pre-training runs, and captions the test part with long captions (the
 *   paper's maximum length is 180 tokens; the tiny and small Transformers' position tables hold 64, and the
 *   pre-trained runs they start from share them, so the length is capped there and the tables say by how
 *   much). Nothing is chosen on the test part: each run's last checkpoint captions it.
 *
 * The variants and stages are plain data (`table10Variants`, `table10Recipe`, `table6Config`); every step is
 * a run under `runs/` (reused when finished). The Table 10 narratives row and the Table 6 rows run side by
 * side in worker threads (`concurrency`, one per core).
 *
 * This module runs the tables (the narratives' files, the variants, Table 6's stage, the run and its worker jobs);
 * tables6-10-report.ts reports them (rows, claims, figure).
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { DECODE_PRESETS, type DecodeSettings } from '../../decode';
import { DEFAULT_TRANSFORMER } from '../../models/transformer';
import { readPredictions } from '../../runs/layout';
import { readEvalImages } from '../../train/data';
import type { TrainConfig } from '../../train/trainer';
import { captionTokens } from '../../text/vocab';
import { writeFileIfChanged } from '../../util/atomic';
import { readJsonFile } from '../../util/json';
import { experimentImageKeys, poolSizes, prepareWorldInputs, worldRoot } from '../inputs';
import type { ExperimentOptions } from '../options';
import { stageFrom, trainConfigFor, type Inputs, type NarrativesSection, type Recipe, type Table6Init } from '../recipe';
import { PREVIOUS_RUN, runPlan, type PlanEvaluation, type PlanRow, type RowOutcome } from '../plan';
import { featuresOf, pretrainConfig, variantResult, variantRow, type ResultRow, type Variant } from '../runner';
import { perImageOfSplits, type SplitsPerImage } from '../split-per-image';
import type { FeatureSpec } from '../visual';
import { perImageOfRows, type RowPerImage } from './per-image';

/** The paper's maximum caption length for narratives (paper-numbers.json: model.max_len_narratives). */
export const PAPER_NARRATIVES_MAX_LEN = 180;
/** Table 6's held-out split name in the run layout. */
export const NARRATIVES_TEST_SPLIT = 'narratives-test';
/** Table 10's rows: the pre-training pool (Table 3's none / CC3M / CC12M, and the narratives). */
export const TABLE10_SOURCES = ['none', 'cc3m', 'cc12m', 'narratives'] as const;

// ------------------------------------------------------------------ the narratives' files

/** The narratives' derived files: the pre-training pool (TSV) and Table 6's train / test annotations. */
export interface NarrativesFiles {
  source: string;
  pool: string;
  train: string;
  test: string;
  /** Folder the annotation files' `file_name`s are relative to (the source's). */
  imageRoot: string;
  counts: { images: number; train: number; test: number };
}

interface CocoLike {
  info?: unknown;
  licenses?: unknown;
  images: { id: number }[];
  annotations: { image_id: number; caption: string }[];
}

/** Image ids of the train and test parts: every `testEvery`-th image (positions testEvery−1, 2·testEvery−1, …) is test. */
export function splitNarratives(imageIds: readonly number[], testEvery: number): { train: number[]; test: number[] } {
  if (!(Number.isInteger(testEvery) && testEvery >= 2)) throw new Error(`narratives: testEvery must be an integer ≥ 2, got ${testEvery}`);
  const train: number[] = [];
  const test: number[] = [];
  imageIds.forEach((id, i) => ((i + 1) % testEvery === 0 ? test : train).push(id));
  return { train, test };
}

/** A caption as one TSV field: whitespace (tabs, newlines) folded to single spaces. */
const tsvField = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * From a COCO-format narratives file (the world's, or real data with a `coco_url` per image): the pool TSV
 * (`caption<TAB>image URL`, one line per narrative) and the train / test annotation files, written under
 * `outDir/narratives-<hash of the source>/`.
 */
export function narrativesFiles(source: string, outDir: string, testEvery: number): NarrativesFiles {
  const text = fs.readFileSync(source, 'utf8');
  const dir = path.join(outDir, `narratives-${crypto.createHash('sha256').update(text).digest('hex').slice(0, 12)}`);
  const coco = readJsonFile(source) as CocoLike;
  const images = readEvalImages({ path: source });
  // a pool TSV names each image by URL (its reader tells the columns apart by which one holds URLs)
  const local = images.find((i) => !/^(https?|world):\/\//.test(i.key));
  if (local) throw new Error(`${source}: image ${local.imageId} has no URL (world file, or a coco_url with http(s)://): a pre-training pool needs one`);
  const pool = path.join(dir, 'pool.tsv');
  writeFileIfChanged(pool, images.flatMap((img) => img.references.map((r) => `${tsvField(r)}\t${img.key}\n`)).join(''));
  const parts = splitNarratives(
    images.map((i) => Number(i.imageId)),
    testEvery,
  );
  const subset = (ids: readonly number[]): string => {
    const keep = new Set(ids);
    return JSON.stringify({
      ...coco,
      images: coco.images.filter((i) => keep.has(i.id)),
      annotations: coco.annotations.filter((a) => keep.has(a.image_id)),
    });
  };
  const train = path.join(dir, 'train.json');
  const test = path.join(dir, 'test.json');
  writeFileIfChanged(train, subset(parts.train));
  writeFileIfChanged(test, subset(parts.test));
  return { source, pool, train, test, imageRoot: path.dirname(source), counts: { images: images.length, train: parts.train.length, test: parts.test.length } };
}

/** The world's narratives file beside its other splits (the recipe's world, built by `prepareWorldInputs`). */
export function worldNarratives(recipe: Recipe, cacheDir = '.cckit-cache'): string {
  return path.join(worldRoot(recipe, cacheDir), 'narratives', 'captions.json');
}

// ------------------------------------------------------------------ Table 10: the variants

/** Inputs with the narratives pool beside CC3M's and CC12M's. */
export type NarrativesInputs = Inputs & { pools: Inputs['pools'] & { narratives: string } };

/**
 * The runner names a variant's pools by their key in `Inputs.pools` (typed for the two paper pools); the
 * narratives pool is one more key there, so its name is widened once, here.
 */
const NARRATIVES_POOL = 'narratives' as unknown as 'cc3m';

/** Table 10's rows: Table 3's none / CC3M / CC12M variants (same labels: the same runs) and the narratives. */
export function table10Variants(): Variant[] {
  return [
    { label: 'none', sources: [] },
    { label: 'cc3m', sources: ['cc3m'] },
    { label: 'cc12m', sources: ['cc12m'] },
    { label: 'narratives', sources: [NARRATIVES_POOL] },
  ];
}

/** The recipe of one Table 10 row: Table 3's, with the narratives row's pre-training steps (`recipe.narratives.pretrainSteps`). */
export function table10Recipe(recipe: Recipe, variant: Variant): Recipe {
  if (variant.label !== 'narratives') return recipe;
  return { ...recipe, pretrain: { ...recipe.pretrain, steps: recipe.narratives.pretrainSteps } };
}

// ------------------------------------------------------------------ Table 6: the stage

/**
 * Longest caption (tokens) Table 6 trains on and decodes: the paper's 180, capped by the Transformer's
 * position table (the decoder reads BOS + the caption; one position of margin).
 */
export function narrativeTokenCap(recipe: Recipe): number {
  if (recipe.model.kind !== 'transformer') return PAPER_NARRATIVES_MAX_LEN;
  const positions = Number(recipe.model.overrides?.maxPositions ?? DEFAULT_TRANSFORMER.maxPositions);
  return Math.min(PAPER_NARRATIVES_MAX_LEN, positions - 2);
}

/** Table 6's decoder: the narratives preset (beam 5, α 0.6, max 180) at the token cap. */
export function narrativesDecode(recipe: Recipe): DecodeSettings {
  return { ...DECODE_PRESETS.narratives, maxLen: narrativeTokenCap(recipe) };
}

/**
 * The TrainConfig of one Table 6 row: the recipe's fine-tuning stage with `recipe.narratives.captioning`'s steps,
 * batch and rate, on the narratives' train part, captions up to the token cap, no checkpoint selection (there is no
 * narratives val) and no validation; from a Table 3 pre-training run (its vocabulary extended) or from scratch.
 */
export function table6Config(recipe: Recipe, init: Table6Init, files: NarrativesFiles, pretrainRun?: string): TrainConfig {
  if ((init === 'none') !== (pretrainRun === undefined)) throw new Error(`table 6 row ${init}: ${init === 'none' ? 'no' : 'a'} pre-training run expected`);
  const stage = stageFrom(recipe, 'finetune', { ...recipe.narratives.captioning, maxCaptionLen: narrativeTokenCap(recipe) });
  return trainConfigFor(
    recipe,
    stage,
    {
      name: `narratives-from-${init}`,
      train: [{ kind: 'coco', path: files.train, imageRoot: files.imageRoot }],
      val: null,
      init: pretrainRun ? { fromRun: pretrainRun, vocab: 'keep' } : undefined,
    },
    { cocoVal: files.test },
  );
}

// ------------------------------------------------------------------ running

export const TABLE6_METRICS = ['BLEU-4', 'ROUGE-L', 'CIDEr'] as const;
export type Table6Metric = (typeof TABLE6_METRICS)[number];
const METRIC_NAMES: Record<Table6Metric, string> = { 'BLEU-4': 'Bleu_4', 'ROUGE-L': 'ROUGE_L', CIDEr: 'CIDEr' };

export interface Table6Row {
  init: Table6Init;
  run: string;
  pretrainRun?: string;
  /** ×100 on the held-out narratives. */
  scores: Record<Table6Metric, number>;
  /** Share of the test captions naming an object the image shows, and CHAIR_s (world data only). */
  recall?: number;
  chairS?: number;
  /** Mean tokens per generated caption, and per reference (as the vocabulary counts them). */
  tokens: number;
  referenceTokens: number;
  images: number;
}

export interface NarrativesResult {
  seed: number;
  /** The recipe's narratives section the rows were run with. */
  plan: NarrativesSection;
  /** Table 10's rows labelled none / cc3m / cc12m / narratives. */
  table10: ResultRow[];
  table6: Table6Row[];
  /** Pairs per pre-training pool (cc3m, cc12m, narratives). */
  pools: Record<string, number>;
  narratives: NarrativesFiles['counts'] & { tokenCap: number; longest: number; cut: number };
  seconds: number;
  /**
   * Per-image CIDEr-D read back from the captions the runs stored, for the claims' bootstrap intervals (not read
   * yet): Table 10's rows on nocaps val and test, fine-tuned and zero-shot (as Table 3's, `perImageOfRows`), Table 6's
   * rows on the narratives' test part (`test`, by initialisation). Absent in results made before it existed.
   */
  perImage?: { table10: Record<string, RowPerImage>; table6: Record<string, SplitsPerImage<'test'>> };
  /** Why a row's split has no per-image scores (no stored captions, or they do not give the row's scores). */
  perImageNotes?: string[];
}

/**
 * One Table 6 row as a plan row: Table 3's pre-training run of its source (none: no stage), then the narratives
 * stage from it, its last checkpoint captioning the test part with the narratives decoder.
 */
export function table6Row(recipe: Recipe, init: Table6Init, inputs: NarrativesInputs, files: NarrativesFiles, features: FeatureSpec): PlanRow {
  const pretrain = init === 'none' ? undefined : pretrainConfig(recipe, { label: init, sources: [init] }, inputs);
  const test: PlanEvaluation = { split: NARRATIVES_TEST_SPLIT, images: { path: files.test, imageRoot: files.imageRoot }, decode: narrativesDecode(recipe) };
  return {
    label: `table 6 ${init}`,
    features,
    stages: [
      ...(pretrain ? [{ configs: [pretrain] }] : []),
      { configs: [table6Config(recipe, init, files, pretrain ? PREVIOUS_RUN : undefined)], evaluations: [test] },
    ],
  };
}

/** A Table 6 row's result from its plan row's outcome: the test part's scores and caption lengths. */
export function table6Result(init: Table6Init, outcome: RowOutcome, files: NarrativesFiles): Table6Row {
  const pretrain = outcome.stages.length > 1 ? outcome.stages[0] : undefined;
  const fine = outcome.stages.at(-1)!;
  const scores = fine.evaluations[NARRATIVES_TEST_SPLIT]!.scores;
  const images = readEvalImages({ path: files.test, imageRoot: files.imageRoot });
  const predictions = readPredictions(fine.run.dir, NARRATIVES_TEST_SPLIT).items;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    init,
    run: fine.run.id,
    ...(pretrain ? { pretrainRun: pretrain.run.id } : {}),
    scores: Object.fromEntries(TABLE6_METRICS.map((m) => [m, 100 * (scores.corpus[METRIC_NAMES[m]] ?? NaN)])) as Record<Table6Metric, number>,
    ...(scores.grounding ? { recall: scores.grounding.overall.recall, chairS: scores.grounding.overall.chairS } : {}),
    tokens: mean(predictions.map((p) => captionTokens(p.caption).length)),
    referenceTokens: mean(images.flatMap((i) => i.references.map((r) => captionTokens(r).length))),
    images: predictions.length,
  };
}

/**
 * Tables 6 and 10 for one seed: the world (or real files) and Table 3's pools, the narratives' files, then one plan
 * of Table 10's variants and Table 6's rows (Table 3's finished runs are read back).
 */
export async function runNarratives(recipe: Recipe, options: ExperimentOptions): Promise<NarrativesResult> {
  const started = Date.now();
  const plan = recipe.narratives;
  const base = await prepareWorldInputs(recipe, options);
  const cacheDir = options.cacheDir ?? '.cckit-cache';
  const source = plan.data ?? worldNarratives(recipe, cacheDir);
  const files = narrativesFiles(source, path.join(cacheDir, 'narratives'), plan.testEvery);
  const inputs: NarrativesInputs = { ...base, pools: { ...base.pools, narratives: files.pool } };
  const features = featuresOf(recipe, options);
  const variants = table10Variants();
  const rows = [
    ...variants.map((variant) => variantRow(table10Recipe(recipe, variant), variant, inputs, features)),
    ...plan.inits.map((init) => table6Row(recipe, init, inputs, files, features)),
  ];
  const table6At = (k: number) => variants.length + k;
  // the long rows first, so that the two lanes finish together (the narratives' pre-training, then Table 6's);
  // Table 3's rows are only read back
  const narrativesRow = variants.findIndex((v) => v.label === 'narratives');
  const order = [narrativesRow, ...plan.inits.map((_, k) => table6At(k)), ...variants.map((_, i) => i).filter((i) => i !== narrativesRow)];
  const outcomes = await runPlan({ rows, prepare: { spec: features, keys: await experimentImageKeys(inputs) }, order }, options);
  const ordered10 = variants.map((variant, i) => variantResult(table10Recipe(recipe, variant), outcomes[i]!));
  const ordered6 = plan.inits.map((init, k) => table6Result(init, outcomes[table6At(k)]!, files));
  const lengths = readEvalImages({ path: files.source }).flatMap((i) => i.references.map((r) => captionTokens(r).length));
  const cap = narrativeTokenCap(recipe);
  return {
    seed: recipe.seed,
    plan,
    table10: ordered10,
    table6: ordered6,
    pools: poolSizes(inputs),
    narratives: { ...files.counts, tokenCap: cap, longest: Math.max(...lengths), cut: lengths.filter((n) => n > cap).length },
    seconds: (Date.now() - started) / 1000,
    ...narrativesPerImage(ordered10, ordered6, options.runsRoot ?? 'runs'),
  };
}

/**
 * Per-image CIDEr-D of Tables 10 and 6 from the runs' stored captions: Table 10's rows as Table 3's (`perImageOfRows`),
 * Table 6's on the narratives' test part (`perImageOfSplits`); the notes name their table.
 */
export function narrativesPerImage(
  table10: readonly ResultRow[],
  table6: readonly Table6Row[],
  runsRoot: string,
): Pick<NarrativesResult, 'perImage' | 'perImageNotes'> {
  const of10 = perImageOfRows(table10, runsRoot);
  const of6 = perImageOfSplits(
    table6.map((r) => ({ row: r.init, key: 'test' as const, run: r.run, split: NARRATIVES_TEST_SPLIT, cider: r.scores.CIDEr })),
    runsRoot,
  );
  const notes = [...of10.notes.map((n) => `Table 10 ${n}`), ...of6.notes.map((n) => `Table 6 ${n}`)];
  return { perImage: { table10: of10.perImage, table6: of6.perImage }, ...(notes.length > 0 ? { perImageNotes: notes } : {}) };
}
