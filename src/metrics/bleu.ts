/**
 * BLEU-1..4 (Papineni et al. 2002) exactly as coco-caption's BleuScorer computes it:
 * clipped n-gram precisions, brevity penalty against the reference length closest to
 * the candidate's (ties → the shorter reference), and coco-caption's smoothing
 * constants (1e-15 added to matches, 1e-9 to guesses and lengths), both corpus-level
 * (statistics summed over images) and per image.
 */
import { COUNTED_MAX_N, CountedCorpus, CountedImage, countCorpus, countOf } from './ngrams';
import { Candidates, MetricScores, References } from './types';

const TINY = 1e-15;
const SMALL = 1e-9;

export interface BleuStats {
  candidateLength: number;
  referenceLength: number;
  guess: number[];
  correct: number[];
}

function closestReferenceLength(referenceLengths: readonly number[], candidateLength: number): number {
  let best = referenceLengths[0];
  for (const length of referenceLengths) {
    const gap = Math.abs(length - candidateLength);
    const bestGap = Math.abs(best - candidateLength);
    if (gap < bestGap || (gap === bestGap && length < best)) best = length;
  }
  return best;
}

/** Matches and guesses of one counted image. */
export function bleuStats(image: CountedImage): BleuStats {
  const guess: number[] = [];
  const correct: number[] = [];
  image.candidate.forEach((counts, order) => {
    guess.push(Math.max(0, image.candidateLength - order));
    let matched = 0;
    for (let i = 0; i < counts.ids.length; i++) {
      let maxInReference = 0;
      for (const reference of image.references) maxInReference = Math.max(maxInReference, countOf(reference[order], counts.ids[i]));
      matched += Math.min(counts.counts[i], maxInReference);
    }
    correct.push(matched);
  });
  return {
    candidateLength: image.candidateLength,
    referenceLength: closestReferenceLength(image.referenceLengths, image.candidateLength),
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

/** BLEU over images already counted (shared with CIDEr-D by `evaluate`). */
export function scoreCounted(corpus: CountedCorpus): MetricScores {
  const maxN = corpus.maxN;
  const total: BleuStats = { candidateLength: 0, referenceLength: 0, guess: new Array(maxN).fill(0), correct: new Array(maxN).fill(0) };
  const perImage: Record<string, number>[] = Array.from({ length: maxN }, () => ({}));
  for (let i = 0; i < corpus.imageIds.length; i++) {
    const stats = bleuStats(corpus.image(i));
    total.candidateLength += stats.candidateLength;
    total.referenceLength += stats.referenceLength;
    for (let k = 0; k < maxN; k++) {
      total.guess[k] += stats.guess[k];
      total.correct[k] += stats.correct[k];
    }
    bleuFromStats(stats).forEach((value, k) => (perImage[k][corpus.imageIds[i]] = value));
  }
  const corpusScores = bleuFromStats(total);
  const result: MetricScores = {};
  for (let k = 0; k < maxN; k++) result[`Bleu_${k + 1}`] = { corpus: corpusScores[k], perImage: perImage[k] };
  return result;
}

export function score(references: References, candidates: Candidates, maxN = COUNTED_MAX_N): MetricScores {
  return scoreCounted(countCorpus(references, candidates, maxN));
}
