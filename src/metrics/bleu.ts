/**
 * BLEU-1..4 (Papineni et al. 2002) exactly as coco-caption's BleuScorer computes it:
 * clipped n-gram precisions, brevity penalty against the reference length closest to
 * the candidate's (ties → the shorter reference), and coco-caption's smoothing
 * constants (1e-15 added to matches, 1e-9 to guesses and lengths), both corpus-level
 * (statistics summed over images) and per image.
 */
import { countNgrams } from './ngrams';
import { Candidates, MetricScores, References, imageIdsOf, splitTokens } from './types';

export const BLEU_MAX_N = 4;
const TINY = 1e-15;
const SMALL = 1e-9;

interface BleuStats {
  candidateLength: number;
  referenceLength: number;
  guess: number[];
  correct: number[];
}

function closestReferenceLength(referenceLengths: number[], candidateLength: number): number {
  let best = referenceLengths[0];
  for (const length of referenceLengths) {
    const gap = Math.abs(length - candidateLength);
    const bestGap = Math.abs(best - candidateLength);
    if (gap < bestGap || (gap === bestGap && length < best)) best = length;
  }
  return best;
}

/** Matches and guesses of one candidate against its references. */
export function bleuStats(candidate: readonly string[], references: readonly (readonly string[])[], maxN = BLEU_MAX_N): BleuStats {
  const maxRefCounts: Map<string, number>[] = Array.from({ length: maxN }, () => new Map());
  for (const reference of references) {
    countNgrams(reference, maxN).forEach((counts, order) => {
      const best = maxRefCounts[order];
      for (const [ngram, count] of counts) {
        if (count > (best.get(ngram) ?? 0)) best.set(ngram, count);
      }
    });
  }
  const guess: number[] = [];
  const correct: number[] = [];
  countNgrams(candidate, maxN).forEach((counts, order) => {
    guess.push(Math.max(0, candidate.length - order));
    let matched = 0;
    for (const [ngram, count] of counts) matched += Math.min(count, maxRefCounts[order].get(ngram) ?? 0);
    correct.push(matched);
  });
  return {
    candidateLength: candidate.length,
    referenceLength: closestReferenceLength(references.map((r) => r.length), candidate.length),
    guess,
    correct,
  };
}

/** BLEU-1..maxN from (possibly summed) statistics, with coco-caption's smoothing. */
export function bleuFromStats(stats: BleuStats): number[] {
  const scores: number[] = [];
  let product = 1;
  for (let k = 0; k < stats.guess.length; k++) {
    product *= (stats.correct[k] + TINY) / (stats.guess[k] + SMALL);
    scores.push(product ** (1 / (k + 1)));
  }
  const ratio = (stats.candidateLength + TINY) / (stats.referenceLength + SMALL);
  if (ratio < 1) {
    const brevityPenalty = Math.exp(1 - 1 / ratio);
    for (let k = 0; k < scores.length; k++) scores[k] *= brevityPenalty;
  }
  return scores;
}

export function score(references: References, candidates: Candidates, maxN = BLEU_MAX_N): MetricScores {
  const ids = imageIdsOf(references, candidates);
  const total: BleuStats = { candidateLength: 0, referenceLength: 0, guess: new Array(maxN).fill(0), correct: new Array(maxN).fill(0) };
  const perImage: Record<string, number>[] = Array.from({ length: maxN }, () => ({}));
  for (const id of ids) {
    const stats = bleuStats(splitTokens(candidates[id]), references[id].map(splitTokens), maxN);
    total.candidateLength += stats.candidateLength;
    total.referenceLength += stats.referenceLength;
    for (let k = 0; k < maxN; k++) {
      total.guess[k] += stats.guess[k];
      total.correct[k] += stats.correct[k];
    }
    bleuFromStats(stats).forEach((value, k) => (perImage[k][id] = value));
  }
  const corpus = bleuFromStats(total);
  const result: MetricScores = {};
  for (let k = 0; k < maxN; k++) result[`Bleu_${k + 1}`] = { corpus: corpus[k], perImage: perImage[k] };
  return result;
}
