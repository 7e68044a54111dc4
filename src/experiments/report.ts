/** Tables of experiment results beside the papers' numbers (terminal text and notebook rows). */
import { paperNumbers } from '../report/paper';
import { formatTable } from '../report/table';
import type { Table3Result } from './table3';

const fmt = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));

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
  return formatTable(headers, rows.map((r) => headers.map((h) => r[h]!)));
}
