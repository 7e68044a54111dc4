/**
 * CC12M Table 3: pre-train a captioner on none / CC3M / CC12M / CC3M+CC12M, fine-tune on COCO,
 * evaluate on nocaps val (in / near / out / overall CIDEr), plus zero-shot rows (pre-trained only).
 *
 * On the embedded world (default) the pools are the world's web split run through the paper's two
 * pipelines, COCO and nocaps are its captioned splits; the recipe's `data` points it at real files.
 */
import { paperNumbers } from '../report/paper';
import { formatTable } from '../report/table';
import type { PretrainSource, Recipe } from './recipe';
import { fmt } from './report';
import { ExperimentOptions, poolSizes, ResultRow, runVariants, Variant } from './runner';

/** A Table 3 row: the result row, labelled by its pre-training data. */
export type Table3Row = { pretraining: PretrainSource } & Omit<ResultRow, 'label'>;

export interface Table3Result {
  config: Recipe;
  rows: Table3Row[];
  /** Pairs in each pre-training pool. */
  pools: Record<string, number>;
  seconds: number;
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
  return { config: recipe, rows, pools: poolSizes(inputs), seconds: (Date.now() - started) / 1000 };
}

/** Rows of the Table 3 comparison: measured nocaps-val CIDEr per domain, the paper's overall beside. */
export function table3Rows(result: Table3Result): Record<string, string>[] {
  const paper = paperNumbers().cc12m.table3_nocaps_val_overall_cider;
  return result.rows.map((row) => ({
    'pre-training': row.pretraining,
    in: fmt(row.finetuned.in),
    near: fmt(row.finetuned.near),
    out: fmt(row.finetuned.out),
    overall: fmt(row.finetuned.overall),
    'paper overall': fmt(paper.finetuned_on_coco[row.pretraining]),
    'zero-shot overall': fmt(row.zeroShot?.overall),
    'paper zero-shot': fmt(paper.zero_shot[row.pretraining]),
  }));
}

export function formatTable3(result: Table3Result): string {
  const rows = table3Rows(result);
  const headers = Object.keys(rows[0] ?? { 'pre-training': '' });
  return formatTable(
    headers,
    rows.map((r) => headers.map((h) => r[h]!)),
  );
}
