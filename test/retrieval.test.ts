import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chanceRecall, retrievalRecall } from '../src/metrics/retrieval';

test('a perfect diagonal gives recall 1 at every K in both directions', () => {
  const sim = [
    [0.9, 0.1, 0.2],
    [0.0, 0.8, 0.1],
    [0.3, 0.2, 0.7],
  ];
  const r = retrievalRecall(sim);
  assert.deepEqual(r.imageToText, { 'R@1': 1, 'R@5': 1, 'R@10': 1 });
  assert.deepEqual(r.textToImage, { 'R@1': 1, 'R@5': 1, 'R@10': 1 });
});

test('ranks computed per direction, several texts per image, ties counted against the query', () => {
  // 3 images, 2 texts each (text j belongs to image floor(j/2))
  const sim = [
    [0.5, 0.1, 0.9, 0.0, 0.2, 0.3], // image 0: own texts 0,1; text 2 (0.9) ranks above → best rank 1
    [0.1, 0.2, 0.3, 0.8, 0.0, 0.0], // image 1: own text 3 is best → rank 0
    [0.4, 0.4, 0.4, 0.4, 0.4, 0.4], // image 2: all tied → own texts rank below the 4 tied others
  ];
  const r = retrievalRecall(sim, [0, 0, 1, 1, 2, 2], [1, 2, 5]);
  assert.deepEqual(r.imageToText, { 'R@1': 1 / 3, 'R@2': 2 / 3, 'R@5': 1 });
  // texts: t0 col [.5,.1,.4] rank 0; t1 [.1,.2,.4] rank 2; t2 [.9,.3,.4] image1 → rank 2;
  // t3 [0,.8,.4] rank 0; t4 [.2,0,.4] rank 0; t5 [.3,0,.4] rank 0
  assert.deepEqual(r.textToImage, { 'R@1': 4 / 6, 'R@2': 4 / 6, 'R@5': 1 });
});

test('a constant matrix does not look perfect', () => {
  const r = retrievalRecall([
    [1, 1],
    [1, 1],
  ]);
  assert.equal(r.imageToText['R@1'], 0);
  assert.equal(r.textToImage['R@1'], 0);
});

test('malformed matrices are rejected with the position', () => {
  assert.throws(() => retrievalRecall([[1, 2], [3]]), /row 1 has 1 columns/);
  assert.throws(() => retrievalRecall([[1, NaN]], [0, 0]), /similarity\[0\]\[1\]/);
  assert.throws(() => retrievalRecall([[1, 2]], [0, 3]), /text 1 belongs to image 3/);
  assert.throws(() => retrievalRecall([]), /no rows/);
});

test('chance recall: what a random ranking scores, and a simulated random ranking agrees', () => {
  assert.deepEqual(chanceRecall(100, 500, 1), { imageToText: 1.0000000000000009, textToImage: 1 });
  assert.ok(Math.abs(chanceRecall(1000, 5000, 1).imageToText - 0.1) < 1e-9, "Flickr30k's test set: R@1 0.1");
  assert.equal(chanceRecall(10, 10, 20).textToImage, 100, 'K beyond the images retrieves them all');
  // simulate: 20 images × 3 captions, random similarities; mean image→text R@5 over many draws near the formula
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const images = 20;
  const captionImage = Array.from({ length: 60 }, (_, i) => Math.floor(i / 3));
  let hits = 0;
  const draws = 400;
  for (let t = 0; t < draws; t++) {
    const sims = Array.from({ length: images }, () => captionImage.map(() => random()));
    const r = retrievalRecall(sims, captionImage, [5]);
    hits += r.imageToText['R@5']!;
  }
  const expected = chanceRecall(images, 60, 5).imageToText;
  assert.ok(Math.abs((100 * hits) / draws - expected) < 3, `simulated ${((100 * hits) / draws).toFixed(1)} vs ${expected.toFixed(1)}`);
});
