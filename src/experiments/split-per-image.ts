/**
 * Per-image CIDEr-D of the splits the tables other than nocaps's evaluate (COCO-like test, CC3M-like dev and test,
 * the narratives' test, the CC3M captioner grid's tests), read back from the captions a run stored
 * (`runs/<id>/predictions/<split>.json`, whose items carry their references, and a domain on nocaps) and kept
 * only where their mean reproduces the corpus CIDEr-D the table reports; otherwise a note says why. Each table's
 * one-seed result keeps them (`perImage`, `perImageNotes`) so that its claims can carry bootstrap intervals
 * (`bootstrapCaptioners`); nothing reads them yet. The nocaps rows (CC12M Tables 3, 10, 11, 12, Fig. 6) have theirs
 * from cc12m/per-image.ts, which checks every domain too.
 */
import * as path from 'path';

import { ciderMeans, splitPerImageCider, type DomainOrOverall, type SplitPerImageCider } from '../metrics/bootstrap';
import type { CaptionCase } from '../metrics/evaluate';
import { predictionSplits, readPredictions } from '../runs/layout';

/** Stored captions agree with the reported score to this much (CIDEr ×100): the same captions, scored again. */
export const SAME_SCORES = 1e-6;

/** A row's per-image CIDEr-D on each split it was scored on, by the row's name for the split (`dev`, `test`, `coco`, …). */
export type SplitsPerImage<K extends string = string> = Partial<Record<K, SplitPerImageCider>>;

/** One split of a row whose per-image scores are wanted. */
export interface StoredSplit<K extends string = string> {
  /** The row's label in the table. */
  row: string;
  /** The row's name for the split (the key of `SplitsPerImage`). */
  key: K;
  /** The run that stored the captions (a folder under the runs root); absent: nothing to read. */
  run: string | undefined;
  /** The split's name in the run layout (`coco-test`, `cc3m-dev`, …). */
  split: string;
  /** The corpus CIDEr-D the table reports for it, ×100; absent or NaN: not reported, nothing kept. */
  cider: number | undefined;
}

/** Per-image CIDEr-D of a run's stored split (with domains where its items carry them); undefined when the run has no captions of it. */
export function storedSplitPerImage(runDir: string, split: string): SplitPerImageCider | undefined {
  if (!predictionSplits(runDir).includes(split)) return undefined;
  const cases = readPredictions(runDir, split).items.map((item): CaptionCase => {
    const id = String(item.image_id);
    if (!item.references || item.references.length === 0) throw new Error(`image ${id} has no stored references`);
    return { imageId: id, references: item.references, candidate: item.caption, ...(item.domain ? { domain: item.domain } : {}) };
  });
  return splitPerImageCider(cases);
}

/** One split of a row to read back and check against the scores the table reports for it (×100, by domain). */
export interface CheckedSplit<K extends string = string> {
  row: string;
  key: K;
  run: string | undefined;
  split: string;
  /** What the table reports: overall, and per nocaps domain where it has them; absent: not reported, nothing kept. */
  reported: Partial<Record<DomainOrOverall, number>> | undefined;
}

/**
 * The one "per-image scores of what a table reports": each wanted split read back by `read` from its run under
 * `runsRoot`, kept only where the means of its per-image scores give every reported figure (within `SAME_SCORES`;
 * a figure NaN on both sides is no gap), otherwise (no stored captions, captions that score otherwise, an unreadable
 * file) a note says why. Every wanted row has an entry (empty when none of its splits is kept).
 */
export function checkedPerImage<S extends SplitPerImageCider, K extends string>(
  wanted: readonly CheckedSplit<K>[],
  runsRoot: string,
  read: (runDir: string, split: string) => S | undefined,
): { perImage: Record<string, Partial<Record<K, S>>>; notes: string[] } {
  const perImage: Record<string, Partial<Record<K, S>>> = {};
  const notes: string[] = [];
  for (const { row, key, run, split, reported } of wanted) {
    const found = (perImage[row] ??= {});
    if (!run || !reported) continue;
    const where = `${row} ${key} (${run} ${split})`;
    try {
      const scores = read(path.join(runsRoot, run), split);
      if (!scores) {
        notes.push(`${where}: no stored captions`);
        continue;
      }
      const means = ciderMeans(scores);
      const figures = Object.keys(reported) as DomainOrOverall[];
      const gapAt = (d: DomainOrOverall) => (Number.isNaN(means[d]) && Number.isNaN(reported[d]) ? 0 : Math.abs(100 * means[d] - reported[d]!));
      const gap = Math.max(...figures.map(gapAt));
      if (gap > SAME_SCORES || !Number.isFinite(gap)) {
        const overall = figures.length > 1 ? ' overall' : '';
        notes.push(`${where}: the stored captions score ${(100 * means.overall).toFixed(2)}${overall}, the row ${reported.overall!.toFixed(2)}`);
        continue;
      }
      found[key] = scores;
    } catch (e) {
      notes.push(`${where}: ${(e as Error).message}`);
    }
  }
  return { perImage, notes };
}

/** `checkedPerImage` of splits whose table reports one overall CIDEr-D each (NaN or absent: not reported). */
export function perImageOfSplits<K extends string>(
  wanted: readonly StoredSplit<K>[],
  runsRoot: string,
): { perImage: Record<string, SplitsPerImage<K>>; notes: string[] } {
  const checked = wanted.map(({ cider, ...at }) => ({ ...at, reported: cider === undefined || Number.isNaN(cider) ? undefined : { overall: cider } }));
  return checkedPerImage(checked, runsRoot, storedSplitPerImage);
}

/** A result's per-image fields: the scores, and the notes where some are missing (only when there are notes). */
export function perImageFields<P>(found: { perImage: P; notes: string[] }): { perImage: P; perImageNotes?: string[] } {
  return { perImage: found.perImage, ...(found.notes.length > 0 ? { perImageNotes: found.notes } : {}) };
}
