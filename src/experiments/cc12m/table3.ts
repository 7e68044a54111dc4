/**
 * CC12M Table 3: pre-train a captioner on none / CC3M / CC12M / CC3M+CC12M, fine-tune on COCO,
 * evaluate on nocaps val (in / near / out / overall CIDEr), plus zero-shot rows (pre-trained only).
 *
 * On the embedded world (default) the pools are the world's web split run through the paper's two
 * pipelines, COCO and nocaps are its captioned splits; the recipe's `data` points it at real files.
 *
 * This module runs the table (its variants, the run, the human baseline); table3-report.ts reports it (rows, claims,
 * figure) and per-image.ts holds the rows' per-image scores and bootstrap intervals.
 */
import { leaveOneOutCider, type HumanScores } from '../../metrics/human';
import { readEvalImages } from '../../train/data';
import { poolSizes } from '../inputs';
import type { ExperimentOptions } from '../options';
import type { Inputs, PretrainSource, Recipe } from '../recipe';
import { ResultRow, runVariants, Variant } from '../runner';
import { perImageOfRows, type RowPerImage } from './per-image';

/** A Table 3 row: the result row, labelled by its pre-training data. */
export type Table3Row = { pretraining: PretrainSource } & Omit<ResultRow, 'label'>;

export interface Table3Result {
  config: Recipe;
  rows: Table3Row[];
  /** The files the rows were trained and scored on (pools, COCO, nocaps; the world's folder). */
  inputs: Inputs;
  /** Leave-one-out CIDEr-D of the references (one scored against the others): the tables' "Human" row. */
  human: { val: HumanScores; test?: HumanScores };
  /** Pairs in each pre-training pool. */
  pools: Record<string, number>;
  seconds: number;
  /**
   * Per-image CIDEr-D of each row's stored captions (by pre-training data), for the claims' bootstrap intervals.
   * Absent in results made before it existed: their claims have no intervals.
   */
  perImage?: Record<string, RowPerImage>;
  /** Why a row's split has no per-image scores (no stored captions, or they do not give the row's scores). */
  perImageNotes?: string[];
}

/** The recipe's Table 3 rows as variants (label = the pre-training data). */
export function table3Variants(recipe: Recipe): Variant[] {
  return recipe.rows.map((source) => ({
    label: source,
    sources: source === 'none' ? [] : source === 'cc3m+cc12m' ? ['cc3m', 'cc12m'] : [source],
  }));
}

/** Runs the whole table (reusing finished runs). */
export async function runTable3(recipe: Recipe, options: ExperimentOptions): Promise<Table3Result> {
  const started = Date.now();
  const { inputs, results } = await runVariants(recipe, table3Variants(recipe), options);
  const rows: Table3Row[] = results.map(({ label: _label, ...r }, i) => ({ pretraining: recipe.rows[i]!, ...r }));
  const { perImage, notes } = perImageOfRows(
    results.map((r, i) => ({ ...r, label: recipe.rows[i]! })),
    options.runsRoot ?? 'runs',
  );
  return {
    config: recipe,
    rows,
    inputs,
    human: humanBaseline(inputs),
    pools: poolSizes(inputs),
    seconds: (Date.now() - started) / 1000,
    perImage,
    ...(notes.length > 0 ? { perImageNotes: notes } : {}),
  };
}

/** The human baseline of the inputs' nocaps val (and test) references. */
export function humanBaseline(inputs: Inputs): Table3Result['human'] {
  const of = (file: string) => leaveOneOutCider(readEvalImages({ path: file, imageRoot: inputs.imageRoot }));
  return { val: of(inputs.nocapsVal), ...(inputs.nocapsTest ? { test: of(inputs.nocapsTest) } : {}) };
}
