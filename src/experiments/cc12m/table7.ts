/**
 * CC12M Table 7: the CC3M benchmark. Each pre-training source (none / CC3M / CC12M / both) is fine-tuned on
 * CC3M's own train split and scored on its dev (validation) and test splits with the CC3M leaderboard's
 * metrics (CIDEr, ROUGE-L, SPICE; BLEU-4 and METEOR beside them).
 *
 * The CC3M-like splits are the CC3M-filtered web pool split by URL hash, as notebook 02's Table 3 splits it
 * (`splitOf`, 10% dev, 10% test). Held-out images must not be seen in pre-training, so the pools are cut
 * first: every row whose URL is a dev or test URL is dropped from both pools (the CC12M pool holds most of
 * the CC3M images under other captions). That makes the pools differ from Table 3's, so Table 7 trains its own
 * pre-training runs (their names start `table7-`); only the features are shared.
 *
 * Fine-tuning is Table 3's stage (steps, rate, checkpoints every `select.every` steps) on the CC3M-like train
 * split; the checkpoint is chosen on dev CIDEr (as Table 3 chooses on nocaps val) and test is captioned at it.
 * With real data the three splits are files (CC3M's train / validation TSVs and a test TSV with captions),
 * and their dev and test URLs are dropped from the given pools in the same way.
 *
 * paper-numbers.json holds no Table 7 number: the paper column reads n/a. The claims are the paper's
 * direction: pre-training helps on the CC3M benchmark, and CC12M helps more than CC3M.
 */
import * as fs from 'fs';
import * as path from 'path';

import { readScores } from '../../runs/layout';
import { readExamples, type EvalImage } from '../../train/data';
import type { TrainConfig } from '../../train/trainer';
import { writeFileIfChanged } from '../../util/atomic';
import { cocoTestScores, type Table5Metric } from './table5';
import { DEFAULT_URL_SPLIT_FRACTIONS, splitOf, type SplitFractions } from '../cc3m-dataset';
import { readWebTruth } from '../world-stats';
import { TABLE3_SOURCES, trainConfigFor, type Inputs, type PretrainSource, type Recipe } from '../recipe';
import { experimentImageKeys, prepareWorldInputs } from '../inputs';
import type { ExperimentOptions } from '../options';
import { PREVIOUS_RUN, runPlan, type PlanEvaluation, type PlanRow, type RowOutcome } from '../plan';
import { featuresOf } from '../runner';
import { formatSpread, spread } from '../seeds';
import { seedMeanBar } from '../figures';
import { claimOver, NO_PAPER_NUMBER, type Claim } from '../claims';
import { perImageFields, perImageOfSplits, type SplitsPerImage } from '../split-per-image';
import type { FeatureSpec } from '../visual';

export const CC3M_DEV_SPLIT = 'cc3m-dev';
export const CC3M_TEST_SPLIT = 'cc3m-test';
/** The columns: the CC3M leaderboard's three first, then BLEU-4 and METEOR. */
export const TABLE7_METRICS = ['CIDEr', 'ROUGE-L', 'SPICE', 'BLEU-4', 'METEOR'] as const satisfies readonly Table5Metric[];
export type Table7Metric = (typeof TABLE7_METRICS)[number];

/** Real CC3M benchmark files (caption-first TSVs, as CC3M ships them): train, dev (CC3M's validation) and test. */
export interface Table7RealSplits {
  train: string;
  dev: string;
  test: string;
}

/** The benchmark's files under `<cache>/…/cc3m-benchmark/`: the splits, and the pools without the held-out URLs. */
export interface Table7Files {
  train: string;
  /** EvalImage[] JSON: one reference each; on the world, each image's objects for the judge. */
  dev: string;
  test: string;
  pools: Inputs['pools'];
  counts: { train: number; dev: number; test: number; droppedFromPools: Record<'cc3m' | 'cc12m', number> };
}

type Row = { caption: string; url: string };
const tsvRows = async (file: string): Promise<Row[]> => (await readExamples({ kind: 'tsv', path: file })).map((e) => ({ caption: e.caption, url: e.key }));

const tsvText = (rows: readonly Row[]): string => rows.map((r) => `${r.caption.replace(/\s+/g, ' ').trim()}\t${r.url}\n`).join('');

/** Held-out rows as evaluation images: one image per URL with every caption it has as a reference. */
export function benchmarkImages(rows: readonly Row[], truth?: ReadonlyMap<string, readonly string[]>): EvalImage[] {
  const byUrl = new Map<string, string[]>();
  for (const r of rows) byUrl.set(r.url, [...(byUrl.get(r.url) ?? []), r.caption]);
  return [...byUrl].map(([url, references], i) => {
    const objects = truth?.get(url);
    return { key: url, imageId: i, references, ...(objects ? { objects: [...objects] } : {}) };
  });
}

/** Rows of a pool whose image is not held out, and how many were dropped. */
export function withoutHeldOut(rows: readonly Row[], heldOut: ReadonlySet<string>): { kept: Row[]; dropped: number } {
  const kept = rows.filter((r) => !heldOut.has(r.url));
  return { kept, dropped: rows.length - kept.length };
}

/**
 * The benchmark's splits and cut pools. World: the CC3M pool split by URL hash (`fractions`), objects from
 * the world's truth. Real: the given split files. Either way the dev and test URLs leave both pools.
 */
export async function table7Files(
  inputs: Inputs,
  outDir: string,
  options: { fractions?: SplitFractions; real?: Table7RealSplits; truthFile?: string } = {},
): Promise<Table7Files> {
  const poolRows = { cc3m: await tsvRows(inputs.pools.cc3m), cc12m: await tsvRows(inputs.pools.cc12m) };
  let train: Row[];
  let dev: Row[];
  let test: Row[];
  if (options.real) {
    [train, dev, test] = await Promise.all([options.real.train, options.real.dev, options.real.test].map(tsvRows));
  } else {
    const fractions = options.fractions ?? DEFAULT_URL_SPLIT_FRACTIONS;
    const parts: Record<'train' | 'validation' | 'test', Row[]> = { train: [], validation: [], test: [] };
    for (const row of poolRows.cc3m) parts[splitOf(row.url, fractions)].push(row);
    ({ train, validation: dev, test } = parts);
  }
  const heldOut = new Set([...dev, ...test].map((r) => r.url));
  const leak = train.find((r) => heldOut.has(r.url));
  if (leak) throw new Error(`CC3M benchmark: image ${leak.url} is in train and in dev or test`);
  const truth = options.truthFile && fs.existsSync(options.truthFile) ? readWebTruth(options.truthFile) : undefined;
  const objects = truth ? new Map([...truth].map(([url, t]) => [url, t.concepts])) : undefined;
  const files = {
    train: path.join(outDir, 'train.tsv'),
    dev: path.join(outDir, 'dev.json'),
    test: path.join(outDir, 'test.json'),
    pools: { cc3m: path.join(outDir, 'pool-cc3m.tsv'), cc12m: path.join(outDir, 'pool-cc12m.tsv') },
  };
  writeFileIfChanged(files.train, tsvText(train));
  writeFileIfChanged(files.dev, JSON.stringify(benchmarkImages(dev, objects)));
  writeFileIfChanged(files.test, JSON.stringify(benchmarkImages(test, objects)));
  const dropped = { cc3m: 0, cc12m: 0 };
  for (const pool of ['cc3m', 'cc12m'] as const) {
    const cut = withoutHeldOut(poolRows[pool], heldOut);
    dropped[pool] = cut.dropped;
    writeFileIfChanged(files.pools[pool], tsvText(cut.kept));
  }
  return {
    ...files,
    counts: { train: train.length, dev: new Set(dev.map((r) => r.url)).size, test: new Set(test.map((r) => r.url)).size, droppedFromPools: dropped },
  };
}

const slugOf = (label: string): string => label.replace(/[^\w.+-]+/g, '-');
const sourcesOf = (label: PretrainSource): ('cc3m' | 'cc12m')[] => (label === 'none' ? [] : (label.split('+') as ('cc3m' | 'cc12m')[]));

/** The pre-training TrainConfig of a row: Table 3's stage on the cut pools (undefined for `none`). */
export function table7PretrainConfig(recipe: Recipe, label: PretrainSource, files: Table7Files, inputs: Inputs): TrainConfig | undefined {
  const sources = sourcesOf(label);
  if (sources.length === 0) return undefined;
  return trainConfigFor(
    recipe,
    recipe.pretrain,
    { name: `table7-pretrain-${slugOf(label)}`, train: sources.map((s) => ({ kind: 'tsv' as const, path: files.pools[s] })) },
    inputs,
  );
}

/**
 * The fine-tuning TrainConfig of a row: Table 3's fine-tuning stage (checkpoints every `select.every` steps, all
 * kept) on the CC3M-like train split, from the row's pre-training run; no COCO validation loss (not this benchmark).
 */
export function table7FinetuneConfig(recipe: Recipe, label: PretrainSource, files: Table7Files, inputs: Inputs, pretrainRun?: string): TrainConfig {
  if ((label === 'none') !== (pretrainRun === undefined)) throw new Error(`table 7 row ${label}: ${label === 'none' ? 'no' : 'a'} pre-training run expected`);
  return trainConfigFor(
    recipe,
    recipe.finetune,
    {
      name: `table7-finetune-cc3m-from-${slugOf(label)}`,
      train: [{ kind: 'tsv', path: files.train }],
      val: null,
      init: pretrainRun ? { fromRun: pretrainRun, vocab: 'keep' } : undefined,
    },
    inputs,
  );
}

export interface Table7SplitScores {
  /** ×100. */
  scores: Record<Table7Metric, number>;
  images: number;
  /** The judge's share of captions naming an object the image shows, and CHAIR_s (world data only). */
  recall?: number;
  chairS?: number;
}

export interface Table7Row {
  pretraining: PretrainSource;
  pretrainRun?: string;
  run: string;
  /** Dev CIDEr (×100) of each checkpoint, and the step chosen (best dev CIDEr; ties to the earlier). */
  candidates: { step: number; cider: number }[];
  step: number;
  dev: Table7SplitScores;
  test: Table7SplitScores;
}

export interface Table7Result {
  seed: number;
  rows: Table7Row[];
  counts: Table7Files['counts'];
  /** Pairs in each cut pool. */
  pools: Record<'cc3m' | 'cc12m', number>;
  seconds: number;
  /**
   * Per-image CIDEr-D of each row's dev and test captions (by pre-training data; `dev`, `test`), read back from the
   * captions its fine-tuning run stored, for the claims' bootstrap intervals (not read yet). Absent in results made
   * before it existed.
   */
  perImage?: Record<string, SplitsPerImage<'dev' | 'test'>>;
  /** Why a row's split has no per-image scores (no stored captions, or they do not give the row's CIDEr). */
  perImageNotes?: string[];
}

function splitScores(runDir: string, split: string): Table7SplitScores {
  const { scores, images } = cocoTestScores(runDir, split);
  const grounding = readScores(runDir, split)?.grounding;
  return {
    scores: Object.fromEntries(TABLE7_METRICS.map((m) => [m, scores[m]])) as Record<Table7Metric, number>,
    images,
    ...(grounding ? { recall: grounding.overall.recall, chairS: grounding.overall.chairS } : {}),
  };
}

/**
 * One row as a plan row: pre-train on the cut pools (unless none), fine-tune on CC3M-like train from it, choose the
 * checkpoint on dev CIDEr (candidates without thumbnails), caption dev and test with it.
 */
export function table7Row(recipe: Recipe, label: PretrainSource, inputs: Inputs, files: Table7Files, features: FeatureSpec): PlanRow {
  const pretrain = table7PretrainConfig(recipe, label, files, inputs);
  const finetune = table7FinetuneConfig(recipe, label, files, inputs, pretrain ? PREVIOUS_RUN : undefined);
  const split = (name: string, list: string): PlanEvaluation => ({ split: name, images: { list }, decode: recipe.decode });
  return {
    label,
    features,
    stages: [
      ...(pretrain ? [{ configs: [pretrain] }] : []),
      {
        configs: [finetune],
        select: { by: 'captions', split: CC3M_DEV_SPLIT, images: { list: files.dev }, decode: recipe.decode, score: 'corpus' },
        evaluations: [split(CC3M_DEV_SPLIT, files.dev), split(CC3M_TEST_SPLIT, files.test)],
      },
    ],
  };
}

/** A row's result from its plan row's outcome (the scores read from the fine-tuning run). */
export function table7Result(label: PretrainSource, outcome: RowOutcome): Table7Row {
  const pretrain = outcome.stages.length > 1 ? outcome.stages[0] : undefined;
  const fine = outcome.stages.at(-1)!;
  return {
    pretraining: label,
    ...(pretrain ? { pretrainRun: pretrain.run.id } : {}),
    run: fine.run.id,
    candidates: fine.selection!.candidates.map(({ step, value }) => ({ step, cider: value })),
    step: fine.selection!.step,
    dev: splitScores(fine.run.dir, CC3M_DEV_SPLIT),
    test: splitScores(fine.run.dir, CC3M_TEST_SPLIT),
  };
}

export interface Table7Options extends ExperimentOptions {
  /** Rows (default: the recipe's, i.e. Table 3's four sources). */
  rows?: readonly PretrainSource[];
  fractions?: SplitFractions;
  /** Real CC3M split files (with `recipe.data` for the pools, COCO and nocaps). */
  real?: Table7RealSplits;
}

/** Table 7 for one seed: inputs and cut pools, features once, then the rows `concurrency` at a time. */
export async function runTable7(recipe: Recipe, options: Table7Options = {}): Promise<Table7Result> {
  const started = Date.now();
  const inputs = await prepareWorldInputs(recipe, options);
  const outDir = inputs.worldRoot ? path.join(inputs.worldRoot, 'cc3m-benchmark') : path.join(options.cacheDir ?? '.cckit-cache', 'real-cc3m-benchmark');
  const files = await table7Files(inputs, outDir, {
    fractions: options.fractions,
    real: options.real,
    truthFile: inputs.worldRoot ? path.join(inputs.worldRoot, 'web', 'truth.jsonl') : undefined,
  });
  const features = featuresOf(recipe, options);
  const devTest = [files.dev, files.test].flatMap((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as EvalImage[]).map((i) => i.key));
  const labels = [...(options.rows ?? recipe.rows)];
  const unknown = labels.find((l) => !(TABLE3_SOURCES as readonly string[]).includes(l));
  if (unknown) throw new Error(`table 7: unknown row '${unknown}' (rows: ${TABLE3_SOURCES.join(', ')})`);
  // the longest rows first (both pools, then one, then none), so that the lanes finish together
  const order = labels.map((_, i) => i).sort((a, b) => sourcesOf(labels[b]!).length - sourcesOf(labels[a]!).length);
  const plan = {
    rows: labels.map((label) => table7Row(recipe, label, inputs, files, features)),
    prepare: { spec: features, keys: [...new Set([...(await experimentImageKeys(inputs)), ...devTest])] },
    order,
  };
  const outcomes = await runPlan(plan, options);
  const inOrder = labels.map((label, i) => table7Result(label, outcomes[i]!));
  const count = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  return {
    seed: recipe.seed,
    rows: inOrder,
    counts: files.counts,
    pools: { cc3m: count(files.pools.cc3m), cc12m: count(files.pools.cc12m) },
    seconds: (Date.now() - started) / 1000,
    ...table7PerImage(inOrder, options.runsRoot ?? 'runs'),
  };
}

/** Each row's per-image CIDEr-D on CC3M-like dev and test, from its fine-tuning run's stored captions (`perImageOfSplits`). */
export function table7PerImage(rows: readonly Table7Row[], runsRoot: string): Pick<Table7Result, 'perImage' | 'perImageNotes'> {
  const wanted = rows.flatMap((r) => [
    { row: r.pretraining, key: 'dev' as const, run: r.run, split: CC3M_DEV_SPLIT, cider: r.dev.scores.CIDEr },
    { row: r.pretraining, key: 'test' as const, run: r.run, split: CC3M_TEST_SPLIT, cider: r.test.scores.CIDEr },
  ]);
  return perImageFields(perImageOfSplits(wanted, runsRoot));
}

// ------------------------------------------------------------------ tables, claims, figure

export { NO_PAPER_NUMBER };

const rowOf = (r: Table7Result, label: string) => r.rows.find((x) => x.pretraining === label);
const labelsOf = (perSeed: readonly Table7Result[]) => [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];

/** Table 7: per row, dev and test metrics (×100, mean ± std over seeds), the judge's figures on test, the paper's (n/a). */
export function table7Rows(perSeed: readonly Table7Result[]): Record<string, string>[] {
  const over = (label: string, pick: (x: Table7Row) => number | undefined) => formatSpread(spread(perSeed.map((r) => pick(rowOf(r, label)!) ?? NaN)));
  return labelsOf(perSeed).map((label) => ({
    'pre-training': label,
    ...Object.fromEntries(TABLE7_METRICS.slice(0, 3).map((m) => [`dev ${m}`, over(label, (x) => x.dev.scores[m])])),
    ...Object.fromEntries(TABLE7_METRICS.map((m) => [`test ${m}`, over(label, (x) => x.test.scores[m])])),
    'test object recall %': over(label, (x) => (x.test.recall === undefined ? undefined : 100 * x.test.recall)),
    'test CHAIR_s %': over(label, (x) => (x.test.chairS === undefined ? undefined : 100 * x.test.chairS)),
    'chosen step': perSeed.map((r) => rowOf(r, label)?.step ?? '—').join(', '),
    'paper test CIDEr': NO_PAPER_NUMBER,
  }));
}

/** Per seed, a − b in test CIDEr. */
export function table7Differences(perSeed: readonly Table7Result[], a: string, b: string, metric: Table7Metric = 'CIDEr'): number[] {
  return perSeed.map((r) => (rowOf(r, a)?.test.scores[metric] ?? NaN) - (rowOf(r, b)?.test.scores[metric] ?? NaN));
}

/** The claims on CC3M-like test CIDEr: each pre-training source beats none; CC12M beats CC3M. */
export function table7ClaimList(perSeed: readonly Table7Result[]): Claim[] {
  const labels = labelsOf(perSeed);
  const claim = (a: string, b: string, text: string): Claim =>
    claimOver(text, `${NO_PAPER_NUMBER} (no Table 7 number in paper-numbers.json)`, table7Differences(perSeed, a, b));
  const claims = labels.filter((l) => l !== 'none').map((l) => claim(l, 'none', `pre-training on ${l} beats no pre-training on CC3M-like test (CIDEr)`));
  if (labels.includes('cc3m') && labels.includes('cc12m'))
    claims.push(claim('cc12m', 'cc3m', 'CC12M pre-training beats CC3M pre-training on CC3M-like test (CIDEr)'));
  return claims;
}

/** A plotly figure: dev and test CIDEr per pre-training source (mean over seeds, ± std). */
export function table7Figure(perSeed: readonly Table7Result[]): { data: object[]; layout: object } {
  const labels = labelsOf(perSeed);
  const bar = (name: string, color: string, pick: (x: Table7Row) => number) =>
    seedMeanBar({
      name,
      style: { marker: { color } },
      x: labels,
      spreads: labels.map((l) => spread(perSeed.map((r) => (rowOf(r, l) ? pick(rowOf(r, l)!) : NaN)))),
      seeds: perSeed.length,
    });
  return {
    data: [bar('dev', '#aec7e8', (x) => x.dev.scores.CIDEr), bar('test', '#1f77b4', (x) => x.test.scores.CIDEr)],
    layout: {
      title: { text: 'CC12M Table 7: CC3M-like dev and test CIDEr by pre-training source (fine-tuned on CC3M-like train)' },
      barmode: 'group',
      xaxis: { title: { text: 'pre-training data' } },
      yaxis: { title: { text: 'CIDEr ×100' } },
      height: 360,
    },
  };
}

/** A plotly figure: dev CIDEr of every fine-tuning checkpoint per row (seed 0 of `perSeed`), the chosen step marked. */
export function table7SelectionFigure(perSeed: readonly Table7Result[]): { data: object[]; layout: object } {
  const first = perSeed[0];
  const rows = first?.rows ?? [];
  return {
    data: [
      ...rows.map((row) => ({
        type: 'scatter',
        mode: 'lines+markers',
        name: row.pretraining,
        x: row.candidates.map((c) => c.step),
        y: row.candidates.map((c) => Number(c.cider.toFixed(1))),
      })),
      {
        type: 'scatter',
        mode: 'markers',
        name: 'chosen',
        marker: { symbol: 'star', size: 12, color: '#000' },
        x: rows.map((r) => r.step),
        y: rows.map((r) => Number((r.candidates.find((c) => c.step === r.step)?.cider ?? NaN).toFixed(1))),
        text: rows.map((r) => r.pretraining),
      },
    ],
    layout: {
      title: { text: `CC3M-like dev CIDEr while fine-tuning on CC3M-like train (seed ${first?.seed ?? '—'})` },
      xaxis: { title: { text: 'fine-tuning step' } },
      yaxis: { title: { text: 'dev CIDEr ×100' } },
      height: 360,
    },
  };
}
