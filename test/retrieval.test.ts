import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retrievalRecall } from '../src/metrics/retrieval';

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
