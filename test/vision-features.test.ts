import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { WorldCnn } from '../src/vision/world-cnn';
import { GRID_SIZE, computeFeatures, featuresFromMap, resampleGrid, worldImageInfo, type ImageFeatures } from '../src/vision/features';
import { worldFor } from '../src/data/images';
import { geometry, normalizedBox, orderRegions, roiAverage, tileBoxes } from '../src/vision/regions';
import { grainAlpha, renderScenePixels, decodePixels } from '../src/vision/pixels';

const CONFIG = { inputSize: 32, channels: [8, 8, 16] };

async function cpu(): Promise<void> {
  await tf.setBackend('cpu');
  await tf.ready();
}

async function featuresOf(model: WorldCnn, keys: string[]): Promise<ImageFeatures[]> {
  const out: ImageFeatures[] = [];
  for await (const batch of computeFeatures(
    model,
    keys.map((key) => ({ key })),
    { batchSize: 2 },
  )) {
    assert.deepEqual(batch.failures, []);
    out.push(...batch.features);
  }
  return out;
}

test('features: shapes, regions from ground-truth boxes, tags, and identical floats on a second run (cpu)', async () => {
  await cpu();
  const model = WorldCnn.init(CONFIG, 7, 600);
  const keys = [0, 1, 2].map((id) => `world://0/coco-train/${id}.jpg`);
  const a = await featuresOf(model, keys);
  const b = await featuresOf(WorldCnn.init(CONFIG, 7, 600), keys);
  const d = model.featureDim;
  assert.equal(a.length, 3);
  for (const [i, f] of a.entries()) {
    const scene = worldFor(0).scene('coco-train', i);
    const r = scene.objects.length;
    assert.equal(f.key, keys[i]);
    assert.equal(f.global.length, d);
    assert.equal(f.grid.length, GRID_SIZE * GRID_SIZE * d);
    assert.equal(f.regions.length, r * d);
    assert.equal(f.boxes.length, r * 5);
    assert.ok(f.tags.length > 0 && f.tags.length <= 16);
    assert.deepEqual(f.tags, worldImageInfo(keys[i]!).tags.slice(0, 16));
    // global = mean of the grid
    for (let k = 0; k < d; k++) {
      let s = 0;
      for (let c = 0; c < 64; c++) s += f.grid[c * d + k]!;
      assert.ok(Math.abs(s / 64 - f.global[k]!) < 1e-5);
    }
    // the boxes are the scene's objects, in fractions, largest first
    const expected = orderRegions(scene.objects.map((o) => normalizedBox(o.box, scene.width, scene.height)));
    for (let j = 0; j < r; j++) {
      const g = geometry(expected[j]!);
      for (let k = 0; k < 5; k++) assert.ok(Math.abs(f.boxes[j * 5 + k]! - g[k]!) < 1e-6);
      if (j > 0) assert.ok(f.boxes[j * 5 + 4]! <= f.boxes[(j - 1) * 5 + 4]!);
    }
    // same input, same floats
    assert.deepEqual(Array.from(f.global), Array.from(b[i]!.global));
    assert.deepEqual(Array.from(f.grid), Array.from(b[i]!.grid));
    assert.deepEqual(Array.from(f.regions), Array.from(b[i]!.regions));
  }
  model.dispose();
});

test('region geometry: known boxes give their corners and relative area', () => {
  assert.deepEqual(normalizedBox({ x: 50, y: 20, width: 100, height: 60 }, 200, 100), [0.25, 0.2, 0.75, 0.8]);
  const g = geometry([0.25, 0.2, 0.75, 0.8]);
  assert.deepEqual(g.slice(0, 4), [0.25, 0.2, 0.75, 0.8]);
  assert.ok(Math.abs(g[4] - 0.3) < 1e-12);
  // clipped to the image
  assert.deepEqual(normalizedBox({ x: -10, y: 90, width: 30, height: 30 }, 100, 100), [0, 0.9, 0.2, 1]);
  // ordering by area, empty boxes dropped, capped at 16
  const boxes: [number, number, number, number][] = [
    [0, 0, 0.1, 0.1],
    [0, 0, 0.5, 0.5],
    [0.2, 0.2, 0.2, 0.9],
    [0, 0, 1, 0.2],
  ];
  assert.deepEqual(orderRegions(boxes), [
    [0, 0, 0.5, 0.5],
    [0, 0, 1, 0.2],
    [0, 0, 0.1, 0.1],
  ]);
  assert.equal(orderRegions(tileBoxes(5)).length, 16);
});

test('ROI average: whole cells, partial cells, and a box inside one cell', () => {
  const g = 4;
  const d = 2;
  const map = new Float32Array(g * g * d);
  for (let c = 0; c < g * g; c++) {
    map[c * d] = c;
    map[c * d + 1] = 1;
  }
  const out = new Float32Array(d);
  roiAverage(map, g, d, [0, 0, 0.5, 0.5], out); // cells 0, 1, 4, 5
  assert.deepEqual(Array.from(out), [2.5, 1]);
  roiAverage(map, g, d, [0.3, 0.3, 0.45, 0.45], out); // inside cell 5
  assert.deepEqual(Array.from(out), [5, 1]);
  roiAverage(map, g, d, [0, 0, 0.375, 0.25], out); // cell 0 whole, cell 1 half: (0·1 + 1·0.5) / 1.5
  assert.ok(Math.abs(out[0]! - 1 / 3) < 1e-6);
  // resampling a 4×4 map to 8×8 and back keeps it
  const up = resampleGrid(map, 4, d, 8);
  const back = resampleGrid(up, 8, d, 4);
  for (let i = 0; i < map.length; i++) assert.ok(Math.abs(back[i]! - map[i]!) < 1e-5);
});

test('features from a map: images without boxes have no regions; tiles give nine', () => {
  const d = 4;
  const map = new Float32Array(8 * 8 * d).map((_, i) => i % 7);
  const none = featuresFromMap('k', map, 8, d, [], ['a', 'b']);
  assert.equal(none.regions.length, 0);
  assert.equal(none.boxes.length, 0);
  const tiles = featuresFromMap('k', map, 8, d, tileBoxes(3), []);
  assert.equal(tiles.regions.length, 9 * d);
  assert.ok(Math.abs(tiles.boxes[4]! - 1 / 9) < 1e-6);
});

test('direct small rendering matches decode + resize of the full-size image', async () => {
  const world = worldFor(0);
  let total = 0;
  let n = 0;
  for (const id of [0, 1, 2, 3]) {
    const scene = world.scene('coco-val', id);
    const direct = await renderScenePixels(scene, world.concepts, 32);
    const full = await decodePixels(await world.render('coco-val', id), 32);
    assert.equal(direct.rgb.length, 32 * 32 * 3);
    assert.equal(full.width, scene.width);
    assert.ok(grainAlpha(scene) >= 0 && grainAlpha(scene) < 0.3);
    for (let i = 0; i < direct.rgb.length; i++) total += Math.abs(direct.rgb[i]! - full.rgb[i]!);
    n += direct.rgb.length;
  }
  assert.ok(total / n < 8, `mean absolute difference ${(total / n).toFixed(2)} / 255`);
});
