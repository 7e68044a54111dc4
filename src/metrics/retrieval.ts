/**
 * Retrieval Recall@K from an image × text similarity matrix, both directions:
 * image→text (a hit when any of the image's own texts ranks in the top K) and
 * text→image (a hit when the text's image ranks in the top K). Ties rank against the
 * query (a tied wrong item counts as ranked above), so a constant matrix scores 0
 * rather than looking perfect.
 */

export interface RetrievalRecall {
  imageToText: Record<string, number>;
  textToImage: Record<string, number>;
}

export const DEFAULT_RECALL_KS = [1, 5, 10] as const;

function checkMatrix(similarity: readonly (readonly number[])[], textImage: readonly number[]): void {
  const images = similarity.length;
  if (images === 0) throw new Error('similarity matrix has no rows (images)');
  const texts = similarity[0].length;
  similarity.forEach((row, i) => {
    if (row.length !== texts) throw new Error(`similarity row ${i} has ${row.length} columns, row 0 has ${texts}`);
    row.forEach((v, j) => {
      if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`similarity[${i}][${j}] is not a number`);
    });
  });
  if (textImage.length !== texts) throw new Error(`text→image map has ${textImage.length} entries for ${texts} texts`);
  textImage.forEach((image, j) => {
    if (!Number.isInteger(image) || image < 0 || image >= images) throw new Error(`text ${j} belongs to image ${image}, outside 0..${images - 1}`);
  });
}

/** Rank (0 = best) of the best-placed target among scores, ties counted against it. */
function bestRank(scores: readonly number[], isTarget: (index: number) => boolean): number {
  let best = Infinity;
  for (let t = 0; t < scores.length; t++) {
    if (!isTarget(t)) continue;
    let above = 0;
    for (let o = 0; o < scores.length; o++) if (!isTarget(o) && scores[o] >= scores[t]) above++;
    best = Math.min(best, above);
  }
  return best;
}

/**
 * Each query's rank (0 = best) of its best-placed target, ties counted against it: image→text one per image (row),
 * text→image one per text (column). Infinity for an image with no text (it never hits; JSON writes it as null).
 */
export interface RetrievalRanks {
  imageToText: number[];
  textToImage: number[];
}

/**
 * The ranks Recall@K is read from (`retrievalRecall`): a query hits at K when its rank is below K.
 * @param similarity rows are images, columns are texts
 * @param textImage the image index each text belongs to (default: text j ↔ image j)
 */
export function retrievalRanks(similarity: readonly (readonly number[])[], textImage: readonly number[] = similarity.map((_, i) => i)): RetrievalRanks {
  checkMatrix(similarity, textImage);
  const imageToText = similarity.map((row, i) => bestRank(row, (j) => textImage[j] === i));
  const textToImage = textImage.map((image, j) =>
    bestRank(
      similarity.map((row) => row[j]),
      (i) => i === image,
    ),
  );
  return { imageToText, textToImage };
}

/** Per query, 1 where it hits at K (its rank is below K), else 0: their mean is Recall@K. A null rank (Infinity as JSON wrote it) never hits. */
export function hitsAt(ranks: readonly (number | null)[], k: number): number[] {
  return ranks.map((r) => (r !== null && r < k ? 1 : 0));
}

/** Recall@K in both directions from the queries' ranks (`retrievalRanks`): the share of queries ranked below K. */
export function recallOfRanks(ranks: RetrievalRanks, ks: readonly number[] = DEFAULT_RECALL_KS): RetrievalRecall {
  const recall = (of: number[], k: number) => of.filter((r) => r < k).length / of.length;
  const result: RetrievalRecall = { imageToText: {}, textToImage: {} };
  for (const k of ks) {
    result.imageToText[`R@${k}`] = recall(ranks.imageToText, k);
    result.textToImage[`R@${k}`] = recall(ranks.textToImage, k);
  }
  return result;
}

/**
 * @param similarity rows are images, columns are texts
 * @param textImage the image index each text belongs to (default: text j ↔ image j)
 */
export function retrievalRecall(
  similarity: readonly (readonly number[])[],
  textImage: readonly number[] = similarity.map((_, i) => i),
  ks: readonly number[] = DEFAULT_RECALL_KS,
): RetrievalRecall {
  return recallOfRanks(retrievalRanks(similarity, textImage), ks);
}

/**
 * Recall@K (×100) of a retriever that ranks at random, over `images` test images with `captions` captions in all
 * (every image with captions / images of them): image→text, the chance that one of an image's captions is among K
 * of all captions drawn without replacement; text→image, K of the images.
 */
export function chanceRecall(images: number, captions: number, k: number): { imageToText: number; textToImage: number } {
  const perImage = captions / images;
  let missAll = 1;
  for (let j = 0; j < Math.min(k, captions); j++) missAll *= Math.max(0, captions - perImage - j) / (captions - j);
  return { imageToText: 100 * (1 - missAll), textToImage: (100 * Math.min(k, images)) / images };
}
