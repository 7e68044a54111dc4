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
 * @param similarity rows are images, columns are texts
 * @param textImage the image index each text belongs to (default: text j ↔ image j)
 */
export function retrievalRecall(
  similarity: readonly (readonly number[])[],
  textImage: readonly number[] = similarity.map((_, i) => i),
  ks: readonly number[] = DEFAULT_RECALL_KS,
): RetrievalRecall {
  checkMatrix(similarity, textImage);
  const imageRanks = similarity.map((row, i) => bestRank(row, (j) => textImage[j] === i));
  const textRanks = textImage.map((image, j) =>
    bestRank(
      similarity.map((row) => row[j]),
      (i) => i === image,
    ),
  );
  const recall = (ranks: number[], k: number) => ranks.filter((r) => r < k).length / ranks.length;
  const result: RetrievalRecall = { imageToText: {}, textToImage: {} };
  for (const k of ks) {
    result.imageToText[`R@${k}`] = recall(imageRanks, k);
    result.textToImage[`R@${k}`] = recall(textRanks, k);
  }
  return result;
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
