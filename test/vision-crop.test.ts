import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CC3M_CROPS, croppedFeatures, randomCropBox } from '../src/vision/crop';
import { GRID_SIZE, type ImageFeatures } from '../src/vision/features';
import { seededRandom } from '../src/util/random';

const g = GRID_SIZE;
const d = 3;

/** An image whose cell (r, c) holds [r, c, 1]. */
function gradient(): ImageFeatures {
  const grid = new Float32Array(g * g * d);
  for (let r = 0; r < g; r++) for (let c = 0; c < g; c++) grid.set([r, c, 1], (r * g + c) * d);
  const global = new Float32Array([(g - 1) / 2, (g - 1) / 2, 1]);
  return { key: 'k', global, grid, regions: new Float32Array(0), boxes: new Float32Array(0), tags: [] };
}

test('a whole-image crop keeps the features; a half-image crop stretches its half over the grid', () => {
  const f = gradient();
  const whole = croppedFeatures(f, [0, 0, 1, 1]);
  for (let i = 0; i < whole.grid.length; i++) assert.ok(Math.abs(whole.grid[i]! - f.grid[i]!) < 1e-6);
  for (let k = 0; k < d; k++) assert.ok(Math.abs(whole.global[k]! - f.global[k]!) < 1e-6);

  const left = croppedFeatures(f, [0, 0, 0.5, 1]);
  for (let r = 0; r < g; r++)
    for (let c = 0; c < g; c++) {
      const at = (r * g + c) * d;
      assert.equal(left.grid[at], r, 'rows are unchanged');
      assert.equal(left.grid[at + 1], Math.floor(c / 2), 'output columns 2k and 2k+1 both read input column k');
    }
  assert.ok(Math.abs(left.global[1]! - 1.5) < 1e-6, 'the global vector is the crop mean: columns 0-3');
  assert.ok(Math.abs(left.global[0]! - 3.5) < 1e-6);
});

test("random crops: inside the image, 50-100% of its area, distortion within Inception's range, one per seed", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 2000; i++) {
    const [x1, y1, x2, y2] = randomCropBox(random, CC3M_CROPS);
    assert.ok(x1 >= 0 && y1 >= 0 && x2 <= 1 + 1e-12 && y2 <= 1 + 1e-12 && x1 < x2 && y1 < y2);
    const area = (x2 - x1) * (y2 - y1);
    assert.ok(area <= 1 + 1e-9 && area >= 0.5 - 1e-9, `area ${area}`);
    const aspect = (x2 - x1) / (y2 - y1);
    // a side clipped at the image edge can only bring the aspect nearer 1
    assert.ok(aspect >= 3 / 4 - 1e-9 && aspect <= 4 / 3 + 1e-9, `aspect ${aspect}`);
  }
  assert.deepEqual(randomCropBox(seededRandom(3), CC3M_CROPS), randomCropBox(seededRandom(3), CC3M_CROPS));
  assert.throws(() => randomCropBox(random, { ...CC3M_CROPS, minArea: 0 }), /0 < min ≤ max ≤ 1/);
});
