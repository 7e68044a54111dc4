/** Result tables of experiments beside the papers' numbers (terminal text and notebook rows). */
import { formatTable } from '../report/table';
import type { ResultRow } from './runner';

export const DOMAINS = ['in', 'near', 'out', 'overall'] as const;

/** CIDEr ×100 with one decimal; — when not measured. */
export const fmt = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));

/** The same, as the number notebooks' tables show (NaN when not measured). */
const num1 = (x: number): number => Number(Number.isFinite(x) ? x.toFixed(1) : '—');

/** Rows of a variants table: nocaps-val CIDEr ×100 per domain, a paper column, the fine-tuning run. */
export function scoreRows(rows: readonly ResultRow[], paperOf: (label: string) => string): Record<string, string | number>[] {
  return rows.map((r) => ({
    variant: r.label,
    ...Object.fromEntries(DOMAINS.map((d) => [d, num1(r.finetuned[d])])),
    paper: paperOf(r.label),
    run: r.finetuneRun,
  }));
}

/** Table rows as terminal text. */
export function formatRows(rows: readonly Record<string, string | number>[]): string {
  const headers = Object.keys(rows[0] ?? { variant: '' });
  return formatTable(
    headers,
    rows.map((r) => headers.map((h) => r[h] ?? '')),
  );
}
