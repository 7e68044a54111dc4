import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { buildEncoderInput, encoderArrays, gridPositionEncoding, regionOrder, tagWords, visualLayout } from '../src/models/visual-input';
import type { ImageFeatures } from '../src/vision/features';
import { seededRandom } from '../src/util/random';

const D = 8;

function image(key: string, regions: number): ImageFeatures {
  return {
    key,
    global: Float32Array.from({ length: D }, () => 100),
    grid: Float32Array.from({ length: 64 * D }, (_, i) => Math.floor(i / D)),
    regions: Float32Array.from({ length: regions * D }, (_, i) => 1 + Math.floor(i / D)),
    boxes: Float32Array.from({ length: regions * 5 }, (_, i) => (Math.floor(i / 5) + 1) / 100 + (i % 5) / 1000),
    tags: ['hot dog', 'food', 'still life photography', 'dish', 'a b c d e f g h i j k l'],
  };
}

test('layouts: positions, visualDim and geometryDim per mode', () => {
  assert.deepEqual(visualLayout('global', 96), { mode: 'global', positions: 1, visualDim: 96, geometryDim: 0, maxTags: 16 });
  assert.deepEqual(visualLayout('grid', 96), { mode: 'grid', positions: 64, visualDim: 96, geometryDim: 0, maxTags: 16 });
  assert.deepEqual(visualLayout('regions', 96), { mode: 'regions', positions: 17, visualDim: 96, geometryDim: 5, maxTags: 16 });
});

test('regions mode: global first with [0,0,1,1,1], regions with their boxes, padding masked', () => {
  const a = encoderArrays([image('x', 3), image('y', 0)], { mode: 'regions' });
  const N = 17;
  assert.equal(a.visual.length, 2 * N * D);
  assert.deepEqual(Array.from(a.visualMask.subarray(0, N)), [1, 1, 1, 1, ...new Array(13).fill(0)]);
  assert.deepEqual(Array.from(a.visualMask.subarray(N)), [1, ...new Array(16).fill(0)]);
  assert.deepEqual(Array.from(a.geometry!.subarray(0, 5)), [0, 0, 1, 1, 1]);
  assert.equal(a.visual[0], 100);
  for (let r = 1; r <= 3; r++) {
    assert.equal(a.visual[r * D], r);
    assert.ok(Math.abs(a.geometry![r * 5]! - r / 100) < 1e-6);
  }
  // padding positions are zero
  assert.ok(a.visual.subarray(4 * D, N * D).every((v) => v === 0));
  assert.ok(a.geometry!.subarray(4 * 5, N * 5).every((v) => v === 0));
  assert.equal(a.tags, undefined);
});

test('permutation augmentation keeps the set of (vector, geometry) pairs and the global first', () => {
  const f = image('x', 12);
  const plain = encoderArrays([f], { mode: 'regions' });
  const shuffled = encoderArrays([f], { mode: 'regions', permute: seededRandom(42) });
  const pairs = (a: ReturnType<typeof encoderArrays>) =>
    Array.from({ length: 12 }, (_, k) => `${a.visual[(k + 1) * D]}@${Array.from(a.geometry!.subarray((k + 1) * 5, (k + 2) * 5)).join(',')}`);
  assert.notDeepEqual(pairs(shuffled), pairs(plain));
  assert.deepEqual([...pairs(shuffled)].sort(), [...pairs(plain)].sort());
  assert.equal(shuffled.visual[0], 100);
  assert.deepEqual(Array.from(shuffled.visualMask), Array.from(plain.visualMask));
  // seeded: the same seed gives the same order
  assert.deepEqual(regionOrder(12, seededRandom(42)), regionOrder(12, seededRandom(42)));
  assert.deepEqual(
    [...regionOrder(12, seededRandom(1))].sort((p, q) => p - q),
    Array.from({ length: 12 }, (_, i) => i),
  );
});

test('grid mode adds 2-D sinusoidal position encodings; global mode has one position', () => {
  const grid = encoderArrays([image('x', 0)], { mode: 'grid' });
  const pe = gridPositionEncoding(8, D);
  for (let i = 0; i < 64 * D; i++) assert.ok(Math.abs(grid.visual[i]! - (Math.floor(i / D) + pe[i]!)) < 1e-4);
  // row encodings in the first half, column encodings in the second
  assert.equal(pe[0], 0); // sin(row 0)
  assert.equal(pe[1], 1); // cos(row 0)
  assert.ok(Math.abs(pe[(1 * 8 + 0) * D]! - Math.sin(1)) < 1e-6); // row 1, column 0
  assert.ok(Math.abs(pe[(0 * 8 + 1) * D + D / 2]! - Math.sin(1)) < 1e-6); // row 0, column 1
  assert.equal(grid.geometry, undefined);
  const plain = encoderArrays([image('x', 0)], { mode: 'grid', positionEncoding: false });
  assert.equal(plain.visual[D * 5], 5);
  const global = encoderArrays([image('x', 2)], { mode: 'global' });
  assert.deepEqual(Array.from(global.visual), new Array(D).fill(100));
  assert.deepEqual(Array.from(global.visualMask), [1]);
});

test('tags: phrases split into words, at most 16 tokens, PAD_ID padding', () => {
  assert.deepEqual(tagWords(['Hot Dog', ' food ']), ['hot', 'dog', 'food']);
  const words = new Map<string, number>();
  const tokenId = (w: string) => {
    if (!words.has(w)) words.set(w, 10 + words.size);
    return words.get(w)!;
  };
  const a = encoderArrays([image('x', 0), { ...image('y', 0), tags: ['cat'] }], { mode: 'global', tokenId });
  const row0 = Array.from(a.tags!.subarray(0, 16));
  assert.equal(row0.length, 16);
  assert.ok(row0.every((t) => t >= 10));
  assert.deepEqual([...words.keys()].slice(0, 8), ['hot', 'dog', 'food', 'still', 'life', 'photography', 'dish', 'a']);
  assert.deepEqual(Array.from(a.tags!.subarray(16)), [words.get('cat')!, ...new Array(15).fill(0)]);
});

test('buildEncoderInput makes tensors of the layout shapes', async () => {
  await tf.setBackend('cpu');
  const input = buildEncoderInput([image('x', 2), image('y', 5)], { mode: 'regions', tokenId: () => 7 });
  assert.deepEqual(input.visual.shape, [2, 17, D]);
  assert.deepEqual(input.visualMask.shape, [2, 17]);
  assert.deepEqual(input.geometry!.shape, [2, 17, 5]);
  assert.deepEqual(input.tags!.shape, [2, 16]);
  assert.equal(input.tags!.dtype, 'int32');
  tf.dispose([input.visual, input.visualMask, input.geometry!, input.tags!]);
});
