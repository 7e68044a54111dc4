/**
 * ROUGE-L (Lin 2004) as coco-caption computes it: longest common subsequence between
 * the candidate and each reference; the best precision and the best recall over the
 * references (taken separately) combine into F with beta = 1.2; the corpus value is
 * the mean over images. Tokens are split on single spaces, as coco-caption does.
 */
import { Candidates, MetricScores, References, imageIdsOf } from './types';

export const ROUGE_BETA = 1.2;

// Two DP rows reused across calls: scoring allocates nothing per caption pair.
let previousRow = new Int32Array(64);
let currentRow = new Int32Array(64);

/** Length of the longest common subsequence, O(|a|·|b|) time, O(min) memory. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  if (previousRow.length <= short.length) {
    previousRow = new Int32Array(2 * short.length + 1);
    currentRow = new Int32Array(2 * short.length + 1);
  }
  let previous = previousRow.fill(0, 0, short.length + 1);
  let current = currentRow.fill(0, 0, short.length + 1);
  for (let i = 1; i <= long.length; i++) {
    const token = long[i - 1];
    for (let j = 1; j <= short.length; j++) {
      current[j] = token === short[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], current[j - 1]);
    }
    [previous, current] = [current, previous];
  }
  return previous[short.length];
}

/** ROUGE-L F of one candidate against its references. */
export function rougeL(candidate: readonly string[], references: readonly (readonly string[])[], beta = ROUGE_BETA): number {
  let bestPrecision = 0;
  let bestRecall = 0;
  for (const reference of references) {
    const lcs = lcsLength(reference, candidate);
    bestPrecision = Math.max(bestPrecision, candidate.length === 0 ? 0 : lcs / candidate.length);
    bestRecall = Math.max(bestRecall, reference.length === 0 ? 0 : lcs / reference.length);
  }
  if (bestPrecision === 0 || bestRecall === 0) return 0;
  const b2 = beta * beta;
  return ((1 + b2) * bestPrecision * bestRecall) / (bestRecall + b2 * bestPrecision);
}

export function score(references: References, candidates: Candidates): MetricScores {
  const ids = imageIdsOf(references, candidates);
  const perImage: Record<string, number> = {};
  let sum = 0;
  const split = (text: string) => text.split(' ');
  for (const id of ids) {
    const value = rougeL(split(candidates[id]), references[id].map(split));
    perImage[id] = value;
    sum += value;
  }
  return { ROUGE_L: { corpus: ids.length === 0 ? 0 : sum / ids.length, perImage } };
}
