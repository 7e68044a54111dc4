/**
 * CC3M Tables 4–7's report (the runs: tables4-7.ts): Tables 5–7 and Table 4's ground-truth judge beside the paper's
 * numbers, the paper's claims checked pair by pair over the grid, and the figures.
 */
import { paperNumbers } from '../../report/paper';
import type { CaptionerFeatures, CaptionerModel, Recipe } from '../recipe';
import { formatSpread, spread } from '../seeds';
import { intervalText, NO_PAPER_NUMBER, pairsClaim, type Claim } from '../claims';
import type { CaptionerResult, CaptionerRow, JudgedFigures } from './tables4-7';
import {
  CAPTIONER_METRICS,
  CAPTIONER_TABLES,
  CAPTIONER_TESTS,
  captionerVariants,
  type CaptionerTable,
  type CaptionerTest,
  type CaptionerTraining,
  type CaptionerVariant,
} from './tables4-7-grid';

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
    claim: 'RNN scores at least as high as T2T on the Flickr-like test (CIDEr), though people prefer T2T',
    source: 'Table 7, §5.4',
    test: 'flickr',
    measure: 'CIDEr',
    compare: { dimension: 'model', a: 'RNN', b: 'T2T' },
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

/** A claim over the testable pairs, ×100 (each seed's mean pair, decided over seeds); "not testable" when no pair is. */
const decidedPairs = (spec: CaptionerClaimSpec, diffs: ReturnType<typeof claimDifferences>): Claim =>
  pairsClaim(
    spec.claim,
    spec.source,
    diffs.map((d) => ({ ...d, difference: 100 * d.difference })),
  );

/** The claims table: claim, where the paper shows it, the measured differences, how many go the claim's way, verdict. */
export function captionerClaims(results: readonly CaptionerResult[], specs: readonly CaptionerClaimSpec[] = CAPTIONER_CLAIMS): Record<string, string>[] {
  return specs.map((spec) => {
    const diffs = claimDifferences(results, spec);
    const scale = (d: number) => `${d >= 0 ? '+' : '−'}${Math.abs(100 * d).toFixed(1)}`;
    const byPair = new Map<string, string[]>();
    for (const d of diffs) byPair.set(d.pair, [...(byPair.get(d.pair) ?? []), `${scale(d.difference)}${d.testable ? '' : ' (not testable)'}`]);
    const testable = diffs.filter((d) => d.testable);
    const measure = spec.measure.startsWith('judge:') ? `${spec.measure.slice(6)} %` : metricName(spec.measure);
    const decided = decidedPairs(spec, diffs);
    return {
      claim: spec.claim,
      paper: spec.source,
      here: [...byPair].map(([pair, ds]) => `${pair}: ${ds.join(' / ')}`).join('; '),
      'the claim’s way': `${testable.filter((d) => d.difference > 0).length} of ${testable.length} testable (${diffs.length} pairs)`,
      measure: `${measure} on ${spec.test}-like${spec.better === 'lower' ? ' (lower is better; sign flipped)' : ''}`,
      'mean over seeds [95% interval]': intervalText(decided.decided),
      verdict: decided.verdict,
    };
  });
}

/** The claims with their numbers (each seed's mean over its testable pairs, ×100, > 0 the claim's way), for claimsFigure. */
export function captionerClaimList(results: readonly CaptionerResult[], specs: readonly CaptionerClaimSpec[] = CAPTIONER_CLAIMS): Claim[] {
  return specs.map((spec) => decidedPairs(spec, claimDifferences(results, spec)));
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
