/**
 * CIDEr-D (Vedantam et al. 2015) as coco-caption computes it: TF-IDF n-gram vectors
 * (n = 1..4) whose document frequencies come from the references of the evaluated set,
 * candidate weights clipped to the reference's, a Gaussian length penalty (sigma 6),
 * averaged over orders and references, times 10.
 *
 * Because IDF is log(#images / df), one image alone (or n-grams present in every image)
 * gets weight 0: a single-image evaluation scores 0, exactly as in coco-caption.
 * Also as in coco-caption, the "length" in the penalty counts bigrams (tokens − 1).
 */
import { countNgrams } from './ngrams';
import { Candidates, MetricScores, References, imageIdsOf, splitTokens } from './types';

export interface CiderOptions {
  maxN: number;
  sigma: number;
}

export const CIDER_D_DEFAULTS: CiderOptions = { maxN: 4, sigma: 6 };

interface TfIdfVector {
  weights: Map<string, number>[];
  norms: number[];
  length: number;
}

function toVector(counts: Map<string, number>[], logDocFreq: (ngram: string) => number, logImageCount: number): TfIdfVector {
  const weights = counts.map((byNgram) => {
    const weighted = new Map<string, number>();
    for (const [ngram, termFreq] of byNgram) weighted.set(ngram, termFreq * (logImageCount - logDocFreq(ngram)));
    return weighted;
  });
  const norms = weights.map((byNgram) => {
    let sumSquares = 0;
    for (const w of byNgram.values()) sumSquares += w * w;
    return Math.sqrt(sumSquares);
  });
  let bigrams = 0;
  if (counts.length > 1) for (const tf of counts[1].values()) bigrams += tf;
  return { weights, norms, length: bigrams };
}

function similarity(candidate: TfIdfVector, reference: TfIdfVector, sigma: number): number[] {
  const delta = candidate.length - reference.length;
  const lengthPenalty = Math.exp(-(delta * delta) / (2 * sigma * sigma));
  return candidate.weights.map((byNgram, order) => {
    const refWeights = reference.weights[order];
    let value = 0;
    for (const [ngram, weight] of byNgram) {
      const refWeight = refWeights.get(ngram) ?? 0;
      value += Math.min(weight, refWeight) * refWeight;
    }
    const normProduct = candidate.norms[order] * reference.norms[order];
    if (candidate.norms[order] !== 0 && reference.norms[order] !== 0) value /= normProduct;
    return value * lengthPenalty;
  });
}

export function score(references: References, candidates: Candidates, options: CiderOptions = CIDER_D_DEFAULTS): MetricScores {
  const ids = imageIdsOf(references, candidates);
  const referenceCounts = ids.map((id) => references[id].map((ref) => countNgrams(splitTokens(ref), options.maxN)));

  const docFreq = new Map<string, number>();
  for (const refs of referenceCounts) {
    const seen = new Set<string>();
    for (const counts of refs) for (const byNgram of counts) for (const ngram of byNgram.keys()) seen.add(ngram);
    for (const ngram of seen) docFreq.set(ngram, (docFreq.get(ngram) ?? 0) + 1);
  }
  const logImageCount = Math.log(ids.length);
  const logDocFreq = (ngram: string) => Math.log(Math.max(1, docFreq.get(ngram) ?? 0));

  const perImage: Record<string, number> = {};
  let sum = 0;
  ids.forEach((id, i) => {
    const candidate = toVector(countNgrams(splitTokens(candidates[id]), options.maxN), logDocFreq, logImageCount);
    const summed = new Array(options.maxN).fill(0);
    for (const refCounts of referenceCounts[i]) {
      similarity(candidate, toVector(refCounts, logDocFreq, logImageCount), options.sigma).forEach((v, order) => (summed[order] += v));
    }
    const meanOverOrders = summed.reduce((a, b) => a + b, 0) / options.maxN;
    const value = (meanOverOrders / referenceCounts[i].length) * 10;
    perImage[id] = value;
    sum += value;
  });
  return { CIDEr: { corpus: ids.length === 0 ? 0 : sum / ids.length, perImage } };
}
