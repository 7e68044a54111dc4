import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { FeatureStore, extractFeatures } from '../src/vision/cache';
import type { ImageFeatures } from '../src/vision/features';
import { WorldCnn, loadWorldCnn, saveWorldCnn, DEFAULT_PRETRAIN } from '../src/vision/world-cnn';

const D = 4;
const backbone = { id: 'test-backbone', featureDim: D };

function fake(key: string, regions: number, seed: number): ImageFeatures {
  const fill = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => seed * 1000 + k * 100 + i * 0.5);
  return { key, global: fill(D, 1), grid: fill(64 * D, 2), regions: fill(regions * D, 3), boxes: fill(regions * 5, 4), tags: [`tag ${seed}`, 'photo'] };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-vision-'));
}

function same(a: ImageFeatures, b: ImageFeatures): void {
  assert.equal(a.key, b.key);
  for (const part of ['global', 'grid', 'regions', 'boxes'] as const) assert.deepEqual(Array.from(a[part]), Array.from(b[part]), part);
  assert.deepEqual(a.tags, b.tags);
}

test('feature store: round trip through disk, appends merge, a reopened store reads the same floats', () => {
  const dir = tempDir();
  const store = FeatureStore.open(backbone, { cacheDir: dir });
  const first = [fake('a', 0, 1), fake('b', 3, 2)];
  store.append(first);
  store.append([fake('c', 16, 3)]);
  assert.equal(store.size, 3);
  const reopened = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(reopened.keys().sort(), ['a', 'b', 'c']);
  same(reopened.get('a')!, first[0]!);
  same(reopened.get('b')!, first[1]!);
  same(reopened.get('c')!, fake('c', 16, 3));
  assert.equal(reopened.get('missing'), undefined);
  // a second writer appending to the same store does not lose the first's entries
  const other = FeatureStore.open(backbone, { cacheDir: dir });
  reopened.append([fake('d', 1, 4)]);
  other.append([fake('e', 2, 5)]);
  const merged = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(merged.keys().sort(), ['a', 'b', 'c', 'd', 'e']);
  same(merged.get('d')!, fake('d', 1, 4));
  same(merged.get('e')!, fake('e', 2, 5));
  // wrong shapes and wrong backbones are refused
  assert.throws(() => merged.append([{ ...fake('f', 1, 6), grid: new Float32Array(3) }]), /wrong shape/);
  assert.throws(() => FeatureStore.open({ id: 'test-backbone', featureDim: 8 }, { cacheDir: dir }), /holds test-backbone \(D=4\)/);
});

test('feature store: a half-written chunk is never read', () => {
  const dir = tempDir();
  const store = FeatureStore.open(backbone, { cacheDir: dir });
  store.append([fake('a', 2, 1)]);
  // a crash mid-write leaves a temporary or an unreferenced chunk: the index does not name it
  fs.writeFileSync(path.join(store.dir, 'chunk-zzz.bin.tmp-1-x'), Buffer.alloc(10));
  fs.writeFileSync(path.join(store.dir, 'chunk-zzz.bin'), Buffer.alloc(12));
  const reopened = FeatureStore.open(backbone, { cacheDir: dir });
  assert.deepEqual(reopened.keys(), ['a']);
  same(reopened.get('a')!, fake('a', 2, 1));
  // a chunk cut short under its index is refused, not read as garbage
  const chunk = fs.readdirSync(store.dir).find((f) => f.endsWith('.bin') && f !== 'chunk-zzz.bin')!;
  const full = fs.readFileSync(path.join(store.dir, chunk));
  fs.writeFileSync(path.join(store.dir, chunk), full.subarray(0, full.length - 8));
  assert.throws(() => FeatureStore.open(backbone, { cacheDir: dir }).get('a'), /size or checksum/);
  // the index itself is replaced by rename only: no temporary index is left behind
  assert.deepEqual(
    fs.readdirSync(store.dir).filter((f) => f.startsWith('index')),
    ['index.json'],
  );
});

test('extractFeatures computes only the missing images and reports failures', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-tiny-test');
  const images = [0, 1, 2].map((id) => ({ key: `world://0/coco-val/${id}.jpg` }));
  const first = await extractFeatures(images.slice(0, 2), { backbone: model, cacheDir: dir, batchSize: 2 });
  assert.equal(first.computed, 2);
  assert.equal(first.cached, 0);
  const second = await extractFeatures([...images, { key: path.join(dir, 'no-such.jpg') }, images[0]!], { backbone: model, cacheDir: dir, batchSize: 2 });
  assert.equal(second.computed, 1);
  assert.equal(second.cached, 2);
  assert.equal(second.failed.length, 1);
  assert.match(second.failed[0]!.reason, /ENOENT/);
  const f = second.store.get(images[2]!.key)!;
  assert.equal(f.global.length, 8);
  model.dispose();
});

test('extractFeatures reads a stream a few batches ahead, not the whole stream, and gives what the list gives', async () => {
  await tf.setBackend('cpu');
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 3, 600, 'world-cnn-stream-test');
  const keys = Array.from({ length: 40 }, (_, id) => `world://0/coco-val/${id % 30}.jpg`);
  const batchSize = 2;
  const yielded = new Set<string>();
  let mostAhead = 0;
  const dir = tempDir();
  const store = () => FeatureStore.open(model, { cacheDir: dir });
  async function* stream() {
    for (const key of keys) {
      // distinct images read but not yet in the store: what extractFeatures holds in memory
      yielded.add(key);
      mostAhead = Math.max(mostAhead, yielded.size - store().size);
      yield { key };
    }
  }
  const streamed = await extractFeatures(stream(), { backbone: model, cacheDir: dir, batchSize, chunkSize: 4, total: keys.length });
  assert.equal(streamed.read, 40);
  assert.equal(streamed.computed, 30);
  assert.equal(streamed.cached, 0);
  // stored in chunks of 4 while 4 batches of 2 wait to be computed: at most 8 + 4 images held, of 30
  assert.ok(mostAhead <= batchSize * 4 + 4, `held ${mostAhead} images at once`);
  assert.ok(mostAhead >= batchSize * 4, `held ${mostAhead} images at once`);
  const listed = await extractFeatures(
    keys.map((key) => ({ key })),
    { backbone: model, cacheDir: tempDir(), batchSize },
  );
  for (const key of new Set(keys)) {
    const a = streamed.store.get(key)!.global;
    const b = listed.store.get(key)!.global;
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) <= 1e-5, key);
  }
  model.dispose();
});

test('world-cnn weights: saved atomically, loaded back identical; a damaged file is not loaded', async () => {
  await tf.setBackend('cpu');
  const dir = tempDir();
  const model = WorldCnn.init({ inputSize: 16, channels: [4, 8] }, 5, 600, 'world-cnn-save-test').withIdentity('world-cnn-save-test', 0.5, undefined);
  saveWorldCnn(model, dir, DEFAULT_PRETRAIN);
  const loaded = loadWorldCnn(dir, 'world-cnn-save-test')!;
  assert.ok(loaded);
  assert.equal(loaded.scale, 0.5);
  const x = tf.randomUniform([2, 16, 16, 3], 0, 255, 'float32', 1) as tf.Tensor4D;
  assert.deepEqual(Array.from(loaded.featureMap(x).dataSync()), Array.from(model.featureMap(x).dataSync()));
  const bin = path.join(dir, 'world-cnn-save-test.bin');
  fs.writeFileSync(bin, fs.readFileSync(bin).subarray(0, 100));
  assert.equal(loadWorldCnn(dir, 'world-cnn-save-test'), undefined);
  assert.equal(loadWorldCnn(dir, 'absent'), undefined);
});
