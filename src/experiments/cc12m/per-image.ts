/**
 * Per-image scores and bootstrap intervals (issue #26) of the nocaps experiments' rows (CC12M Tables 3, 11, 12 and
 * Fig. 6): each row's per-image CIDEr-D read back from the captions its runs stored, and per seed the 95% paired
 * bootstrap interval of a statistic over the images.
 */
import { bootstrapCaptioners, perImageCider, type BootstrapInterval, type DomainOrOverall, type PerImageCider } from '../../metrics/bootstrap';
import type { CaptionCase } from '../../metrics/evaluate';
import { predictionSplits, readPredictions } from '../../runs/layout';
import type { ResultRow } from '../runner';
import { checkedPerImage, type CheckedSplit } from '../split-per-image';

/** Per-image CIDEr-D of one row's captions on each split it was scored on (stored captions scored again). */
export interface RowPerImage {
  val?: PerImageCider;
  test?: PerImageCider;
  zeroShot?: PerImageCider;
  zeroShotTest?: PerImageCider;
}

/**
 * Each row's per-image CIDEr-D on nocaps val and test, fine-tuned (the chosen checkpoint's captions) and zero-shot,
 * from the captions its runs stored (`runs/<id>/predictions/nocaps-<split>.json`, with their references and
 * domains). A split is kept only where its per-image means give the row's reported scores; otherwise a note says
 * why it has no per-image scores (and its claims no interval).
 */
export function perImageOfRows(rows: readonly ResultRow[], runsRoot: string): { perImage: Record<string, RowPerImage>; notes: string[] } {
  const wanted = rows.flatMap((row): CheckedSplit<keyof RowPerImage>[] => [
    { row: row.label, key: 'val', run: row.finetuneRun, split: 'nocaps-val', reported: row.finetuned },
    { row: row.label, key: 'test', run: row.finetuneRun, split: 'nocaps-test', reported: row.test?.finetuned },
    { row: row.label, key: 'zeroShot', run: row.pretrainRun, split: 'nocaps-val', reported: row.zeroShot },
    { row: row.label, key: 'zeroShotTest', run: row.pretrainRun, split: 'nocaps-test', reported: row.test?.zeroShot },
  ]);
  return checkedPerImage(wanted, runsRoot, storedPerImage);
}

/** A result with its rows' per-image scores (Tables 11, 12 and Fig. 6 attach them as Table 3 does). */
export type WithPerImage<T> = T & { perImage?: Record<string, RowPerImage>; perImageNotes?: string[] };

/** `result` with its rows' per-image CIDEr-D read from their runs under `runsRoot` (`perImageOfRows`). */
export function withPerImage<T extends { rows: readonly ResultRow[] }>(result: T, runsRoot: string): WithPerImage<T> {
  const { perImage, notes } = perImageOfRows(result.rows, runsRoot);
  return { ...result, perImage, ...(notes.length > 0 ? { perImageNotes: notes } : {}) };
}

/** Per-image CIDEr-D of a run's stored split; undefined when the run has no captions of it. */
function storedPerImage(runDir: string, split: string): PerImageCider | undefined {
  if (!predictionSplits(runDir).includes(split)) return undefined;
  const cases = readPredictions(runDir, split).items.map((item): CaptionCase => {
    const id = String(item.image_id);
    if (!item.references || item.references.length === 0) throw new Error(`image ${id} has no stored references`);
    if (!item.domain) throw new Error(`image ${id} has no nocaps domain`);
    return { imageId: id, references: item.references, candidate: item.caption, domain: item.domain };
  });
  return perImageCider(cases);
}

/** One seed's result as the intervals need it: its seed and its rows' per-image scores. */
export interface PerImageSeed {
  config: { seed: number };
  perImage?: Record<string, RowPerImage>;
}

/** A row's CIDEr-D (×100) in a domain on a resample: fine-tuned, or zero-shot. */
export type RowScoreOnDraw = (label: string, domain: DomainOrOverall, which?: 'finetuned' | 'zeroShot') => number;

/** Resamples of each seed's bootstrap (issue #26: a paired bootstrap over images, 95% percentile interval). */
export const BOOTSTRAP_RESAMPLES = 1000;

/**
 * Per seed, the 95% bootstrap interval of `statistic` over the nocaps `split` images the seed's rows were scored on:
 * one resample of the images serves every row and domain the statistic reads, seeded by the seed's recipe seed
 * (so every claim of a seed sees the same resamples). Undefined for a seed without the per-image scores it reads.
 */
export function seedIntervals(
  perSeed: readonly PerImageSeed[],
  split: 'val' | 'test',
  statistic: (score: RowScoreOnDraw) => number,
  resamples = BOOTSTRAP_RESAMPLES,
): (BootstrapInterval | undefined)[] {
  const keys = split === 'val' ? { finetuned: 'val', zeroShot: 'zeroShot' } : { finetuned: 'test', zeroShot: 'zeroShotTest' };
  return perSeed.map((result) => {
    if (!result.perImage) return undefined;
    const captioners: Record<string, PerImageCider | undefined> = {};
    for (const [label, row] of Object.entries(result.perImage))
      for (const which of ['finetuned', 'zeroShot'] as const) captioners[`${which} ${label}`] = row[keys[which] as keyof RowPerImage];
    return bootstrapCaptioners(captioners, (score) => statistic((label, domain, which = 'finetuned') => score(`${which} ${label}`, domain)), {
      seed: result.config.seed,
      resamples,
    });
  });
}
