/**
 * CC12M Table 5: the COCO benchmark. The Table 3 rows (no pre-training / CC3M / CC12M / CC3M+CC12M, each
 * fine-tuned on COCO) captioning COCO's own test images, scored with coco-caption's metrics (BLEU-4,
 * METEOR, ROUGE-L, CIDEr-D) and SPICE (cckit's: src/metrics/spice.ts).
 *
 * Nothing is trained: Table 3's fine-tuning runs are read back, and each captions the COCO-like test
 * split with the checkpoint Table 3 chose on nocaps val (the last one where the recipe chooses none).
 * On the world the COCO-like test split is its `coco-val` split: the fine-tuning runs report a loss on it
 * while they train, but nothing is chosen on it. With real data it is the recipe's `cocoVal` file (give
 * the Karpathy test split there to match the paper).
 *
 * The captions go to `runs/<fine-tuning run>/predictions/coco-test.json` (and its scores beside), so a
 * second call only scores them again. paper-numbers.json holds no Table 5 number: the paper column is
 * n/a throughout. What it does hold is the papers' mechanism: the gain from pre-training shows
 * out-of-domain (nocaps out) more than in-domain; the COCO benchmark is the in-domain end of that.
 */
import * as path from 'path';

import { scoreCases } from '../../decode/evaluate-run';
import type { CaptionCase } from '../../metrics/evaluate';
import { readPredictions } from '../../runs/layout';
import { listCheckpoints } from '../../train/checkpoint';
import { readEvalImages } from '../../train/data';
import { captionSplitOnce } from '../evaluate';
import type { PretrainSource } from '../recipe';
import { prepareWorldInputs } from '../inputs';
import type { ExperimentOptions } from '../options';
import { featuresOf } from '../runner';
import { formatSpread, spread, type Spread } from '../seeds';
import { seedMeanBar } from '../figures';
import { claimOver, NO_PAPER_NUMBER, type Claim } from '../claims';
import type { Table3Result } from './table3';
import { visualFromSpec } from '../visual';
import { perImageFields, perImageOfSplits, type SplitsPerImage } from '../split-per-image';

export const COCO_TEST_SPLIT = 'coco-test';
export const TABLE5_METRICS = ['BLEU-4', 'METEOR', 'ROUGE-L', 'CIDEr', 'SPICE'] as const;
export type Table5Metric = (typeof TABLE5_METRICS)[number];
/** cckit's metric names (src/metrics/evaluate.ts) behind the paper's column names. */
const METRIC_NAMES: Record<Table5Metric, string> = { 'BLEU-4': 'Bleu_4', METEOR: 'METEOR', 'ROUGE-L': 'ROUGE_L', CIDEr: 'CIDEr', SPICE: 'SPICE' };

export interface Table5Row {
  pretraining: PretrainSource;
  run: string;
  /** The checkpoint step Table 3 chose on nocaps val (absent: the run's last). */
  step?: number;
  /** ×100. */
  scores: Record<Table5Metric, number>;
  images: number;
  /** Table 3's nocaps-val out-of-domain and overall CIDEr of the same model (×100), for the in- vs out-of-domain comparison. */
  nocapsOut: number;
  nocapsOverall: number;
}

export interface Table5Result {
  seed: number;
  rows: Table5Row[];
  /** Images captioned now (0 when every row's captions were stored already). */
  captioned: number;
  /**
   * Per-image CIDEr-D of each row's COCO-like test captions (by pre-training data; `test`), read back from the
   * captions its run stored, for the claims' bootstrap intervals (not read yet). Absent in results made before it existed.
   */
  perImage?: Record<string, SplitsPerImage<'test'>>;
  /** Why a row has no per-image scores (no stored captions, or they do not give the row's CIDEr). */
  perImageNotes?: string[];
}

/** Scores (×100) of stored COCO-test captions: corpus BLEU-4, METEOR, ROUGE-L, CIDEr-D, SPICE. */
export function cocoTestScores(runDir: string, split = COCO_TEST_SPLIT): { scores: Record<Table5Metric, number>; images: number } {
  const predictions = readPredictions(runDir, split);
  const cases: CaptionCase[] = predictions.items.map((item) => {
    if (!item.references || item.references.length === 0) throw new Error(`${runDir} ${split}: image ${item.image_id} has no stored references`);
    return { imageId: String(item.image_id), references: item.references, candidate: item.caption };
  });
  const { corpus } = scoreCases(cases, { metrics: ['bleu', 'meteor', 'rouge', 'cider', 'spice'] });
  const scores = Object.fromEntries(TABLE5_METRICS.map((m) => [m, 100 * (corpus[METRIC_NAMES[m]] ?? NaN)])) as Record<Table5Metric, number>;
  return { scores, images: cases.length };
}

/**
 * Table 5 of one Table 3 result: each row's fine-tuning run captions the COCO-like test split with its
 * chosen checkpoint (captions stored by an earlier call with the same decoder are reused), then scored.
 */
export async function cc12mTable5(result: Table3Result, options: ExperimentOptions): Promise<Table5Result> {
  const recipe = result.config;
  const runsRoot = options.runsRoot ?? 'runs';
  const inputs = await prepareWorldInputs(recipe, options);
  const images = readEvalImages({ path: inputs.cocoVal, imageRoot: inputs.imageRoot });
  let visual: Awaited<ReturnType<typeof visualFromSpec>> | undefined;
  const preparedVisual = async () => {
    if (!visual) {
      visual = await visualFromSpec(featuresOf(recipe, options), { progress: options.progress });
      // only the COCO-like test images are captioned here
      await visual.prepare(images.map((i) => i.key));
    }
    return visual;
  };
  let captioned = 0;
  const rows: Table5Row[] = [];
  for (const row of result.rows) {
    const runDir = path.join(runsRoot, row.finetuneRun);
    const step = row.selection?.step;
    const checkpoint = step === undefined ? undefined : listCheckpoints(runDir).find((c) => c.step === step)?.dir;
    if (step !== undefined && !checkpoint) throw new Error(`${runDir}: Table 3 chose step ${step}, but the run has no such checkpoint`);
    const fresh = await captionSplitOnce(runDir, images, preparedVisual, {
      split: COCO_TEST_SPLIT,
      decode: recipe.decode,
      checkpoint,
      force: options.force,
      say: options.say,
      label: `${row.finetuneRun}${step === undefined ? '' : ` step ${step}`}`,
      progress: options.progress ? (done, total) => options.progress!(`caption ${row.pretraining}`, done, total) : undefined,
    });
    if (fresh !== undefined) captioned += images.length;
    const { scores, images: count } = cocoTestScores(runDir);
    rows.push({
      pretraining: row.pretraining,
      run: row.finetuneRun,
      ...(row.selection ? { step: row.selection.step } : {}),
      scores,
      images: count,
      nocapsOut: row.finetuned.out,
      nocapsOverall: row.finetuned.overall,
    });
  }
  return { seed: recipe.seed, rows, captioned, ...table5PerImage(rows, runsRoot) };
}

/** Each row's per-image CIDEr-D on COCO-like test (`test`), from its run's stored captions (`perImageOfSplits`). */
export function table5PerImage(rows: readonly Table5Row[], runsRoot: string): Pick<Table5Result, 'perImage' | 'perImageNotes'> {
  return perImageFields(
    perImageOfSplits(
      rows.map((r) => ({ row: r.pretraining, key: 'test' as const, run: r.run, split: COCO_TEST_SPLIT, cider: r.scores.CIDEr })),
      runsRoot,
    ),
  );
}

/** The comparison table: per row, mean ± std over seeds of each metric (×100), and the paper's (n/a: not in paper-numbers.json). */
export function table5Rows(perSeed: readonly Table5Result[]): Record<string, string>[] {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))];
  return labels.map((label) => {
    const rows = perSeed.map((r) => r.rows.find((x) => x.pretraining === label));
    return {
      'pre-training': label,
      ...Object.fromEntries(TABLE5_METRICS.map((m) => [m, formatSpread(spread(rows.map((r) => r?.scores[m] ?? NaN)))])),
      'paper CIDEr': NO_PAPER_NUMBER,
      'nocaps-val out CIDEr (Table 3)': formatSpread(spread(rows.map((r) => r?.nocapsOut ?? NaN))),
    };
  });
}

/** Per seed, a − b of one metric on COCO-like test. */
export function table5Differences(perSeed: readonly Table5Result[], a: string, b: string, metric: Table5Metric = 'CIDEr'): number[] {
  return perSeed.map(
    (r) => (r.rows.find((x) => x.pretraining === a)?.scores[metric] ?? NaN) - (r.rows.find((x) => x.pretraining === b)?.scores[metric] ?? NaN),
  );
}

/**
 * The claims: pre-training on each source helps on COCO-like test (CIDEr), and — the papers' mechanism —
 * CC12M's gain over no pre-training is larger out-of-domain on nocaps than on COCO (in-domain).
 */
export function table5ClaimList(perSeed: readonly Table5Result[]): Claim[] {
  const claims: Claim[] = [];
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))].filter((l) => l !== 'none');
  for (const label of labels)
    claims.push(
      claimOver(
        `pre-training on ${label} beats no pre-training on COCO-like test (CIDEr)`,
        `${NO_PAPER_NUMBER} (no Table 5 number in paper-numbers.json)`,
        table5Differences(perSeed, label, 'none'),
      ),
    );
  if (labels.includes('cc12m') && labels.includes('cc3m'))
    claims.push(
      claimOver(
        'CC12M pre-training beats CC3M pre-training on COCO-like test (CIDEr)',
        `${NO_PAPER_NUMBER} (no Table 5 number in paper-numbers.json)`,
        table5Differences(perSeed, 'cc12m', 'cc3m'),
      ),
    );
  if (labels.includes('cc12m')) {
    const gapOf = (r: Table5Result, pick: (x: Table5Row) => number) => {
      const a = r.rows.find((x) => x.pretraining === 'cc12m');
      const b = r.rows.find((x) => x.pretraining === 'none');
      return a && b ? pick(a) - pick(b) : NaN;
    };
    claims.push(
      claimOver(
        "CC12M's CIDEr gain over no pre-training is larger on nocaps out-of-domain than on COCO-like test",
        "the gain is mostly out-of-domain (paper-numbers.json's note on CC12M Table 3)",
        perSeed.map((r) => gapOf(r, (x) => x.nocapsOut) - gapOf(r, (x) => x.scores.CIDEr)),
        { measuredAs: 'out gain − COCO gain: ' },
      ),
    );
  }
  return claims;
}

/**
 * A plotly figure: CIDEr gain over no pre-training (mean over seeds, ±std) on COCO-like test and on nocaps
 * val's out-of-domain images, per pre-training source: the in-domain and the out-of-domain end side by side.
 */
export function table5Figure(perSeed: readonly Table5Result[]): { data: object[]; layout: object } {
  const labels = [...new Set(perSeed.flatMap((r) => r.rows.map((x) => x.pretraining)))].filter((l) => l !== 'none');
  const gains = (pick: (x: Table5Row) => number) =>
    labels.map((label) =>
      spread(
        perSeed.map((r) => {
          const a = r.rows.find((x) => x.pretraining === label);
          const b = r.rows.find((x) => x.pretraining === 'none');
          return a && b ? pick(a) - pick(b) : NaN;
        }),
      ),
    );
  const bar = (name: string, color: string, spreads: Spread[]) =>
    seedMeanBar({ name, style: { marker: { color } }, x: labels, spreads, seeds: perSeed.length });
  return {
    data: [
      bar(
        'COCO-like test (in-domain)',
        '#1f77b4',
        gains((x) => x.scores.CIDEr),
      ),
      bar(
        'nocaps val, out-of-domain',
        '#d62728',
        gains((x) => x.nocapsOut),
      ),
    ],
    layout: {
      title: { text: 'CIDEr gain over no pre-training, after fine-tuning on COCO' },
      barmode: 'group',
      xaxis: { title: { text: 'pre-training data' } },
      yaxis: { title: { text: 'CIDEr ×100 gain' } },
      height: 360,
    },
  };
}
