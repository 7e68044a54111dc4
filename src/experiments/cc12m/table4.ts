/**
 * CC12M Table 4: the Table 3 rows (no pre-training / CC3M / CC12M / CC3M+CC12M, each fine-tuned on
 * COCO) on nocaps val **and test**, CIDEr and SPICE per domain (in / near / out / overall), as the
 * nocaps evaluation server reports them; and the test submission file the server takes.
 *
 * Nothing is trained or decoded here: Table 3 (src/experiments/cc12m/table3.ts) already captioned nocaps
 * val and test with each row's fine-tuning checkpoint chosen on val, and stored the captions in
 * `runs/<finetune run>/predictions/nocaps-{val,test}.json` with their references and domains. This
 * module scores those stored predictions again with CIDEr-D and cckit's SPICE (src/metrics/spice.ts,
 * not the Java jar: docs/metrics.md), each domain as its own set, and checks that the CIDEr it gets is
 * the one Table 3 stored (same captions, same scorer).
 *
 * On the embedded world the test split is the world's nocaps-like test split, whose references are
 * local; the real nocaps server keeps its test references hidden and scores a submission itself.
 */
import * as path from 'path';

import { writeNocapsSubmission, readCocoAnnotations } from '../../data/coco';
import { scoreCases, type DomainKey } from '../../decode/evaluate-run';
import type { CaptionCase } from '../../metrics/evaluate';
import { loadCocoResults } from '../../metrics/inputs';
import { paperNumbers } from '../../report/paper';
import { predictionSplits, readPredictions } from '../../runs/layout';
import { listCheckpoints } from '../../train/checkpoint';
import type { PretrainSource } from '../recipe';
import type { Scores } from '../runner';
import { DOMAIN_KEYS, formatSpread, spread } from '../seeds';
import { seedMeanBar } from '../figures';
import { claimOver, NO_PAPER_NUMBER, rankAgreement, rankClaim, type Claim, type RankAgreement } from '../claims';
import type { RowPerImage } from './per-image';
import type { Table3Result } from './table3';

export const TABLE4_SPLITS = ['val', 'test'] as const;
export type Table4Split = (typeof TABLE4_SPLITS)[number];
export const TABLE4_METRICS = ['CIDEr', 'SPICE'] as const;
export type Table4Metric = (typeof TABLE4_METRICS)[number];

/** One split's scores (×100) per domain: CIDEr-D and SPICE. */
export type Table4Scores = Record<DomainKey, Record<Table4Metric, number>>;

export interface Table4Row {
  pretraining: PretrainSource;
  /** The fine-tuning run whose stored predictions are scored. */
  run: string;
  /** The fine-tuning step chosen on nocaps val (Table 3's selection), when the recipe selects one. */
  step?: number;
  val: Table4Scores;
  /** Absent when Table 3 had no test split (real data without nocaps test annotations). */
  test?: Table4Scores;
  images: { val: number; test?: number };
  /**
   * The largest |CIDEr recomputed here − CIDEr Table 3 reported| over domains and splits (×100): 0 when
   * the stored predictions are the captions Table 3 scored.
   */
  ciderGap: number;
}

export interface Table4Result {
  seed: number;
  rows: Table4Row[];
  /**
   * The references' own agreement, scored like a row: each image's first stored reference against the
   * others (leave-one-out), CIDEr-D and SPICE per domain: the yardstick of what a caption can reach here.
   */
  human?: { val: Table4Scores; test?: Table4Scores };
  /**
   * Per-image CIDEr-D of the rows' stored val and test captions: Table 3's (`perImageOfRows`, the same captions), for
   * the claims' bootstrap intervals (not read yet). Absent where the Table 3 result has none.
   */
  perImage?: Record<string, RowPerImage>;
  /** Table 3's notes on the splits without per-image scores. */
  perImageNotes?: string[];
}

/** The run split names of Table 4's splits. */
export const splitName = (split: Table4Split): string => `nocaps-${split}`;

/** The stored predictions of a run's split as scoring cases (references and domains as stored). */
export function storedCases(runDir: string, split: string): CaptionCase[] {
  const predictions = readPredictions(runDir, split);
  return predictions.items.map((item) => {
    const id = String(item.image_id);
    if (!item.references || item.references.length === 0) throw new Error(`${runDir} ${split}: image ${id} has no stored references`);
    if (!item.domain) throw new Error(`${runDir} ${split}: image ${id} has no nocaps domain`);
    return { imageId: id, references: item.references, candidate: item.caption, domain: item.domain };
  });
}

/** CIDEr-D and SPICE (×100) of one run's stored split, each nocaps domain scored as its own set. */
export function splitScores(runDir: string, split: string): { scores: Table4Scores; images: number } {
  const cases = storedCases(runDir, split);
  const { domains } = scoreCases(cases, { metrics: ['cider', 'spice'] });
  const at = (d: DomainKey, m: Table4Metric): number => 100 * (domains?.[d]?.[m] ?? NaN);
  const scores = Object.fromEntries(DOMAIN_KEYS.map((d) => [d, { CIDEr: at(d, 'CIDEr'), SPICE: at(d, 'SPICE') }])) as Table4Scores;
  return { scores, images: cases.length };
}

/** Leave-one-out scores of a stored split's references: the first against the rest (images with one reference are left out). */
export function humanScores(runDir: string, split: string): Table4Scores {
  const cases = storedCases(runDir, split)
    .filter((c) => c.references.length > 1)
    .map((c) => ({ ...c, candidate: c.references[0]!, references: c.references.slice(1) }));
  if (cases.length === 0) throw new Error(`${runDir} ${split}: no image has two references`);
  const { domains } = scoreCases(cases, { metrics: ['cider', 'spice'] });
  const at = (d: DomainKey, m: Table4Metric): number => 100 * (domains?.[d]?.[m] ?? NaN);
  return Object.fromEntries(DOMAIN_KEYS.map((d) => [d, { CIDEr: at(d, 'CIDEr'), SPICE: at(d, 'SPICE') }])) as Table4Scores;
}

const gap = (mine: Table4Scores, reported: Scores | undefined): number =>
  reported ? Math.max(...DOMAIN_KEYS.map((d) => Math.abs(mine[d].CIDEr - reported[d]))) : NaN;

/** Table 4 of one Table 3 result (one seed): every row's stored val and test predictions scored again. */
export function table4Scores(result: Table3Result, runsRoot: string): Table4Result {
  const rows = result.rows.map((row): Table4Row => {
    const runDir = path.join(runsRoot, row.finetuneRun);
    const val = splitScores(runDir, splitName('val'));
    const test = row.test && predictionSplits(runDir).includes(splitName('test')) ? splitScores(runDir, splitName('test')) : undefined;
    const gaps = [gap(val.scores, row.finetuned), ...(test ? [gap(test.scores, row.test?.finetuned)] : [])];
    return {
      pretraining: row.pretraining,
      run: row.finetuneRun,
      ...(row.selection ? { step: row.selection.step } : {}),
      val: val.scores,
      ...(test ? { test: test.scores } : {}),
      images: { val: val.images, ...(test ? { test: test.images } : {}) },
      ciderGap: Math.max(...gaps),
    };
  });
  // every row stored the same references; the first row's are scored
  const first = rows[0] ? path.join(runsRoot, rows[0].run) : undefined;
  const human = first ? { val: humanScores(first, splitName('val')), ...(rows[0]!.test ? { test: humanScores(first, splitName('test')) } : {}) } : undefined;
  return {
    seed: result.config.seed,
    rows,
    ...(human ? { human } : {}),
    ...(result.perImage ? { perImage: result.perImage } : {}),
    ...(result.perImageNotes ? { perImageNotes: result.perImageNotes } : {}),
  };
}

/**
 * The paper's number for a Table 4 cell, from notebooks/paper-numbers.json; undefined where the file
 * has none. It holds each row's nocaps-val overall CIDEr (Table 3, the same models) and nothing of the
 * per-domain, test or SPICE cells.
 */
export function table4Paper(pretraining: string, split: Table4Split, domain: DomainKey, metric: Table4Metric): number | undefined {
  if (split !== 'val' || domain !== 'overall' || metric !== 'CIDEr') return undefined;
  return paperNumbers().cc12m.table3_nocaps_val_overall_cider.finetuned_on_coco[pretraining];
}

export { NO_PAPER_NUMBER };

/** Column name of one domain and metric ("out SPICE"). */
const column = (d: DomainKey, m: Table4Metric): string => `${d} ${m}`;

const pick = (r: Table4Row | undefined, split: Table4Split, d: DomainKey, m: Table4Metric): number => r?.[split]?.[d][m] ?? NaN;

/** The rows of one label over seeds (undefined where a seed has no such row). */
const rowsOf = (perSeed: readonly Table4Result[], label: string): (Table4Row | undefined)[] => perSeed.map((r) => r.rows.find((x) => x.pretraining === label));

/**
 * The comparison table: per pre-training row and split, the measured scores (mean ± std over the
 * seeds; one value with one seed), then the paper's, in nocaps's layout (in / near / out / overall ×
 * CIDEr, SPICE). A paper cell without a number in paper-numbers.json reads NO_PAPER_NUMBER.
 */
export function table4Rows(perSeed: readonly Table4Result[]): Record<string, string>[] {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];
  const out: Record<string, string>[] = [];
  for (const label of labels) {
    const rows = rowsOf(perSeed, label);
    for (const split of TABLE4_SPLITS) {
      if (!rows.some((r) => r?.[split])) continue;
      const cells = (value: (d: DomainKey, m: Table4Metric) => string) =>
        Object.fromEntries(DOMAIN_KEYS.flatMap((d) => TABLE4_METRICS.map((m) => [column(d, m), value(d, m)])));
      out.push({
        'pre-training': label,
        split,
        source: perSeed.length > 1 ? `measured (${perSeed.length} seeds)` : 'measured',
        ...cells((d, m) => formatSpread(spread(rows.map((r) => pick(r, split, d, m))))),
      });
      out.push({
        'pre-training': label,
        split,
        source: 'paper',
        ...cells((d, m) => {
          const p = table4Paper(label, split, d, m);
          return p === undefined ? NO_PAPER_NUMBER : p.toFixed(1);
        }),
      });
    }
  }
  for (const split of TABLE4_SPLITS) {
    const human = perSeed.map((r) => r.human?.[split]);
    if (!human.some(Boolean)) continue;
    out.push({
      'pre-training': 'human',
      split,
      source: 'references, leave-one-out',
      ...Object.fromEntries(DOMAIN_KEYS.flatMap((d) => TABLE4_METRICS.map((m) => [column(d, m), formatSpread(spread(human.map((h) => h?.[d][m] ?? NaN)))]))),
    });
  }
  return out;
}

/** Per seed, A − B of one split, domain and metric. */
export function table4Differences(
  perSeed: readonly Table4Result[],
  a: string,
  b: string,
  split: Table4Split,
  domain: DomainKey = 'overall',
  metric: Table4Metric = 'CIDEr',
): number[] {
  return perSeed.map((r) => {
    const ra = r.rows.find((x) => x.pretraining === a);
    const rb = r.rows.find((x) => x.pretraining === b);
    return pick(ra, split, domain, metric) - pick(rb, split, domain, metric);
  });
}

export { rankAgreement, type RankAgreement };

/** Per seed, whether `a` and `b` (split, domain, metric each) rank the seed's rows alike. */
export function table4RankAgreement(
  perSeed: readonly Table4Result[],
  a: { split: Table4Split; domain: DomainKey; metric: Table4Metric },
  b: { split: Table4Split; domain: DomainKey; metric: Table4Metric },
): RankAgreement[] {
  return perSeed.map((r) =>
    rankAgreement(
      r.rows.map((x) => pick(x, a.split, a.domain, a.metric)),
      r.rows.map((x) => pick(x, b.split, b.domain, b.metric)),
    ),
  );
}

/**
 * The claims checked against the measured Table 4, verdicts computed over the seeds (src/experiments/
 * seeds.ts: "holds" when the difference has the claimed sign on every seed). The paper column gives
 * the paper's numbers behind a claim where paper-numbers.json has them, and says so where it has none.
 */
export function table4ClaimList(perSeed: readonly Table4Result[]): Claim[] {
  const P = paperNumbers().cc12m.table3_nocaps_val_overall_cider.finetuned_on_coco;
  const noTest = 'test cells not in paper-numbers.json';
  const noSpice = 'no SPICE in paper-numbers.json';
  const D = (a: string, b: string, split: Table4Split, domain: DomainKey = 'overall', metric: Table4Metric = 'CIDEr') =>
    table4Differences(perSeed, a, b, split, domain, metric);
  // CC12M's gain over CC3M out of domain minus its larger gain in or near domain (positive: largest out of domain)
  const outLead = (split: Table4Split, metric: Table4Metric) =>
    D('cc12m', 'cc3m', split, 'out', metric).map(
      (o, i) => o - Math.max(D('cc12m', 'cc3m', split, 'in', metric)[i]!, D('cc12m', 'cc3m', split, 'near', metric)[i]!),
    );
  const diff = (claim: string, paper: string, diffs: number[]): Claim => claimOver(claim, paper, diffs);
  const rank = rankClaim;
  const both = (split: Table4Split, domain: DomainKey) => table4RankAgreement(perSeed, { split, domain, metric: 'CIDEr' }, { split, domain, metric: 'SPICE' });
  return [
    diff('test: CC12M beats CC3M (overall CIDEr)', `val: ${P.cc12m} vs ${P.cc3m} (Table 3); ${noTest}`, D('cc12m', 'cc3m', 'test')),
    diff('test: CC12M beats CC3M out of domain (CIDEr)', `"the gain is mostly out-of-domain"; ${noTest}`, D('cc12m', 'cc3m', 'test', 'out')),
    diff("test: CC12M's gain over CC3M is largest out of domain (CIDEr)", `"the gain is mostly out-of-domain"; ${noTest}`, outLead('test', 'CIDEr')),
    diff(
      "val: CC12M's gain over CC3M is largest out of domain (CIDEr)",
      '"the gain is mostly out-of-domain"; per-domain cells not in paper-numbers.json',
      outLead('val', 'CIDEr'),
    ),
    diff('test: CC3M+CC12M beats CC12M (overall CIDEr)', `val: ${P['cc3m+cc12m']} vs ${P.cc12m} (Table 3); ${noTest}`, D('cc3m+cc12m', 'cc12m', 'test')),
    diff('test: pre-training on CC12M beats none (overall CIDEr)', `val: ${P.cc12m} vs ${P.none} (Table 3); ${noTest}`, D('cc12m', 'none', 'test')),
    diff('test: CC12M beats CC3M (overall SPICE)', noSpice, D('cc12m', 'cc3m', 'test', 'overall', 'SPICE')),
    diff('test: CC12M beats CC3M out of domain (SPICE)', noSpice, D('cc12m', 'cc3m', 'test', 'out', 'SPICE')),
    rank('val: SPICE ranks the rows as CIDEr does (overall)', noSpice, both('val', 'overall')),
    rank('test: SPICE ranks the rows as CIDEr does (overall)', noSpice, both('test', 'overall')),
    rank('test: SPICE ranks the rows as CIDEr does (out of domain)', noSpice, both('test', 'out')),
    rank(
      "test ranks the rows as val does (overall CIDEr: val's choice carries over)",
      'not stated; the paper submits to the server',
      table4RankAgreement(perSeed, { split: 'val', domain: 'overall', metric: 'CIDEr' }, { split: 'test', domain: 'overall', metric: 'CIDEr' }),
    ),
  ];
}

/** A plotly figure (the shape src/notebook's show.plot takes). */
export interface Table4Figure {
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
}

/** Grouped bars of one split: CIDEr by domain on the left, SPICE on the right, one bar per row (mean ± std over seeds). */
export function table4Figure(perSeed: readonly Table4Result[], split: Table4Split): Table4Figure {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];
  const palette = ['#7f7f7f', '#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];
  const data = labels.flatMap((label, i) =>
    TABLE4_METRICS.map((m, k) =>
      seedMeanBar({
        name: label,
        style: { legendgroup: label, showlegend: k === 0, marker: { color: palette[i % palette.length] } },
        x: DOMAIN_KEYS,
        spreads: DOMAIN_KEYS.map((d) => spread(rowsOf(perSeed, label).map((r) => pick(r, split, d, m)))),
        seeds: perSeed.length,
        axes: k === 1 ? { xaxis: 'x2', yaxis: 'y2' } : {},
      }),
    ),
  );
  return {
    data,
    layout: {
      title: { text: `nocaps-like ${split}: CIDEr and SPICE by domain after fine-tuning, by pre-training data` },
      barmode: 'group',
      grid: { rows: 1, columns: 2, pattern: 'independent' },
      xaxis: { title: { text: 'nocaps domain' }, domain: [0, 0.47] },
      yaxis: { title: { text: 'CIDEr ×100' } },
      xaxis2: { title: { text: 'nocaps domain' }, domain: [0.53, 1], anchor: 'y2' },
      yaxis2: { title: { text: 'SPICE ×100' }, anchor: 'x2' },
      height: 380,
    },
  };
}

/** The row Table 3 would submit: the best nocaps-val overall CIDEr (the test split plays no part). */
export function valChosenRow(result: Table3Result): Table3Result['rows'][number] {
  if (result.rows.length === 0) throw new Error('Table 3 has no rows');
  return result.rows.reduce((a, b) => (b.finetuned.overall > a.finetuned.overall ? b : a));
}

export interface SubmissionWritten {
  file: string;
  pretraining: PretrainSource;
  run: string;
  /** Captions written (one per test image). */
  images: number;
  /** The checkpoint folder the captions came from (the step Table 3 chose on val), when the recipe selects one. */
  checkpoint?: string;
  /** The file scored against `annotations` as `cckit eval --preds FILE --refs ANNOTATIONS` does: CIDEr ×100 by domain. */
  rescored: Scores;
}

/**
 * Writes the nocaps evaluation server's submission file ([{image_id, caption}], integer ids, one
 * caption for every image of the split) from a row's stored nocaps test predictions, checked against
 * the split's image ids in `annotations`; then scores the file against those annotations, which on the
 * world holds the test references (the real server's are hidden).
 */
export function writeTable4Submission(
  result: Table3Result,
  runsRoot: string,
  pretraining: PretrainSource,
  file: string,
  annotations: string,
): SubmissionWritten {
  const row = result.rows.find((r) => r.pretraining === pretraining);
  if (!row) throw new Error(`Table 3 has no ${pretraining} row`);
  const runDir = path.join(runsRoot, row.finetuneRun);
  const predictions = readPredictions(runDir, splitName('test'));
  const expectedIds = readCocoAnnotations(annotations).images.map((image) => Number(image.id));
  writeNocapsSubmission(
    file,
    predictions.items.map((p) => ({ image_id: p.image_id, caption: p.caption })),
    { expectedIds },
  );
  const { cases } = loadCocoResults(file, annotations);
  const { domains } = scoreCases(cases, { metrics: ['cider'] });
  const at = (d: DomainKey): number => 100 * (domains?.[d]?.CIDEr ?? NaN);
  const checkpoint = row.selection ? listCheckpoints(runDir).find((c) => c.step === row.selection!.step)?.dir : undefined;
  return {
    file,
    pretraining,
    run: row.finetuneRun,
    images: cases.length,
    ...(checkpoint ? { checkpoint } : {}),
    rescored: { in: at('in'), near: at('near'), out: at('out'), overall: at('overall') },
  };
}
