/**
 * CC3M's split of a pool by URL: each pair's side (train / validation / test) follows from a hash of its URL alone,
 * so a pair keeps its side whatever else is in the pool, in both pipelines' pools alike (CC3M Table 3's splits).
 */
import * as crypto from 'crypto';

export const SPLITS = ['train', 'validation', 'test'] as const;
export type SplitName = (typeof SPLITS)[number];

/** Shares of the held-out splits (the rest is train). */
export interface SplitFractions {
  validation: number;
  test: number;
}

/**
 * The pool's URL split (not `cckit split`'s split of a kept set, data/split.ts): 10% validation, 10% test. CC3M's
 * own proportions (28,355 and 22,530 of 3,369,218 pairs: 0.84% and 0.67%) would leave about four pairs per
 * held-out split of a tiny world's CC3M pool.
 */
export const DEFAULT_URL_SPLIT_FRACTIONS: Readonly<SplitFractions> = { validation: 0.1, test: 0.1 };

/** A URL's uniform number in [0, 1): the first 32 bits of its SHA-256. */
export function urlUnit(url: string): number {
  return crypto.createHash('sha256').update(url).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * The split of a pair, from its URL alone: test when urlUnit(url) < test, validation when < test + validation,
 * else train. A pair keeps its split whatever else is in the pool (and in both pipelines' pools).
 */
export function splitOf(url: string, fractions: Readonly<SplitFractions> = DEFAULT_URL_SPLIT_FRACTIONS): SplitName {
  if (!(fractions.validation >= 0 && fractions.test >= 0 && fractions.validation + fractions.test <= 1))
    throw new Error(`split fractions must be ≥ 0 and sum to ≤ 1, got ${JSON.stringify(fractions)}`);
  const u = urlUnit(url);
  if (u < fractions.test) return 'test';
  if (u < fractions.test + fractions.validation) return 'validation';
  return 'train';
}
