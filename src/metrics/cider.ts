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
import { CountedCorpus, SparseCounts, countCorpus } from './ngrams';
import { Candidates, MetricScores, References } from './types';

export interface CiderOptions {
  maxN: number;
  sigma: number;
}

export const CIDER_D_DEFAULTS: CiderOptions = { maxN: 4, sigma: 6 };

/** TF-IDF weights of one sentence per order (aligned with its sorted n-gram ids), their norms, its length. */
interface TfIdfVector {
  ids: Int32Array[];
  weights: number[][];
  norms: number[];
  length: number;
}

function toVector(counts: SparseCounts[], logDocFreq: Float64Array, logImageCount: number): TfIdfVector {
  const weights = counts.map(({ ids, counts: tf }) => {
    const weighted: number[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) weighted[i] = tf[i] * (logImageCount - logDocFreq[ids[i]]);
    return weighted;
  });
  const norms = weights.map((w) => {
    let sumSquares = 0;
    for (let i = 0; i < w.length; i++) sumSquares += w[i] * w[i];
    return Math.sqrt(sumSquares);
  });
  let bigrams = 0;
  if (counts.length > 1) for (const tf of counts[1].counts) bigrams += tf;
  return { ids: counts.map((c) => c.ids), weights, norms, length: bigrams };
}

/** Sum over orders of the clipped cosine similarity, times the length penalty. */
function similaritySum(candidate: TfIdfVector, reference: TfIdfVector, sigma: number): number {
  const delta = candidate.length - reference.length;
  const lengthPenalty = Math.exp(-(delta * delta) / (2 * sigma * sigma));
  let sum = 0;
  for (let order = 0; order < candidate.ids.length; order++) {
    const cIds = candidate.ids[order];
    const rIds = reference.ids[order];
    const cW = candidate.weights[order];
    const rW = reference.weights[order];
    let value = 0;
    for (let i = 0, j = 0; i < cIds.length && j < rIds.length;) {
      if (cIds[i] === rIds[j]) {
        value += Math.min(cW[i], rW[j]) * rW[j];
        i++;
        j++;
      } else if (cIds[i] < rIds[j]) i++;
      else j++;
    }
    if (candidate.norms[order] !== 0 && reference.norms[order] !== 0) value /= candidate.norms[order] * reference.norms[order];
    sum += value * lengthPenalty;
  }
  return sum;
}

/** CIDEr-D over images already counted (shared with BLEU by `evaluate`); orders 1..corpus.maxN. */
export function scoreCounted(corpus: CountedCorpus, sigma = CIDER_D_DEFAULTS.sigma): MetricScores {
  // document frequency: in how many images' reference sets each n-gram occurs
  const docFreq = new Int32Array(corpus.ngramCount);
  const lastImage = new Int32Array(corpus.ngramCount).fill(-1);
  const imageCount = corpus.imageIds.length;
  for (let i = 0; i < imageCount; i++) {
    for (const counts of corpus.image(i).references) {
      for (const { ids } of counts) {
        for (let k = 0; k < ids.length; k++) {
          const ngram = ids[k];
          if (lastImage[ngram] !== i) {
            lastImage[ngram] = i;
            docFreq[ngram]++;
          }
        }
      }
    }
  }
  const logDocFreq = new Float64Array(corpus.ngramCount);
  for (let i = 0; i < docFreq.length; i++) logDocFreq[i] = Math.log(Math.max(1, docFreq[i]));
  const logImageCount = Math.log(imageCount);

  const perImage: Record<string, number> = {};
  let sum = 0;
  for (let i = 0; i < imageCount; i++) {
    const image = corpus.image(i);
    const candidate = toVector(image.candidate, logDocFreq, logImageCount);
    let summed = 0;
    for (const reference of image.references) summed += similaritySum(candidate, toVector(reference, logDocFreq, logImageCount), sigma);
    const value = (summed / corpus.maxN / image.references.length) * 10;
    perImage[corpus.imageIds[i]] = value;
    sum += value;
  }
  return { CIDEr: { corpus: imageCount === 0 ? 0 : sum / imageCount, perImage } };
}

export function score(references: References, candidates: Candidates, options: CiderOptions = CIDER_D_DEFAULTS): MetricScores {
  return scoreCounted(countCorpus(references, candidates, options.maxN), options.sigma);
}
