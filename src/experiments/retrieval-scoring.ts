/**
 * Retrieval scoring (CC12M Table 8's evaluation): a matching model's cosine similarities over a retrieval set
 * (`similarityMatrix`), the Recall@1/5/10 in both directions with each query's rank behind them, a trained run scored
 * as a whole (`scoreMatchingRun`), and the digest that names the set its stored scores are of (`retrievalSetDigest`).
 * The executor (plan.ts) runs it as a stage's retrieval evaluation; Table 8's rows are in cc12m/table8.ts.
 */
import * as crypto from 'crypto';

import type * as TF from '@tensorflow/tfjs';

import type { MatchingModel } from '../models/matching';
import { recallOfRanks, retrievalRanks, type RetrievalRanks, type RetrievalRecall } from '../metrics/retrieval';
import { loadTf } from '../tf/backend';
import { PAD_ID } from '../text/tokens';
import type { Vocabulary } from '../text/vocab';
import type { EvalImage } from '../train/data';
import { loadRunMatchingModel } from '../train/load';
import type { VisualProvider } from '../train/visual';

/** Token id rows of captions, padded with PAD to the longest (at least one position). */
export function tokenRows(vocab: Vocabulary, captions: readonly string[], maxLen: number): number[][] {
  const ids = captions.map((c) => vocab.encode(c, maxLen));
  const length = Math.max(1, ...ids.map((r) => r.length));
  return ids.map((r) => [...r, ...new Array<number>(length - r.length).fill(PAD_ID)]);
}

/** Recall@1/5/10 (×100) of a retrieval set, both directions. */
export interface Recalls {
  imageToText: Record<'R@1' | 'R@5' | 'R@10', number>;
  textToImage: Record<'R@1' | 'R@5' | 'R@10', number>;
}

const toPercent = (r: RetrievalRecall): Recalls => {
  const pct = (x: Record<string, number>) => ({ 'R@1': 100 * x['R@1']!, 'R@5': 100 * x['R@5']!, 'R@10': 100 * x['R@10']! });
  return { imageToText: pct(r.imageToText), textToImage: pct(r.textToImage) };
};

/** Cosine similarities (images × captions) of a retrieval set under `model`, with each caption's image index. */
export function similarityMatrix(
  model: MatchingModel,
  visual: VisualProvider,
  vocab: Vocabulary,
  images: readonly EvalImage[],
  maxCaptionLen: number,
  chunk = 256,
): { similarity: number[][]; textImage: number[] } {
  const tf = loadTf();
  const embed = (make: (from: number, to: number) => TF.Tensor2D, n: number): TF.Tensor2D => {
    const parts: TF.Tensor2D[] = [];
    for (let from = 0; from < n; from += chunk) parts.push(make(from, Math.min(n, from + chunk)));
    const all = tf.concat(parts, 0) as TF.Tensor2D;
    tf.dispose(parts);
    return all;
  };
  const keys = images.map((i) => i.key);
  const captions = images.flatMap((i) => i.references);
  const textImage = images.flatMap((img, i) => img.references.map(() => i));
  const img = embed((from, to) => {
    const input = visual.encoderInput(keys.slice(from, to), { wordId: (w) => vocab.idOf(w), training: false });
    const e = model.embedImages(input, false);
    tf.dispose([input.visual, input.visualMask, ...(input.geometry ? [input.geometry] : [])]);
    return e;
  }, keys.length);
  const txt = embed((from, to) => {
    const tokens = tf.tensor2d(tokenRows(vocab, captions.slice(from, to), maxCaptionLen), undefined, 'int32');
    const e = model.embedTexts(tokens, false);
    tokens.dispose();
    return e;
  }, captions.length);
  const sim = tf.matMul(img, txt, false, true);
  const similarity = sim.arraySync() as number[][];
  tf.dispose([img, txt, sim]);
  return { similarity, textImage };
}

/**
 * Recall@1/5/10 (×100) of `model` on a retrieval set, with each query's rank they are read from (images, then the
 * captions in the set's order: `retrievalRanks`).
 */
export function retrievalScoresAndRanks(
  model: MatchingModel,
  visual: VisualProvider,
  vocab: Vocabulary,
  images: readonly EvalImage[],
  maxCaptionLen: number,
): { recalls: Recalls; ranks: RetrievalRanks } {
  const { similarity, textImage } = similarityMatrix(model, visual, vocab, images, maxCaptionLen);
  const ranks = retrievalRanks(similarity, textImage);
  return { recalls: toPercent(recallOfRanks(ranks, [1, 5, 10])), ranks };
}

/** Recall@1/5/10 (×100) of `model` on a retrieval set. */
export function retrievalScores(model: MatchingModel, visual: VisualProvider, vocab: Vocabulary, images: readonly EvalImage[], maxCaptionLen: number): Recalls {
  return retrievalScoresAndRanks(model, visual, vocab, images, maxCaptionLen).recalls;
}

/** Digest of a retrieval set (its images and captions, in order): stored scores are read back only for the same set. */
export function retrievalSetDigest(images: readonly EvalImage[]): string {
  return crypto
    .createHash('sha256')
    .update(JSON.stringify(images.map((i) => [i.key, i.references])))
    .digest('hex')
    .slice(0, 16);
}

/** A trained matching run's recalls on a retrieval set (and each query's rank behind them) and its learned temperature. */
export async function scoreMatchingRun(
  runDir: string,
  visual: VisualProvider,
  images: readonly EvalImage[],
  maxCaptionLen: number,
): Promise<{ recalls: Recalls; ranks: RetrievalRanks; temperature: number }> {
  const { model, vocab } = await loadRunMatchingModel(runDir);
  try {
    return { ...retrievalScoresAndRanks(model, visual, vocab, images, maxCaptionLen), temperature: model.temperature() };
  } finally {
    model.dispose();
  }
}
