import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { pretrainLearningRate, pretrainWorldCnn } from '../src/train/world-cnn';
import { conv3x3, worldCnn, worldCnnId, labelSpace, coveredCells, DEFAULT_PRETRAIN, type PretrainOptions } from '../src/vision/world-cnn';
import { MobilenetBackbone } from '../src/vision/mobilenet';
import { computeFeatures } from '../src/vision/features';
import { buildConcepts } from '../src/world/concepts';
import { initBackend } from '../src/tf/backend';

const TINY = { inputSize: 16, channels: [8, 16] };
const RECIPE: PretrainOptions = { ...DEFAULT_PRETRAIN, images: 32, steps: 16, batchSize: 8, heldOut: 16, learningRate: 3e-3 };

test('conv3x3: value and gradients equal tf.conv2d "same"', async () => {
  await tf.setBackend('cpu');
  const x = tf.randomNormal([2, 6, 6, 3], 0, 1, 'float32', 1) as tf.Tensor4D;
  const w = tf.randomNormal([3, 3, 3, 5], 0, 1, 'float32', 2) as tf.Tensor4D;
  const f1 = (a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 1, 'same')));
  const f2 = (a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(conv3x3(tf, a as tf.Tensor4D, b as tf.Tensor4D)));
  const [g1x, g1w] = tf.grads(f1)([x, w]);
  const [g2x, g2w] = tf.grads(f2)([x, w]);
  const close = (a: tf.Tensor, b: tf.Tensor) => assert.ok(tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]! < 1e-3 * Math.max(1, tf.max(tf.abs(a)).dataSync()[0]!));
  close(conv3x3(tf, x, w), tf.conv2d(x, w, 1, 'same'));
  close(g1x!, g2x!);
  close(g1w!, g2w!);
});

test('world-cnn pre-training reduces its loss, is deterministic, and is cached by its recipe (cpu)', async () => {
  await tf.setBackend('cpu');
  const a = await pretrainWorldCnn(TINY, RECIPE);
  const m = a.metrics!;
  assert.ok(m.lossEnd < m.lossStart, `loss ${m.lossStart} → ${m.lossEnd}`);
  assert.equal(m.losses.length, RECIPE.steps);
  assert.ok(m.mAP >= 0 && m.mAP <= 1 && m.top1 >= 0 && m.top1 <= 1);
  assert.equal(a.featureDim, 16);
  const b = await pretrainWorldCnn(TINY, RECIPE);
  assert.deepEqual(b.metrics!.losses, m.losses);
  const x = tf.randomUniform([1, 16, 16, 3], 0, 255, 'float32', 3) as tf.Tensor4D;
  assert.deepEqual(Array.from(a.featureMap(x).dataSync()), Array.from(b.featureMap(x).dataSync()));
  // the cache: the first call trains and saves, the second loads the same weights
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-vision-'));
  const lines: string[] = [];
  const options = { config: TINY, pretrain: { ...RECIPE, steps: 4 }, cacheDir: dir, log: (l: string) => lines.push(l) };
  // without a trainer, weights that are not cached are an error naming them
  await assert.rejects(worldCnn(options), /world-cnn: no weights .* in .*backbones; load it through trainedBackbone/);
  const first = await worldCnn({ ...options, train: pretrainWorldCnn });
  const second = await worldCnn(options);
  assert.equal(first.id, second.id);
  assert.equal(first.id, worldCnnId(TINY, { ...RECIPE, steps: 4 }, 'cpu'));
  assert.match(lines[0]!, /pre-trained/);
  assert.match(lines[1]!, /loaded/);
  assert.deepEqual(Array.from(first.featureMap(x).dataSync()), Array.from(second.featureMap(x).dataSync()));
  // another recipe is another id
  assert.notEqual(worldCnnId(TINY, { ...RECIPE, steps: 5 }, 'cpu'), first.id);
  assert.notEqual(worldCnnId(TINY, RECIPE, 'wasm'), worldCnnId(TINY, RECIPE, 'cpu'));
  for (const model of [a, b, first, second]) model.dispose();
});

test('pre-training schedule: linear warm-up over 5% of the steps, then cosine decay to a tenth', () => {
  const options = { steps: 120, learningRate: 2e-3 };
  // warm-up of 6 steps: 1/6, 2/6, … of the peak, the peak at the first step after it
  assert.equal(pretrainLearningRate(options, 0), 2e-3 / 6);
  assert.ok(Math.abs(pretrainLearningRate(options, 5) - 2e-3) < 1e-15);
  assert.equal(pretrainLearningRate(options, 6), 2e-3);
  const rates = Array.from({ length: 120 }, (_, step) => pretrainLearningRate(options, step));
  for (let step = 7; step < 120; step++) assert.ok(rates[step]! < rates[step - 1]!, `step ${step}`);
  assert.ok(rates[119]! > 2e-4 && rates[119]! < 2.01e-4, `last ${rates[119]}`);
  // half-way through the decay: the mean of the peak and the floor
  assert.ok(Math.abs(pretrainLearningRate(options, 6 + 57) - 1.1e-3) < 1e-12);
});

test('pre-training labels: concepts then their hypernyms; covered cells of a box', () => {
  const concepts = buildConcepts();
  const plain = labelSpace(concepts, false);
  assert.equal(plain.names.length, concepts.length);
  const space = labelSpace(concepts, true);
  assert.ok(space.names.length > concepts.length);
  const durian = concepts.findIndex((c) => c.name === 'durian');
  assert.equal(space.ofConcept[durian]![0], durian);
  assert.ok(space.ofConcept[durian]!.slice(1).some((l) => space.names[l] === 'edible fruit' || space.names[l] === 'fruit'));
  assert.deepEqual(coveredCells(0, 0, 0.25, 0.25, 8), [0, 1, 8, 9]);
  assert.deepEqual(coveredCells(0.1, 0.1, 0.15, 0.15, 8), []);
});

test('mobilenet: the bundled model loads offline and gives a 7×7 map, resampled to the 8×8 grid (wasm)', async () => {
  await initBackend({ order: ['wasm'], logger: () => undefined });
  const backbone = await MobilenetBackbone.load();
  assert.equal(backbone.featureDim, 256);
  assert.equal(backbone.id, 'mobilenet-v2-mid-d256-p0');
  const out: number[] = [];
  for await (const batch of computeFeatures(backbone, [{ key: 'world://0/coco-val/0.jpg' }])) {
    const f = batch.features[0]!;
    assert.equal(f.grid.length, 64 * 256);
    assert.equal(f.global.length, 256);
    out.push(...f.global);
  }
  assert.ok(out.every(Number.isFinite));
  assert.ok(out.some((v) => v !== 0));
  const map = backbone.featureMap(tf.zeros([1, 224, 224, 3]) as tf.Tensor4D);
  assert.deepEqual(map.shape, [1, 7, 7, 256]);
  backbone.dispose();
});
